import { Worker } from "node:worker_threads";
import type { Config } from "../config/config.ts";
import { logger } from "../logging.ts";
import { outboxSignal } from "./outbox-signal.ts";
import type { OutboxThreadMessage } from "./outbox-thread-entry.ts";

/** How often, at most, commits on this thread wake the outbox thread (it gathers a batch itself). */
const NUDGE_INTERVAL_MS = 20;

export interface OutboxThread {
  /** Lets the batch in progress finish (at most `timeoutMs`, default 10 s), then ends the thread. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * The server's outbox worker, in a worker thread of its own. Claiming rows, composing each email
 * and writing it cost about as much CPU as accepting the lead did; on the thread that answers
 * requests that halved the leads a server could accept. The thread has its own connection (WAL:
 * its short claim and settle transactions interleave with the server's writes) and is woken by
 * the server's commits; its polling covers rows written by other processes.
 */
export function startOutboxThread(config: Config): OutboxThread {
  const thread = new Worker(new URL("./outbox-thread-entry.ts", import.meta.url), { workerData: { config } });
  let exited = false;
  let waiting = false;
  const nudge = () => {
    if (waiting || exited) return;
    waiting = true;
    setTimeout(() => {
      waiting = false;
      thread.postMessage("nudge" satisfies OutboxThreadMessage);
    }, NUDGE_INTERVAL_MS).unref();
  };
  outboxSignal().on("written", nudge);
  thread.on("error", (error) => logger.error("outbox thread failed", { error: error.message }));
  const ended = new Promise<void>((resolve) =>
    thread.once("exit", (code) => {
      exited = true;
      outboxSignal().off("written", nudge);
      if (code !== 0) logger.error("outbox thread exited", { code });
      resolve();
    }),
  );
  return {
    async stop({ timeoutMs = 10_000 } = {}) {
      if (exited) return;
      thread.postMessage("stop" satisfies OutboxThreadMessage);
      const timer = setTimeout(() => void thread.terminate(), timeoutMs);
      await ended;
      clearTimeout(timer);
    },
  };
}
