/**
 * The outbox worker thread's entry (see outbox-thread.ts): its own connection to the store, the
 * ordinary outbox worker, and a transport that writes .eml files with blocking calls (this thread
 * does nothing else).
 */
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import type { Config } from "../config/config.ts";
import { createSignInLinkTokens } from "../domain/merchant-space/sign-in-links.ts";
import { logger } from "../logging.ts";
import { openDatabase } from "../store/db.ts";
import {
  createLeadEmailConfirmationRepository,
  leadEmailTokensOf,
} from "../store/lead-email-confirmation-repository.ts";
import { createLeadRepository, loadOrCreateSecret } from "../store/lead-repository.ts";
import { createOutboxRepository, sqliteOutboxClaims } from "../store/outbox-repository.ts";
import { createPlatformContactRepository } from "../store/platform-contact-repository.ts";
import { createSignInLinkRepository, signInLinkKeyFile } from "../store/sign-in-link-repository.ts";
import { createSpaceNoticeRepository } from "../store/space-notice-repository.ts";
import { notifyOutbox } from "./outbox-signal.ts";
import { type OutboxServices, startOutboxWorker } from "./outbox-worker.ts";
import { createMailTransport } from "./transport.ts";

export type OutboxThreadMessage = "nudge" | "stop";
/** What the thread tells the server: it ends, nothing being left to send (outbox-thread.ts). */
export type OutboxThreadReport = "idle";

const config = (workerData as { config: Config }).config;
lowerThisThreadsPriority();
// Only what delivery needs (no search, signing or payments loaded in this thread): the thread
// touches the outbox, its leads and their merchants' emails.
const store = await openDeliveryStore(config);
const services = {
  config,
  now: () => new Date(),
  ...store.ports,
  signInLinkTokens: createSignInLinkTokens(() => loadOrCreateSecret(signInLinkKeyFile(config.dataDir))),
  leadEmailTokens: leadEmailTokensOf(config.dataDir),
};
const worker = startOutboxWorker(services, {
  transport: createMailTransport(config.mail, { blockingFiles: true }),
});

let lastWoken = Date.now();
let ending = false;

/** Ends the thread: the batch in progress finishes, the connection closes. */
function end(): void {
  if (ending) return;
  ending = true;
  clearInterval(idleCheck);
  void worker
    .stop()
    .catch(() => undefined)
    .then(() => {
      void store.close().finally(() => parentPort?.close());
    });
}

// Nothing waiting (no row due within the idle time, no nudge for as long): the thread ends and
// the server starts a new one for the next mail (outbox-thread.ts).
const idleCheck = setInterval(() => void endIfIdle(), Math.min(config.outboxPollMs, config.outboxThreadIdleMs));

async function endIfIdle(): Promise<void> {
  let due: string | null;
  try {
    due = await services.outbox.nextDueAt();
  } catch (failure) {
    // The store does not answer now: the thread stays, the next check asks again.
    logger.error("outbox thread: reading when the next row falls due failed", {
      error: failure instanceof Error ? failure.message : String(failure),
    });
    return;
  }
  const now = Date.now();
  const waiting = due !== null && Date.parse(due) <= now + config.outboxThreadIdleMs;
  if (ending || waiting || now - lastWoken < config.outboxThreadIdleMs) return;
  parentPort?.postMessage("idle" satisfies OutboxThreadReport);
  end();
}

parentPort?.on("message", (message: OutboxThreadMessage) => {
  if (message === "nudge") {
    lastWoken = Date.now();
    if (!ending) notifyOutbox();
    return;
  }
  end();
});

/**
 * Requests first, emails with what the cores leave over: a lead is safe once committed with its
 * outbox row, a person waits on the answer, and a merchant does not notice an email that leaves a
 * few hundred milliseconds later. On Linux a priority set with pid 0 applies to the calling thread
 * alone (each thread is a task of its own), so the request thread keeps its priority; when the
 * server is idle the thread still gets a whole core. Elsewhere this is the whole process, so it
 * is not done (nor where the system refuses it).
 */
function lowerThisThreadsPriority(): void {
  if (process.platform !== "linux") return;
  try {
    os.setPriority(0, Math.min(os.constants.priority.PRIORITY_LOW, os.getPriority(0) + 10));
  } catch {
    // Not allowed here: delivery keeps the process's priority.
  }
}

/**
 * The thread's own connection to the store: on SQLite a raw connection with a small page cache
 * (the repositories below write with SQL of their own; drizzle with the schema would cost this
 * thread 8 MB of heap, the owner process's RSS: docs/performance.md); on PostgreSQL a pool of two.
 */
async function openDeliveryStore(setup: Config): Promise<{
  ports: Pick<
    OutboxServices,
    "outbox" | "leads" | "platformContacts" | "signInLinks" | "leadEmailConfirmations" | "spaceNotices"
  >;
  close(): Promise<void>;
}> {
  if (setup.postgres) {
    // Loaded only here: a thread on SQLite carries no PostgreSQL driver.
    const { openPostgresStore } = await import("../store/postgres/postgres-store.ts");
    const postgres = openPostgresStore(
      { ...setup.postgres, poolMax: 2 },
      { applicationName: "abeille outbox", watchRevision: false },
    );
    return {
      ports: {
        outbox: postgres.outbox,
        leads: postgres.leads,
        platformContacts: postgres.platformContacts,
        signInLinks: postgres.signInLinks,
        leadEmailConfirmations: postgres.leadEmailConfirmations,
        spaceNotices: postgres.spaceNotices,
      },
      close: postgres.close,
    };
  }
  const db = openDatabase(setup.databaseFile, { small: true, checkpoints: setup.walCheckpoints });
  return {
    ports: {
      outbox: createOutboxRepository(db, sqliteOutboxClaims(db)),
      leads: createLeadRepository(db),
      platformContacts: createPlatformContactRepository(db),
      signInLinks: createSignInLinkRepository(db),
      leadEmailConfirmations: createLeadEmailConfirmationRepository(db),
      spaceNotices: createSpaceNoticeRepository(db),
    },
    close: async () => {
      db.$client.close();
    },
  };
}
