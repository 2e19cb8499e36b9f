import { EventEmitter } from "node:events";

/*
 * The in-process nudge from a commit that wrote outbox rows to the worker. Keyed on a global
 * symbol: the routes run inside the Astro bundle and the worker in jobs/ code run from source, two
 * copies of this module in one process, and both must share one emitter. Across processes the
 * worker's polling is the fallback.
 */
const KEY = Symbol.for("abeille.outbox.signal");

type Holder = { [KEY]?: EventEmitter };

export function outboxSignal(): EventEmitter {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(50);
    holder[KEY] = emitter;
  }
  return holder[KEY];
}

/** Tells the worker (if one runs in this process) that rows are waiting. Cheap; never throws. */
export function notifyOutbox(): void {
  outboxSignal().emit("written");
}
