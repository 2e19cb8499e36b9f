/**
 * The mail outbox worker.
 *
 *   npm run outbox            keep delivering (polls every OUTBOX_POLL_MS) until SIGINT/SIGTERM
 *   npm run outbox -- --once  deliver what is due now, print the counts, exit
 *
 * Servers run it in-process with `startOutboxWorker(app)` (jobs/start.ts). Several workers may run
 * against one database: their claims never overlap. Without SMTP settings, emails are written as
 * .eml files under DATA_DIR/outbox/.
 *
 * Exit status:
 *   0  done (--once: the counts on stdout, otherwise stopped by SIGINT or SIGTERM)
 *   2  usage: a wrong option, argument or setting, or this machine lacks the deployment's secret or signing keys or holds others (the file to copy named), said in one line (nothing was done)
 */
import { pathToFileURL } from "node:url";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { drainOutbox } from "../src/mail/dispatch-outbox.ts";
import { dispatchDeps, startOutboxWorker } from "../src/mail/outbox-worker.ts";
import { createMailTransport } from "../src/mail/transport.ts";
import { EXIT_DONE, runCommand, USAGE_OR_SECRET_STATUS } from "./cli.ts";
import { requireSharedFiles } from "./shared-files.ts";

export { type OutboxWorker, startOutboxWorker } from "../src/mail/outbox-worker.ts";

async function main(once: boolean): Promise<void> {
  const app = createApp(loadConfig());
  // The links its emails carry are HMACs every server checks: the deployment's keys, never new ones.
  await requireSharedFiles(app.store.deploymentFiles, app.config, ["leadEmail", "signInLink"]).catch(
    (error: unknown) => {
      app.close();
      throw error;
    },
  );
  if (once) {
    const transport = createMailTransport(app.config.mail);
    try {
      await app.outbox.reclaimFromDeadClaimers(new Date().toISOString());
      const report = await drainOutbox(dispatchDeps(app, transport));
      const pending = await app.outbox.countByStatus();
      process.stdout.write(
        `outbox: ${report.sent} sent, ${report.retried} to retry, ${report.failed} failed; ` +
          `rows by status ${JSON.stringify(pending)} (${transport.kind === "file" ? app.config.mail.outboxDir : "SMTP"})\n`,
      );
    } finally {
      transport.close();
      app.close();
    }
    return;
  }
  const worker = startOutboxWorker(app);
  const stop = (signal: string) => {
    logger.info("outbox worker stopping", { signal });
    setTimeout(() => process.exit(0), 15_000).unref();
    void worker
      .stop()
      .catch(() => undefined)
      .then(() => {
        app.close();
        process.exit(0);
      });
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  // Keep the process alive: the worker's timer is unref'd for servers.
  setInterval(() => {}, 1 << 30);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCommand(
    {
      name: "outbox",
      usage: ["npm run outbox", "npm run outbox -- --once"],
      notes: [
        "Without --once: keeps delivering (every OUTBOX_POLL_MS) until SIGINT or SIGTERM.",
        "--once: delivers what is due now, prints the counts and exits.",
        "Without SMTP settings, emails are written as .eml files under DATA_DIR/outbox/.",
      ],
      options: { once: { type: "boolean", default: false } },
      exitStatuses: [
        [EXIT_DONE, "done (--once: the counts on stdout, otherwise stopped by SIGINT or SIGTERM)"],
        USAGE_OR_SECRET_STATUS,
      ],
    },
    ({ values }) => main(values.once),
  );
}
