/**
 * `npm run refresh`: prerenders every published merchant's documents (JSON-LD, AI digest, ai.md,
 * decision card, snapshot manifest), the key set and the static server configuration into the
 * publish folder (DATA_DIR/publish, or PUBLISH_DIR). Incremental: unchanged merchants are not
 * rendered, unchanged files are not rewritten, withdrawn merchants' files are deleted.
 *
 *   npm run refresh [-- --full] [--json] [--quiet] [--workers N] [--batch-size N]
 *
 * Exit status:
 *   0  done: the counts on stdout (merchants that failed to render are counted there, and warned)
 *   2  usage: a wrong option, argument or setting, or this machine lacks the deployment's secret or signing keys or holds others (the file to copy named), said in one line (nothing was done)
 *   3  busy: another refresh is running (on this publish folder, or anywhere on the deployment with DATABASE_URL), said in one line with who holds it (nothing was done)
 */
import { loadConfig } from "../src/config/config.ts";
import { sweepTrustChanges } from "../src/domain/trust/trust-sweep.ts";
import { logger } from "../src/logging.ts";
import { refreshCodeKey } from "../src/publish/code-key.ts";
import { RefreshBusyError, type RefreshSummary, runRefresh } from "../src/publish/publisher.ts";
import { loadPublishSettings } from "../src/publish/settings.ts";
import { publishSigning } from "../src/publish/signing-hooks.ts";
import { workerRunner } from "../src/publish/worker-runner.ts";
import { postgresRefreshStore } from "../src/store/postgres/publish-index.ts";
import { createPostgresPublishedDocuments } from "../src/store/postgres/published-documents.ts";
import { CommandError, EXIT_BUSY, EXIT_DONE, runCommand, USAGE_OR_SECRET_STATUS, wholeNumberOption } from "./cli.ts";
import { followLeaderTerm, withJobStore } from "./job-store.ts";
import { progressBar } from "./progress.ts";
import { catchUpSearchIndex } from "./search-catch-up.ts";
import { requireSharedFiles } from "./shared-files.ts";

await runCommand(
  {
    name: "refresh",
    usage: ["npm run refresh [-- --full] [--json] [--quiet] [--workers N] [--batch-size N]"],
    notes: [
      "--full renders every merchant again (otherwise only those written since the last run);",
      "--json prints the summary as JSON; --quiet prints nothing; --workers N renders in N threads",
      "(default REFRESH_WORKERS; 1: in this process); --batch-size N merchants a batch, each batch's",
      "documents in one pack (default 500 on a full pass, 100 otherwise). A progress bar shows on a terminal.",
    ],
    options: {
      full: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      workers: { type: "string" },
      "batch-size": { type: "string" },
    },
    exitStatuses: [
      [EXIT_DONE, "done: the counts on stdout (merchants that failed to render are counted there, and warned)"],
      USAGE_OR_SECRET_STATUS,
      [
        EXIT_BUSY,
        "busy: another refresh is running (on this publish folder, or anywhere on the deployment with DATABASE_URL), said in one line with who holds it (nothing was done)",
      ],
    ],
  },
  async ({ values }) => {
    const workersOption =
      values.workers === undefined ? undefined : wholeNumberOption("workers", values.workers, 1, 32);
    const batchSize =
      values["batch-size"] === undefined ? undefined : wholeNumberOption("batch-size", values["batch-size"], 1, 10_000);
    const config = loadConfig();
    const settings = loadPublishSettings(config);
    const signing = publishSigning(config);
    const workers = workersOption ?? settings.refreshWorkers ?? undefined;
    const showProgress = !values.quiet && !values.json && process.stderr.isTTY === true;
    const bar = progressBar({ label: "refresh", unit: "merchants" });

    const summary: RefreshSummary & { trustTouched: number } = await withJobStore(config, "refresh", async (store) => {
      // It signs the snapshots with the deployment's keys, never a key it would make itself.
      await requireSharedFiles(store.deploymentFiles, config, ["keys"]);
      const run = await runRefresh({
        ...(store.engine === "sqlite"
          ? { db: store.db }
          : // PostgreSQL: the registry's reads and the serve index in the shared database, each file
            // published there for every instance's mirror (docs/several-machines.md).
            {
              // A refresh the leader scheduled publishes only while that server still leads.
              store: postgresRefreshStore(store.pool, { fence: followLeaderTerm(store) }),
              publishedDocuments: createPostgresPublishedDocuments(store.pool),
            }),
        config,
        settings,
        codeKey: refreshCodeKey(),
        full: values.full,
        ...(batchSize === undefined ? {} : { batchSize }),
        snapshotIssuer: signing.snapshotIssuer,
        keySet: signing.keySet,
        ...(workers === 1
          ? {}
          : { runner: workerRunner({ ...config, databaseUrl: config.postgres?.url ?? null }, settings, workers) }),
        ...(showProgress ? { onProgress: ({ done, total }) => bar.update(done, total) } : {}),
      }).catch((error: unknown) => {
        if (error instanceof RefreshBusyError)
          throw new CommandError(`${error.message}; run it again once it ends`, EXIT_BUSY);
        throw error;
      });
      // Trust that moved by itself since the last sweep (a signal's expiry, a company's
      // anniversary) becomes a change of the feed (src/domain/trust/trust-sweep.ts); the store's own
      // search index then follows the feed (each PostgreSQL server's follows it by itself).
      const swept = await sweepTrustChanges({
        store: store.trustSweep,
        merchants: store.merchants,
        now: () => new Date(),
      });
      await catchUpSearchIndex(store, "refresh");
      return { ...run, trustTouched: swept.touched };
    });
    if (showProgress) bar.end();

    if (values.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else if (!values.quiet) {
      process.stdout.write(
        `Refreshed ${settings.publishDir}\n` +
          `  merchants  ${summary.merchants} published (${summary.rendered} rendered, ${summary.skipped} unchanged without rendering)\n` +
          `  files      ${summary.written} written, ${summary.unchanged} unchanged, ${summary.deleted} deleted\n` +
          `  snapshots  ${summary.snapshotsSigned} signed\n` +
          `  changed    ${summary.changed} merchants since the last run\n` +
          `  trust      ${summary.trustTouched} merchants whose trust moved by itself (the search index follows them)\n` +
          `  withdrawn  ${summary.withdrawn} merchants\n` +
          `${summary.failed > 0 ? `  failed     ${summary.failed} merchants (see warnings)\n` : ""}` +
          `  seconds    ${summary.seconds}\n`,
      );
    }
    logger.info("refresh finished", { ...summary });
  },
);
