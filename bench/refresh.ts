/**
 * The refresh job at scale: a full refresh of N merchants into an empty publish folder, then an
 * incremental refresh after --changes published merchants changed, one with no change, a full one
 * over the documents in place (what a deployment runs after a change of code) and the daily one
 * that re-signs every snapshot manifest, each run as `npm run refresh` runs it (a child process:
 * start-up included), with its peak RSS (GNU time) and the publish folder after it (bytes on disk
 * counted in file-system blocks, files, folders). After the full run the publication is written
 * out as files by `npm run export-publication` (timed); the same run's baseline: those files of
 * 20,000 merchants written again by bare node:fs (bench/bare-writes.ts). Writes
 * bench/results/refresh-latest.{md,json}.
 *
 *   node bench/refresh.ts [--count 100000] [--store /path/to/seeded/DATA_DIR] [--changes 1000] [--workers N] [--keep]
 *
 * Without --store a registry of --count merchants is seeded first (npm run seed) in a temporary
 * DATA_DIR (about 5 minutes for 100,000 on two cores). With --store, its publish folder is
 * replaced; a registry of the national stock's shape: `npm run bench:national -- --rows N --keep`
 * (its DATA_DIR is the kept folder's `data`; `npm run keys -- list` there makes its signing key). */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { jobArgv } from "../jobs/compile-cache.ts";
import { openDatabase } from "../src/store/db.ts";
import { merchantFilesOf, writeBare } from "./bare-writes.ts";
import { machineLine, round, writeReport } from "./lib.ts";
import { diskUseOf, type RefreshRun as Run, refreshRun } from "./refresh-runs.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    store: { type: "string" },
    changes: { type: "string", default: "1000" },
    workers: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const count = Number(values.count);
/** Merchants whose files the baseline writes again (about 80 KB each). */
const BASELINE_MERCHANTS = 20_000;
const changes = Number(values.changes);
const dataDir = values.store
  ? path.resolve(values.store)
  : mkdtempSync(path.join(os.tmpdir(), "abeille-refresh-bench-"));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", REFRESH_CRON: "off" };

if (!values.store) {
  process.stdout.write(`seeding ${count} merchants into ${dataDir} ...\n`);
  const started = performance.now();
  execFileSync(process.execPath, ["jobs/seed.ts", "--count", String(count)], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.stdout.write(`seeded in ${round((performance.now() - started) / 1000, 1)} s\n`);
}
// The previous publish folder is moved aside and deleted after the runs: on this machine's ext4
// (no journal), creating files within 30 s of mass deletions costs up to ten times as much (the
// allocator skips recently freed inodes), so deleting it first would measure the bench's own
// clean-up, not the refresh.
const publishDir = path.join(dataDir, "publish");
const previousPublish = existsSync(publishDir) ? `${publishDir}.old-${process.pid}` : null;
if (previousPublish) renameSync(publishDir, previousPublish);

const refresh = (name: string, extraEnv: Record<string, string> = {}, extraArgs: string[] = []): Run =>
  refreshRun(name, { ...env, ...extraEnv }, { workers: values.workers, extraArgs });

const runs: Run[] = [];
runs.push(refresh("full"));

// The same run's baseline: the files of the full run's first merchants written again by bare
// node:fs (bench/bare-writes.ts), on as many threads as the job's workers. A sample, so that the
// copy does not double the publish folder's memory on tmpfs.
const threads = Number(values.workers ?? os.availableParallelism());
// The publication written out as files (`npm run export-publication`): timed, and the baseline's sample.
const exportDir = path.join(dataDir, `export-${process.pid}`);
const exportStarted = performance.now();
const exportRun = spawnSync(process.execPath, jobArgv("jobs/export-publication.ts", exportDir, "--json"), {
  cwd: root,
  env,
  encoding: "utf8",
});
if (exportRun.status !== 0) throw new Error(`export-publication failed: ${exportRun.stderr}`);
const exported = {
  wallSeconds: round((performance.now() - exportStarted) / 1000, 2),
  ...(JSON.parse(exportRun.stdout.trim()) as { documents: number; bytes: number }),
  disk: diskUseOf(exportDir),
};
process.stdout.write(
  `export-publication: ${exported.documents} documents in ${exported.wallSeconds} s, ${round(exported.disk.bytes / 1e6, 1)} MB on disk, ${exported.disk.files} files, ${exported.disk.folders} folders\n`,
);
const sample = merchantFilesOf(exportDir, BASELINE_MERCHANTS);
const bare = await writeBare(sample, path.join(dataDir, "bare-writes"), threads);
const fullRun = runs[0] as Run;
const baseline = {
  merchants: sample.length,
  files: sample.reduce((sum, merchant) => sum + merchant.files.length, 0),
  threads,
  wallSeconds: round(bare.wallSeconds, 2),
  cpuSeconds: round(bare.cpuSeconds, 2),
  microsecondsPerMerchant: Math.round((bare.wallSeconds * 1e6) / sample.length),
  fullRunMicrosecondsPerMerchant: Math.round((fullRun.wallSeconds * 1e6) / fullRun.summary.merchants),
};
process.stdout.write(
  `baseline (bare node:fs, the same files of ${baseline.merchants} merchants): ${baseline.wallSeconds} s wall, ` +
    `${baseline.microsecondsPerMerchant} µs a merchant against the full run's ${baseline.fullRunMicrosecondsPerMerchant}\n`,
);

// `changes` published merchants change, spread over the registry (a source update bumps updated_at, as every writer does).
const db = openDatabase(path.join(dataDir, "abeille.db"));
const published = db.$client
  .prepare("SELECT ab_id FROM merchants WHERE status IN ('ACTIVE','PROBATION','PAUSED') ORDER BY ab_id")
  .pluck()
  .all() as string[];
const step = Math.max(1, Math.floor(published.length / changes));
const touched = published.filter((_abId, index) => index % step === 0).slice(0, changes);
const touch = db.$client.prepare("UPDATE merchants SET updated_at = ? WHERE ab_id = ?");
const stamp = new Date().toISOString();
db.$client.transaction(() => {
  for (const abId of touched) touch.run(stamp, abId);
})();
db.$client.close();
runs.push(refresh(`incremental (${touched.length} changed)`));
runs.push(refresh("no change"));
// What a deployment runs after a change of code: every merchant rendered again over the files in
// place, a file written only when its bytes changed, snapshots re-signed only when their card did.
runs.push(refresh("full over the files in place (--full)", {}, ["--full"]));
// The daily run: no content change, but every snapshot manifest is re-signed (a margin of a day makes them all due).
runs.push(refresh("daily (snapshots renewed)", { REFRESH_CRON: "17 3 * * *", SNAPSHOT_RENEW_MARGIN_SECONDS: "86400" }));

const header =
  "| run | merchants | wall s | ms a merchant | CPU s | CPU ms a merchant | peak RSS MB | rendered | skipped | documents written | documents unchanged | snapshots signed | on disk MB | KB a merchant | files | folders |";
const lines = runs.map((run) =>
  [
    run.name,
    run.summary.merchants,
    run.wallSeconds,
    round((run.wallSeconds * 1000) / Math.max(1, run.summary.merchants), 3),
    run.cpuSeconds,
    round((run.cpuSeconds * 1000) / Math.max(1, run.summary.merchants), 3),
    run.peakRssMb,
    run.summary.rendered,
    run.summary.skipped,
    run.summary.written,
    run.summary.unchanged,
    run.summary.snapshotsSigned,
    round(run.disk.bytes / 1e6, 1),
    round(run.disk.bytes / 1024 / Math.max(1, run.summary.merchants), 2),
    run.disk.files,
    run.disk.folders,
  ].join(" | "),
);
const report = [
  `# Refresh bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}, ${published.length} published of the registry's merchants, workers ${values.workers ?? "default"}, DATA_DIR on ${fileSystemOf(dataDir)}.`,
  "Each run is `npm run refresh` as a child process (start-up included), with its CPU time (every thread: on a shared machine the figure to compare, the wall time moving with the others' load); the full run starts from an empty publish folder.",
  "Targets (issue 35): a first publication at 0.6 ms a merchant or less, a run with nothing changed at 0.05 ms a merchant or less, a day's 10,000 changes under a minute, under 500 MB of RSS, 5 KB a merchant on disk and one file per ten merchants at most.",
  "",
  header,
  `|${"---|".repeat(16)}`,
  ...lines.map((line) => `| ${line} |`),
  "",
  `The publication written out as plain files by \`npm run export-publication\` after the full run: ${exported.documents} documents in ${exported.wallSeconds} s wall, ` +
    `${round(exported.disk.bytes / 1e6, 1)} MB on disk, ${exported.disk.files} files and ${exported.disk.folders} folders.`,
  "",
  `Baseline in the same run: bare node:fs writing the full run's files of its first ${baseline.merchants} merchants again ` +
    `(${baseline.files} files, the same sizes and layout, each written beside its target and renamed over it, ` +
    `${baseline.threads} threads, no rendering): ${baseline.wallSeconds} s wall (${baseline.cpuSeconds} s of CPU), ` +
    `${baseline.microsecondsPerMerchant} µs a merchant. The full run: ${baseline.fullRunMicrosecondsPerMerchant} µs a merchant, ` +
    `${round(baseline.fullRunMicrosecondsPerMerchant / baseline.microsecondsPerMerchant, 1)} times the files alone.`,
  "",
].join("\n");
writeReport("refresh", report, { runs, baseline, exported });
rmSync(exportDir, { recursive: true, force: true });
if (previousPublish) rmSync(previousPublish, { recursive: true, force: true });
if (!values.keep && !values.store) rmSync(dataDir, { recursive: true, force: true });

/** The file system type of a directory (tmpfs, ext4...), as `df` reads it. */
function fileSystemOf(directory: string): string {
  const result = spawnSync("df", ["--output=fstype", directory], { encoding: "utf8" });
  return result.stdout.trim().split("\n").pop() ?? "unknown";
}
