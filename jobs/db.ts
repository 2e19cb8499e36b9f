/**
 * Operator command for the store's database (docs/deployment.md, "From one machine to several").
 *
 *   npm run db -- copy [--to postgres://user:password@host:5432/abeille] [--batch-rows N]
 *   npm run db -- migrate
 *
 * copy: moves DATA_DIR's SQLite registry (every table of the schema: merchants and their data,
 * audit log, change feed, leads and messages, outbox, agents and their keys' hashes, claims,
 * sessions...) into the PostgreSQL database named by --to (default DATABASE_URL). The database is migrated first, then
 * must hold no registry: a database with rows is refused (drop and create it again to start over,
 * the audit log refuses deletes). The source is read from one SQLite read transaction (a server
 * may serve DATA_DIR meanwhile; what it writes after the copy starts is not copied), the target is
 * written in one PostgreSQL transaction: a copy that fails or is killed leaves the target as it
 * was (migrated, empty). The counts and the last ids of both sides are compared before the commit
 * and printed as a table. DATA_DIR's store is opened as every command opens it: a store left by
 * older code gets its pending SQLite migrations first, so the copy reads today's schema.
 *
 * migrate: applies DATABASE_URL's pending PostgreSQL migrations (one transaction, under the
 * migrators' advisory lock), as `npm start` does, and says which.
 *
 * Exit status:
 *   0  copied: the counts of both sides on stdout, equal; migrated: what was applied on stdout
 *   1  refused or failed, the target left as it was: it already holds a registry, the server or database cannot be reached or refuses the store, a row is refused or the counts differ (the table named on stderr)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { existsSync } from "node:fs";
import { databaseUrlProblem, loadConfig } from "../src/config/config.ts";
import { setLogLevel } from "../src/logging.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import {
  CopyMismatch,
  type CopyReport,
  CopyTableError,
  checkMatches,
  copySqliteToPostgres,
  type TableCheck,
  TargetNotEmpty,
} from "../src/store/postgres/copy.ts";
import { applyPostgresMigrations, DatabaseSetupError } from "../src/store/postgres/migrate.ts";
import { openPostgresPool } from "../src/store/postgres/pool.ts";
import {
  CommandError,
  EXIT_DONE,
  EXIT_FAILED,
  runCommand,
  USAGE_STATUS,
  UsageError,
  wholeNumberOption,
} from "./cli.ts";
import { outageCause, postgresRefusal } from "./postgres-refusal.ts";
import { count, progressBar } from "./progress.ts";
import { printable } from "./terminal.ts";

const COMMANDS = ["copy", "migrate"] as const;
/** How long the copy waits for the server to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

await runCommand(
  {
    name: "db",
    usage: [
      "npm run db -- copy [--to postgres://user:password@host:5432/database] [--batch-rows N]",
      "npm run db -- migrate",
    ],
    notes: [
      "--to defaults to DATABASE_URL. migrate: applies DATABASE_URL's pending migrations (npm start",
      "does it too) and says which.",
      "copy: moves DATA_DIR's SQLite registry into the PostgreSQL database --to names (migrated",
      "first; it must hold no registry), in one transaction, then compares the counts of both sides.",
      "A server may serve DATA_DIR meanwhile: the copy reads one snapshot. --batch-rows: rows sent in",
      "one statement (default 5000).",
    ],
    options: {
      to: { type: "string" },
      "batch-rows": { type: "string", default: "5000" },
    },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "copied: the counts of both sides on stdout, equal; migrated: what was applied on stdout"],
      [
        EXIT_FAILED,
        "refused or failed, the target left as it was: it already holds a registry, the server or database cannot be reached or refuses the store, a row is refused or the counts differ (the table named on stderr)",
      ],
      USAGE_STATUS,
    ],
  },
  async ({ positionals, values }) => {
    const [command, ...extra] = positionals;
    if (command === undefined) throw new UsageError(`no command: ${COMMANDS.join(", ")}`);
    if (!COMMANDS.includes(command as (typeof COMMANDS)[number]))
      throw new UsageError(`unknown command ${printable(command)}: ${COMMANDS.join(", ")}`);
    if (extra.length > 0) throw new UsageError(`${command} takes no argument, not ${printable(extra.join(" "))}`);
    const target = values.to ?? process.env.DATABASE_URL;
    if (command === "migrate" && values.to !== undefined) throw new UsageError("migrate takes DATABASE_URL, not --to");
    if (target === undefined || target === "")
      throw new UsageError(
        command === "copy"
          ? "copy needs --to postgres://user:password@host:port/database (or DATABASE_URL)"
          : "migrate needs DATABASE_URL=postgres://user:password@host:port/database",
      );
    // Never said back: the URL holds the password.
    const problem = databaseUrlProblem(target);
    if (problem) throw new UsageError(`${values.to === undefined ? "DATABASE_URL" : "--to"} ${problem}`);
    if (command === "migrate") {
      setLogLevel("warn");
      const applied = await migrate(target);
      process.stdout.write(
        applied.length === 0 ? "nothing to apply: the database is up to date\n" : `applied ${applied.join(", ")}\n`,
      );
      process.exitCode = EXIT_DONE;
      return;
    }
    const batchRows = wholeNumberOption("batch-rows", values["batch-rows"], 1, 100_000);
    const config = loadConfig();
    setLogLevel("warn");
    if (!existsSync(config.databaseFile))
      throw new CommandError(`DATA_DIR (${config.dataDir}) holds no registry: ${config.databaseFile} does not exist`);
    const report = await copy(config.databaseFile, target, batchRows);
    process.stdout.write(reportText(report));
    process.exitCode = EXIT_DONE;
  },
);

/** Where the URL points, without its password: what the messages say. */
function targetName(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname || parsed.searchParams.get("host") || "";
  return `${host}${parsed.port ? `:${parsed.port}` : ""}, database ${decodeURIComponent(parsed.pathname.slice(1))}`;
}

async function migrate(url: string): Promise<string[]> {
  const where = targetName(url);
  const pool = openPostgresPool({
    url,
    poolMax: 1,
    poolTimeoutMs: CONNECT_TIMEOUT_MS,
    applicationName: "abeille db migrate",
  });
  try {
    return await applyPostgresMigrations(pool).catch((error: unknown) => {
      throw refusal(error, where);
    });
  } finally {
    await pool.end();
  }
}

async function copy(databaseFile: string, url: string, batchRows: number): Promise<CopyReport> {
  const where = targetName(url);
  const pool = openPostgresPool({
    url,
    poolMax: 2,
    poolTimeoutMs: CONNECT_TIMEOUT_MS,
    applicationName: "abeille db copy",
  });
  const db = openDatabase(databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
  const tty = process.stderr.isTTY === true;
  const bar = progressBar({ label: "copy", unit: "rows" });
  try {
    try {
      await applyPostgresMigrations(pool);
    } catch (error) {
      throw refusal(error, where);
    }
    const report = await copySqliteToPostgres(db.$client, pool, {
      batchRows,
      // A log gets a line as each table starts, besides the bar's lines every 10 s.
      onTable: (table, rows) => {
        if (!tty) process.stderr.write(`copy: ${table} (${count(rows)} ${rows === 1 ? "row" : "rows"})\n`);
      },
      onRows: (done, total, table) => bar.update(done, total, table),
    }).catch((error: unknown) => {
      throw refusal(error, where);
    });
    bar.end(report.rows, report.rows);
    return report;
  } finally {
    db.$client.close();
    await pool.end();
  }
}

/** An error the operator can act on, said in words; anything else is a bug and keeps its stack. */
function refusal(failure: unknown, where: string): unknown {
  // The pool answers an outage as the API's 503; the operator reads what the driver said.
  const error = outageCause(failure);
  if (error instanceof TargetNotEmpty)
    return new CommandError(
      `refused, nothing written: ${where} already holds a registry (rows in ${error.tables.join(", ")}). ` +
        "Copy into a new database (CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'), " +
        "or drop this one and create it again: the audit log refuses deletes.",
    );
  if (error instanceof CopyMismatch)
    return new CommandError(
      `the copy was rolled back, nothing written: the counts differ\n${checkTable(error.checks)}`,
    );
  if (error instanceof CopyTableError) return new CommandError(`${error.message}; rolled back, nothing written`);
  if (error instanceof DatabaseSetupError) return new CommandError(`${where}: ${error.message}`);
  return postgresRefusal(error, `PostgreSQL at ${where}`, CONNECT_TIMEOUT_MS, "; nothing written") ?? error;
}

function checkTable(checks: TableCheck[]): string {
  const width = Math.max(5, ...checks.map((check) => check.table.length));
  const lines = [`${"table".padEnd(width)}  ${"sqlite".padStart(10)}  ${"postgres".padStart(10)}`];
  for (const check of checks) {
    let line = `${check.table.padEnd(width)}  ${count(check.sqlite).padStart(10)}  ${count(check.postgres).padStart(10)}`;
    if (check.lastId)
      line += `  last ${check.lastId.column} ${check.lastId.sqlite ?? "-"} / ${check.lastId.postgres ?? "-"}`;
    if (!checkMatches(check)) line += "  DIFFERS";
    lines.push(line);
  }
  return `${lines.join("\n")}\n`;
}

function reportText(report: CopyReport): string {
  const perSecond = report.seconds > 0 ? Math.round(report.rows / report.seconds) : report.rows;
  return (
    checkTable(report.tables) +
    `copied ${count(report.rows)} rows of ${report.tables.length} tables in ${report.seconds.toFixed(1)} s ` +
    `(${count(perSecond)} rows/s); the counts and last ids of both sides are equal\n`
  );
}
