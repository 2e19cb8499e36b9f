/**
 * `npm run db -- copy` at scale: a demo registry of --count merchants (seeded first, outside the
 * measured time; BENCH_SEED_CACHE reuses one, bench/lib.ts) copied into a throwaway PostgreSQL
 * (test/helpers/postgres.ts), as an operator runs it: a child process, start-up, migrations and
 * the check of the counts included. Prints the wall time, rows/s and the command's peak memory,
 * and writes bench/results/db-copy-latest.{md,json}.
 *
 * Beside it, in the same run and against the same server, the baseline: the same rows read from
 * the same SQLite file and written by a bare node-postgres loop of multi-row
 * `INSERT ... VALUES ($1, ...), (...)` statements (as many rows a statement as PostgreSQL's 65,535
 * parameters allow, at most 5,000), in one transaction with the same triggers off: the usual way
 * to move rows with `pg` alone, with no migrations, no progress and no checks. An
 * `INSERT ... SELECT` between the engines does not exist, and pg_dump reads PostgreSQL, not SQLite.
 * The SQLite read alone is timed too: the floor under both.
 *
 *   node bench/db-copy.ts [--count 100000] [--batch-rows 5000] [--keep]
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { jobArgv } from "../jobs/compile-cache.ts";
import { copyPlan, quoteIdentifier } from "../src/store/postgres/copy.ts";
import { startTestPostgres } from "../test/helpers/postgres.ts";
import { machineLine, markdownTable, round, rssMegabytes, seedBenchRegistry, writeReport } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    "batch-rows": { type: "string", default: "5000" },
    keep: { type: "boolean", default: false },
  },
});
const count = Number(values.count);
const { dataDir } = seedBenchRegistry(count, "db-copy");
const databaseFile = path.join(dataDir, "abeille.db");
const plan = copyPlan();
const postgres = await startTestPostgres();

interface Figure {
  name: string;
  rows: number;
  seconds: number;
  peakMegabytes: number | null;
}

/** The command, as `npm run db -- copy` runs it; its peak RSS read from /proc while it runs. */
async function command(url: string): Promise<Figure & { stdout: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    jobArgv("jobs/db.ts", "copy", "--to", url, "--batch-rows", values["batch-rows"]),
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let peak = 0;
  const sample = setInterval(() => {
    try {
      if (child.pid) peak = Math.max(peak, rssMegabytes(child.pid).peak);
    } catch {
      // Gone between two samples.
    }
  }, 50);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearInterval(sample);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`db copy exited with ${code}: ${stderr}`);
  const rows = Number(/^copied ([\d,]+) rows/m.exec(stdout)?.[1]?.replaceAll(",", "") ?? Number.NaN);
  return {
    name: "npm run db -- copy (child process, migrations and checks included)",
    rows,
    seconds,
    peakMegabytes: peak,
    stdout,
  };
}

/** The SQLite value as PostgreSQL takes it: integers 0/1 of a boolean column become booleans. */
const convert = (type: string, value: unknown) => (type === "boolean" && value !== null ? value !== 0 : value);

/** The baseline: bare multi-row INSERT ... VALUES statements in one transaction, triggers off. */
async function bareInserts(url: string): Promise<Figure> {
  const started = performance.now();
  const sqlite = new Database(databaseFile, { readonly: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let rows = 0;
  try {
    sqlite.exec("BEGIN");
    await client.query("BEGIN");
    for (const table of plan) await client.query(`ALTER TABLE ${quoteIdentifier(table.name)} DISABLE TRIGGER USER`);
    await client.query(`DELETE FROM store_revision WHERE revision = 0`);
    for (const table of plan) {
      const width = table.columns.length;
      const perStatement = Math.min(5_000, Math.floor(65_535 / width));
      const names = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
      const flush = async (batch: unknown[], size: number) => {
        const tuples = Array.from(
          { length: size },
          (_, row) => `(${table.columns.map((_, column) => `$${row * width + column + 1}`).join(", ")})`,
        );
        await client.query(`INSERT INTO ${quoteIdentifier(table.name)} (${names}) VALUES ${tuples.join(", ")}`, batch);
      };
      let batch: unknown[] = [];
      let size = 0;
      for (const row of sqlite
        .prepare(`SELECT ${names} FROM ${quoteIdentifier(table.name)}`)
        .raw(true)
        .iterate() as IterableIterator<unknown[]>) {
        for (let column = 0; column < width; column += 1)
          batch.push(convert(table.columns[column]?.type ?? "text", row[column]));
        size += 1;
        if (size === perStatement) {
          await flush(batch, size);
          rows += size;
          batch = [];
          size = 0;
        }
      }
      if (size > 0) {
        await flush(batch, size);
        rows += size;
      }
    }
    for (const table of plan) await client.query(`ALTER TABLE ${quoteIdentifier(table.name)} ENABLE TRIGGER USER`);
    await client.query("COMMIT");
  } finally {
    sqlite.close();
    await client.end();
  }
  return {
    name: "baseline: bare pg multi-row INSERT ... VALUES loop (same rows, one transaction)",
    rows,
    seconds: (performance.now() - started) / 1000,
    peakMegabytes: null,
  };
}

/** The floor: every row of the same tables read from SQLite, nothing written. */
function sqliteRead(): Figure {
  const started = performance.now();
  const sqlite = new Database(databaseFile, { readonly: true });
  let rows = 0;
  try {
    sqlite.exec("BEGIN");
    for (const table of plan) {
      const names = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
      for (const _row of sqlite
        .prepare(`SELECT ${names} FROM ${quoteIdentifier(table.name)}`)
        .raw(true)
        .iterate())
        rows += 1;
    }
  } finally {
    sqlite.close();
  }
  return {
    name: "SQLite read alone (the floor)",
    rows,
    seconds: (performance.now() - started) / 1000,
    peakMegabytes: null,
  };
}

try {
  const copied = await command(await postgres.createEmptyDatabase("bench_copy"));
  process.stdout.write(copied.stdout);
  const baseline = await bareInserts(await postgres.createDatabase("bench_baseline"));
  const read = sqliteRead();
  const figures = [copied, baseline, read];
  for (const figure of figures)
    process.stdout.write(
      `${figure.name}: ${figure.rows} rows in ${round(figure.seconds, 2)} s (${Math.round(figure.rows / figure.seconds)} rows/s)` +
        `${figure.peakMegabytes === null ? "" : `, peak RSS ${figure.peakMegabytes} MB`}\n`,
    );
  const report = [
    `# db copy bench ${new Date().toISOString()}`,
    "",
    `${machineLine()}, ${count} merchants (${copied.rows} rows in ${plan.length} tables), PostgreSQL 15 on loopback (fsync off, test/helpers/postgres.ts), batches of ${values["batch-rows"]} rows.`,
    "",
    ...markdownTable(
      ["run", "rows", "seconds", "rows/s", "peak RSS MB"],
      figures.map((figure) => [
        figure.name,
        figure.rows,
        round(figure.seconds, 2),
        Math.round(figure.rows / figure.seconds),
        figure.peakMegabytes ?? "-",
      ]),
    ),
    "",
    `The command takes ${round(copied.seconds / baseline.seconds, 2)} times the baseline's time (the same rows ` +
      "written by a bare multi-row INSERT loop in one transaction, in process: no start-up, migrations, progress or checks).",
    "",
  ].join("\n");
  writeReport("db-copy", report, { count, batchRows: Number(values["batch-rows"]), figures });
} finally {
  await postgres.stop();
  if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
}
