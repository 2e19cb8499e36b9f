/**
 * The outbox worker thread's entry (see outbox-thread.ts): its own connection to the store, the
 * ordinary outbox worker, and a transport that writes .eml files with blocking calls (this thread
 * does nothing else).
 */
import { parentPort, workerData } from "node:worker_threads";
import { createApp } from "../app.ts";
import type { Config } from "../config/config.ts";
import { notifyOutbox } from "./outbox-signal.ts";
import { startOutboxWorker } from "./outbox-worker.ts";
import { createMailTransport } from "./transport.ts";

export type OutboxThreadMessage = "nudge" | "stop";

const config = (workerData as { config: Config }).config;
const app = createApp(config);
const worker = startOutboxWorker(app, { transport: createMailTransport(config.mail, { blockingFiles: true }) });

parentPort?.on("message", (message: OutboxThreadMessage) => {
  if (message === "nudge") {
    notifyOutbox();
    return;
  }
  void worker
    .stop()
    .catch(() => undefined)
    .then(() => {
      app.close();
      parentPort?.postMessage("stopped");
      parentPort?.close();
    });
});
