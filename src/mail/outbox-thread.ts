import { Worker } from "node:worker_threads";
import type { Config } from "../config/config.ts";
import { logger } from "../logging.ts";
import { outboxSignal } from "./outbox-signal.ts";
import type { OutboxThreadMessage, OutboxThreadReport } from "./outbox-thread-entry.ts";

/** How often, at most, commits on this thread wake the outbox thread (it gathers a batch itself). */
const NUDGE_INTERVAL_MS = 20;

export interface OutboxThread {
  /** Lets the batch in progress finish (at most `timeoutMs`, default 10 s), then ends the thread. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** Whether the delivery thread is running now (it ends when nothing is waiting). */
  running(): boolean;
}

export interface OutboxThreadOptions {
  /** When the earliest unsettled outbox row falls due, or null when nothing waits (the outbox repository's). */
  nextDueAt: () => Promise<string | null>;
  now?: () => Date;
}

/**
 * The server's outbox worker, in a worker thread of its own. Claiming rows, composing each email
 * and writing it cost about as much CPU as accepting the lead did; on the thread that answers
 * requests that halved the leads a server could accept. The thread has its own connection (WAL:
 * its short claim and settle transactions interleave with the server's writes) and is woken by
 * the server's commits; its polling covers rows written by other processes.
 *
 * The thread runs while there is mail: it starts with the server (rows a previous run left go
 * out), ends once nothing has been waiting for `outboxThreadIdleMs`, and starts again on the next
 * commit that writes outbox rows, or when this thread's poll finds a row falling due (a retry, a
 * row written by a process whose nudge was lost). A thread is a V8 isolate of its own (about
 * 40 MB): a registry that sends no mail does not pay for one.
 */
export function startOutboxThread(config: Config, options: OutboxThreadOptions): OutboxThread {
  const now = options.now ?? (() => new Date());
  let thread: Worker | null = null;
  /** The thread said it ends (idle), or was asked to stop: a wake-up then starts the next one. */
  let ending = false;
  let restart = false;
  let stopped = false;
  let waiting = false;
  let ended: Promise<void> = Promise.resolve();

  /** Starts a thread when none runs and a row falls due within the poll interval (a retry, another process's row). */
  const spawnIfDue = async () => {
    try {
      const due = await options.nextDueAt();
      const soon = due !== null && Date.parse(due) <= now().getTime() + config.outboxPollMs;
      // Checked after the read: a thread may have started (or stop been called) meanwhile.
      if (soon && !thread && !stopped) spawn();
    } catch (failure) {
      logger.error("outbox thread: reading when the next row falls due failed", {
        error: failure instanceof Error ? failure.message : String(failure),
      });
    }
  };

  const spawn = () => {
    const worker = new Worker(new URL("./outbox-thread-entry.ts", import.meta.url), { workerData: { config } });
    thread = worker;
    ending = false;
    worker.on("message", (report: OutboxThreadReport) => {
      if (report === "idle") ending = true;
    });
    worker.on("error", (error) => logger.error("outbox thread failed", { error: error.message }));
    ended = new Promise<void>((resolve) =>
      worker.once("exit", (code) => {
        thread = null;
        ending = false;
        if (code !== 0 && !stopped) logger.error("outbox thread exited", { code });
        resolve();
        // Mail that arrived while it was ending (or that it left behind on a crash) is not left waiting.
        if (stopped) return;
        if (restart) {
          restart = false;
          spawn();
        } else {
          void spawnIfDue();
        }
      }),
    );
  };

  const wake = () => {
    if (stopped) return;
    if (!thread) {
      // A new thread drains the outbox as soon as it has loaded.
      spawn();
      return;
    }
    if (ending) {
      restart = true;
      return;
    }
    if (waiting) return;
    waiting = true;
    setTimeout(() => {
      waiting = false;
      thread?.postMessage("nudge" satisfies OutboxThreadMessage);
    }, NUDGE_INTERVAL_MS).unref();
  };

  outboxSignal().on("written", wake);
  const poll = setInterval(() => {
    if (!thread && !stopped) void spawnIfDue();
  }, config.outboxPollMs);
  poll.unref();
  spawn();

  return {
    running: () => thread !== null && !ending,
    async stop({ timeoutMs = 10_000 } = {}) {
      stopped = true;
      clearInterval(poll);
      outboxSignal().off("written", wake);
      const current = thread;
      if (!current) return;
      current.postMessage("stop" satisfies OutboxThreadMessage);
      const timer = setTimeout(() => void current.terminate(), timeoutMs);
      await ended;
      clearTimeout(timer);
    },
  };
}
