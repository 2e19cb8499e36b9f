/**
 * The outbox worker thread's entry (see outbox-thread.ts): its own connection to the store, the
 * ordinary outbox worker, and a transport that writes .eml files with blocking calls (this thread
 * does nothing else).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Config } from "../config/config.ts";
import { openDatabase } from "../store/db.ts";
import { createLeadRepository } from "../store/lead-repository.ts";
import { createOutboxRepository } from "../store/outbox-repository.ts";
import { createPlatformContactRepository } from "../store/platform-contact-repository.ts";
import { notifyOutbox } from "./outbox-signal.ts";
import { startOutboxWorker } from "./outbox-worker.ts";
import { createMailTransport } from "./transport.ts";

export type OutboxThreadMessage = "nudge" | "stop";

const config = (workerData as { config: Config }).config;
// Only what delivery needs (no search, signing or payments loaded in this thread), on a connection
// with a small page cache: the thread touches the outbox, its leads and their merchants' emails.
const db = openDatabase(config.databaseFile, { small: true });
const services = {
  config,
  now: () => new Date(),
  outbox: createOutboxRepository(db),
  leads: createLeadRepository(db),
  platformContacts: createPlatformContactRepository(db),
};
const worker = startOutboxWorker(services, {
  transport: createMailTransport(config.mail, { blockingFiles: true }),
});

parentPort?.on("message", (message: OutboxThreadMessage) => {
  if (message === "nudge") {
    notifyOutbox();
    return;
  }
  void worker
    .stop()
    .catch(() => undefined)
    .then(() => {
      db.$client.close();
      parentPort?.postMessage("stopped");
      parentPort?.close();
    });
});
