/**
 * Personal-data retention.
 *
 *   npm run retention   anonymise leads, follow-up messages and platform contacts older than
 *                       LEAD_RETENTION_MONTHS (default 24), drop expired duplicate windows, old
 *                       lead Idempotency-Keys and old .eml files, print the counts, exit
 *
 * Servers run it daily with `startRetentionSchedule(app)` (jobs/start.ts).
 *
 * Exit status:
 *   0  done: the counts on stdout
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */

import { pathToFileURL } from "node:url";
import cron, { type ScheduledTask } from "node-cron";
import type { App } from "../src/app.ts";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { anonymizeExpired, type RetentionReport } from "../src/domain/privacy/anonymize-expired.ts";
import { logger } from "../src/logging.ts";
import { pruneMailFiles } from "../src/mail/outbox-files.ts";
import { EXIT_DONE, runCommand, USAGE_STATUS } from "./cli.ts";

/** Every day at 03:17, Paris time. */
export const RETENTION_CRON = "17 3 * * *";

export function runRetention(app: App): Promise<RetentionReport> {
  return anonymizeExpired({
    retention: app.retention,
    now: app.now,
    retentionMonths: app.config.leadRetentionMonths,
    pruneMailFiles: (cutoff) => pruneMailFiles(app.config.mail.outboxDir, cutoff),
  });
}

/** Schedules the retention run daily in this process; stop() the task on shutdown. */
export function startRetentionSchedule(app: App): ScheduledTask {
  return cron.schedule(
    RETENTION_CRON,
    async () => {
      try {
        await runRetention(app);
      } catch (failure) {
        logger.error("retention run failed", { error: failure instanceof Error ? failure.name : "unknown" });
      }
    },
    { name: "lead-retention", timezone: "Europe/Paris", noOverlap: true },
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCommand(
    {
      name: "retention",
      usage: ["npm run retention"],
      notes: [
        "Anonymises leads, follow-up messages and platform contacts older than LEAD_RETENTION_MONTHS",
        "(default 24), drops expired duplicate windows, old lead Idempotency-Keys and old .eml files,",
        "prints the counts. Servers run it every day at 03:17, Paris time.",
      ],
      options: {},
      exitStatuses: [[EXIT_DONE, "done: the counts on stdout"], USAGE_STATUS],
    },
    async () => {
      const app = createApp(loadConfig());
      try {
        const report = await runRetention(app);
        process.stdout.write(
          `retention (before ${report.cutoff}): ${report.leads} leads, ${report.leadMessages} messages, ` +
            `${report.platformContacts} platform contacts, ${report.orders} orders anonymised; ${report.dedupWindows} duplicate windows, ` +
            `${report.idempotencyKeys} idempotency keys, ${report.spaceSessions} merchant-space sessions, ${report.leadEmailLinks} lead email links, ${report.spaceNotices} notices, ${report.mailFiles} mail files removed\n`,
        );
      } finally {
        app.close();
      }
    },
  );
}
