/**
 * The SIRENE import at national scale (issue 34): INSEE's two stock files as published (zipped,
 * every column of their layouts), national-shaped, written by test/helpers/generated-stock.ts
 * (writeNationalStock: 38 % active rows, 4 % non-public, the national NAF mix of
 * test/fixtures/national-naf-mix.json with its sources, dates of last processing over 2008-2026,
 * companies of several establishments, rows in no particular order), at --rows establishment rows
 * (default 4,390,000: a tenth of the country's 43.9 million). Then, each in a process of its own:
 *
 *   1. the baseline: the same two files unzipped and split into fields, nothing else;
 *   2. `npm run import -- sirene --etablissements ... --unites-legales ... --json` into an empty registry;
 *   3. the same again onto the registry it filled (nothing changes).
 *
 * Prints and writes (bench/results/national-latest.{md,json}) each run's wall time, rows/s, CPU
 * time, the peak RSS of its process tree (bench/child-measure.ts), the ratio to
 * the baseline, the projection for the country's 44 million rows, the longest a writer beside
 * the import waited for the write lock, and the machine's load average
 * before and after (the machine is shared: a figure means little without it). --keep keeps the
 * files and the registry (their folder is printed); --files DIR reuses the files of a kept run.
 *
 *   node bench/national.ts [--rows 4390000] [--keep] [--files DIR]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { jobArgv } from "../jobs/compile-cache.ts";
import { type NationalStock, writeNationalStock } from "../test/helpers/generated-stock.ts";
import { measureChild } from "./child-measure.ts";
import { machineLine, markdownTable, round, writeReport } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const COUNTRY_ROWS = 44_000_000;
const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "4390000" },
    keep: { type: "boolean", default: false },
    files: { type: "string" },
  },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1) throw new Error("--rows takes a number of rows");
const dir = values.files ?? mkdtempSync(path.join(os.tmpdir(), "abeille-national-bench-"));
const stockFile = path.join(dir, "stock.json");

interface Run {
  name: string;
  wallSeconds: number;
  /** The import's own time and the search index's catch-up after it, from the job's progress lines (null: not told). */
  importSeconds: number | null;
  searchIndexSeconds: number | null;
  cpuSeconds: number;
  rowsPerSecond: number;
  peakTreeRssMb: number;
  /** The longest a writer beside the import waited for the write lock (test/helpers/lock-probe.ts), ms; null: not probed. */
  longestLockWaitMs: number | null;
  report: Record<string, unknown> | null;
}

/** The stock of a kept run, or a new one written here. */
async function stock(): Promise<NationalStock> {
  if (values.files && existsSync(stockFile)) {
    const kept = JSON.parse(readFileSync(stockFile, "utf8")) as NationalStock;
    if (kept.rows !== rows) throw new Error(`${dir} holds ${kept.rows} rows, not ${rows}: give --rows ${kept.rows}`);
    return kept;
  }
  process.stdout.write(`writing ${rows} establishment rows and their companies into ${dir} ...\n`);
  const started = performance.now();
  const written = await writeNationalStock({
    dir,
    rows,
    onProgress: (done) => process.stdout.write(`  ${done} rows\n`),
  });
  writeFileSync(stockFile, JSON.stringify({ ...written, expectedSirets: null }));
  process.stdout.write(
    `written in ${round((performance.now() - started) / 1000, 1)} s: ${megabytes(written.establishments)} MB and ${megabytes(written.legalUnits)} MB zipped (${round(written.bytes.establishments / 1e6, 0)} MB and ${round(written.bytes.legalUnits / 1e6, 0)} MB of CSV), ${written.companies} companies\n`,
  );
  return written;
}

function megabytes(file: string): number {
  return round(statSync(file).size / 1e6, 1);
}

/** Runs a command as a child process (bench/child-measure.ts), reading its figures and its job's progress lines. */
async function measured(
  name: string,
  args: string[],
  env: Record<string, string>,
  probedDatabase: string | null = null,
): Promise<Run> {
  const figures = await measureChild(args, env, probedDatabase);
  if (figures.exitCode !== 0 && figures.exitCode !== 1) {
    throw new Error(`${name}: exited with ${figures.exitCode}\n${figures.stdout}`);
  }
  // The job's progress lines (stderr is a log here: a line every 10 s, and the last figures of each bar).
  const lastSeconds = (label: string) => {
    const lines = figures.stderr.split("\n").filter((line) => line.startsWith(`${label}: `));
    const seconds = /([\d.]+)s$/.exec(lines.at(-1) ?? "")?.[1];
    return seconds === undefined ? null : Number(seconds);
  };
  return {
    name,
    wallSeconds: figures.wallSeconds,
    importSeconds: lastSeconds("import sirene"),
    searchIndexSeconds: lastSeconds("search index"),
    cpuSeconds: figures.cpuSeconds,
    rowsPerSecond: Math.round(rows / figures.wallSeconds),
    peakTreeRssMb: figures.peakTreeRssMb,
    longestLockWaitMs: figures.longestLockWaitMs,
    report: JSON.parse(figures.stdout) as Record<string, unknown>,
  };
}

const loadBefore = os.loadavg();
const written = await stock();
const dataDir = path.join(dir, "data");
if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir);
const importArgs = (label: string) =>
  measured(
    label,
    jobArgv(
      "jobs/import.ts",
      "sirene",
      "--etablissements",
      written.establishments,
      "--unites-legales",
      written.legalUnits,
      "--json",
    ),
    { DATA_DIR: dataDir },
    path.join(dataDir, "abeille.db"),
  );

const runs: Run[] = [];
process.stdout.write("baseline: the files unzipped and split into fields ...\n");
runs.push(
  await measured(
    "baseline: unzip and split into fields",
    [
      "--import",
      path.join(root, "jobs/compile-cache.ts"),
      path.join(root, "bench/national-baseline.ts"),
      written.establishments,
      written.legalUnits,
    ],
    {},
  ),
);
process.stdout.write("import into an empty registry ...\n");
runs.push(await importArgs("import into an empty registry"));
process.stdout.write("the same stock again ...\n");
runs.push(await importArgs("the same stock again"));
const loadAfter = os.loadavg();
const baseline = runs[0] as Run;

const projection = (run: Run) => round((run.wallSeconds * COUNTRY_ROWS) / rows / 60, 1);
const outcome = (run: Run) =>
  run.report && "created" in run.report
    ? ["created", "updated", "archived", "closed", "confirmed", "unchanged", "rejected_count"]
        .map((key) => `${key.replace("_count", "")} ${run.report?.[key]}`)
        .join(", ")
    : run.report
      ? `${run.report.establishments} + ${run.report.legalUnits} records`
      : "";
const lines = runs.map((run) => [
  run.name,
  run.wallSeconds,
  run.importSeconds ?? "",
  run.searchIndexSeconds ?? "",
  run.cpuSeconds,
  run.rowsPerSecond,
  round(run.wallSeconds / baseline.wallSeconds, 1),
  run.peakTreeRssMb,
  run.longestLockWaitMs ?? "",
  projection(run),
  outcome(run),
]);
const created = Number(runs[1]?.report?.created ?? 0);
const load = (averages: number[]) => averages.map((value) => round(value, 1)).join(", ");
const report = [
  `# National import bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}. Load average before ${load(loadBefore)}, after ${load(loadAfter)}.`,
  `${rows} establishment rows (${megabytes(written.establishments)} MB zipped, ${round(written.bytes.establishments / 1e6, 0)} MB of CSV) and ${written.companies} companies (${megabytes(written.legalUnits)} MB zipped).`,
  "Targets (issue 34): 50,000 rows/s into an empty registry (44 million rows in under 15 minutes), the process tree under 500 MB, the same stock again at least twice as fast.",
  "rows/s and the projection are of the whole run (wall); the import's own time and the search index's build or catch-up after it are read from the job's progress lines (none under 10 s).",
  "",
  ...markdownTable(
    [
      "run",
      "wall s",
      "of which import s",
      "then search index s",
      "CPU s",
      "rows/s",
      "x baseline",
      "peak tree RSS MB",
      "longest lock wait ms",
      "44 M rows, min",
      "outcome",
    ],
    lines,
  ),
  "",
  `Rows: ${round((100 * written.mix.active) / rows, 1)} % active, ${round((100 * written.mix.nonPublic) / rows, 1)} % non-public, ${round((100 * written.mix.multiSite) / rows, 1)} % of them in companies of several establishments, ${round((100 * written.mix.withNaf2025) / rows, 1)} % with a NAF 2025 code; latest processing ${written.lastProcessed}.`,
  `Local commerce (active, public, of a covered trade): ${written.expected} rows; ${created} came in (${written.expected === 0 ? 0 : round((100 * created) / written.expected, 2)} %, goal 100 %).`,
  "",
].join("\n");
writeReport("national", report, { rows, runs, stock: { ...written, expectedSirets: null }, loadBefore, loadAfter });
if (values.keep || values.files) process.stdout.write(`kept in ${dir}\n`);
else rmSync(dir, { recursive: true, force: true });
