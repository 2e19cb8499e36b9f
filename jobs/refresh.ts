/**
 * `npm run refresh`: prerenders every published merchant's documents (JSON-LD, AI digest, ai.md,
 * decision card, snapshot manifest), the key set and the static server configuration into the
 * publish folder (DATA_DIR/publish, or PUBLISH_DIR). Incremental: unchanged merchants are not
 * rendered, unchanged files are not rewritten, withdrawn merchants' files are deleted.
 *
 *   npm run refresh [-- --full] [--json] [--quiet] [--workers N]
 *
 * Exit status:
 *   0  done: the counts on stdout (merchants that failed to render are counted there, and warned)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { refreshCodeKey } from "../src/publish/code-key.ts";
import { type RefreshSummary, runRefresh } from "../src/publish/publisher.ts";
import { loadPublishSettings } from "../src/publish/settings.ts";
import { publishSigning } from "../src/publish/signing-hooks.ts";
import { workerRunner } from "../src/publish/worker-runner.ts";
import { createEmbeddedSearchIndex } from "../src/search/embedded/index.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { EXIT_DONE, runCommand, USAGE_STATUS, wholeNumberOption } from "./cli.ts";
import { progressBar } from "./progress.ts";

await runCommand(
  {
    name: "refresh",
    usage: ["npm run refresh [-- --full] [--json] [--quiet] [--workers N]"],
    notes: [
      "--full renders every merchant again (otherwise only those written since the last run);",
      "--json prints the summary as JSON; --quiet prints nothing; --workers N renders in N threads",
      "(default REFRESH_WORKERS; 1: in this process). A progress bar shows on a terminal.",
    ],
    options: {
      full: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      workers: { type: "string" },
    },
    exitStatuses: [
      [EXIT_DONE, "done: the counts on stdout (merchants that failed to render are counted there, and warned)"],
      USAGE_STATUS,
    ],
  },
  async ({ values }) => {
    const workersOption =
      values.workers === undefined ? undefined : wholeNumberOption("workers", values.workers, 1, 32);
    const config = loadConfig();
    const settings = loadPublishSettings(config);
    const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
    const signing = publishSigning(config);
    const workers = workersOption ?? settings.refreshWorkers ?? undefined;
    const showProgress = !values.quiet && !values.json && process.stderr.isTTY === true;
    const bar = progressBar({ label: "refresh", unit: "merchants" });

    let summary: RefreshSummary;
    try {
      summary = await runRefresh({
        db,
        config,
        settings,
        codeKey: refreshCodeKey(),
        full: values.full,
        snapshotIssuer: signing.snapshotIssuer,
        keySet: signing.keySet,
        // The search index keeps a copy of each merchant's trust and status: bring the changed ones up to date.
        onMerchantsChanged: (abIds) => createEmbeddedSearchIndex(db).refresh(abIds),
        ...(workers === 1 ? {} : { runner: workerRunner(config, settings, workers) }),
        ...(showProgress ? { onProgress: ({ done, total }) => bar.update(done, total) } : {}),
      });
    } finally {
      db.$client.close();
    }
    if (showProgress) bar.end();

    if (values.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else if (!values.quiet) {
      process.stdout.write(
        `Refreshed ${settings.publishDir}\n` +
          `  merchants  ${summary.merchants} published (${summary.rendered} rendered, ${summary.skipped} unchanged without rendering)\n` +
          `  files      ${summary.written} written, ${summary.unchanged} unchanged, ${summary.deleted} deleted\n` +
          `  snapshots  ${summary.snapshotsSigned} signed\n` +
          `  changed    ${summary.changed} merchants since the last run (search index updated for them)\n` +
          `  withdrawn  ${summary.withdrawn} merchants\n` +
          `${summary.failed > 0 ? `  failed     ${summary.failed} merchants (see warnings)\n` : ""}` +
          `  seconds    ${summary.seconds}\n`,
      );
    }
    logger.info("refresh finished", { ...summary });
  },
);
