/**
 * `npm run refresh`: prerenders every published merchant's documents (JSON-LD, AI digest, ai.md,
 * decision card, snapshot manifest), the key set and the static server configuration into the
 * publish folder (DATA_DIR/publish, or PUBLISH_DIR). Incremental: unchanged merchants are not
 * rendered, unchanged files are not rewritten, withdrawn merchants' files are deleted.
 *
 *   npm run refresh [-- --full] [--json] [--quiet]
 */
import { parseArgs } from "node:util";
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

const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
    workers: { type: "string" },
  },
});

const config = loadConfig();
const settings = loadPublishSettings(config);
const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
const signing = publishSigning(config);
const workers = values.workers ? Number(values.workers) : (settings.refreshWorkers ?? undefined);
const showProgress = !values.quiet && !values.json && process.stderr.isTTY === true;

let lastDraw = 0;
const startedAt = performance.now();
function drawProgress(done: number, total: number, force = false): void {
  const nowMs = performance.now();
  if (!force && nowMs - lastDraw < 100) return;
  lastDraw = nowMs;
  const width = 30;
  const ratio = total > 0 ? done / total : 1;
  const filled = Math.round(ratio * width);
  const rate = done / Math.max(0.001, (nowMs - startedAt) / 1000);
  process.stderr.write(
    `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total} merchants  ${Math.round(rate)}/s `,
  );
}

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
    ...(showProgress ? { onProgress: ({ done, total }) => drawProgress(done, total, done === total) } : {}),
  });
} finally {
  db.$client.close();
}
if (showProgress) process.stderr.write("\n");

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
