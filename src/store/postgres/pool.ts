/**
 * The PostgreSQL connection pool (node-postgres, docs/decisions.md), opened from DATABASE_URL.
 * A caller never waits for a connection longer than `poolTimeoutMs`: a saturated pool or an
 * unreachable server rejects (isPoolTimeout), which a request turns into a 503 with Retry-After
 * instead of hanging.
 */
import pg from "pg";
import { logger } from "../../logging.ts";

export interface PostgresSettings {
  url: string;
  /** Connections this process opens at most. */
  poolMax: number;
  /** How long a query waits for a free connection (or a new one to open) before it fails. */
  poolTimeoutMs: number;
  /** PostgreSQL's statement_timeout for the pool's sessions; unset: the server's (none by default). */
  statementTimeoutMs?: number;
  /** application_name, as pg_stat_activity shows it. */
  applicationName?: string;
}

/**
 * bigint (int8) read as a JS number, as SQLite's integers are: the schema's integers are bigint
 * (derive-schema.ts), and count(*) is one. Every value the store keeps fits in 2^53 (times in
 * milliseconds, revisions, counts); one that did not would be read wrong, so it fails instead.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} is past Number.MAX_SAFE_INTEGER`);
  return value;
}

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 && format !== "binary"
      ? parseInt8
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

export function openPostgresPool(settings: PostgresSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.poolMax,
    // Covers both the wait for a free connection when all are busy and the opening of a new one.
    connectionTimeoutMillis: settings.poolTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: settings.applicationName ?? "abeille",
    ...(settings.statementTimeoutMs === undefined ? {} : { statement_timeout: settings.statementTimeoutMs }),
    types,
  });
  // An idle connection the server closed (a restart, a failover) is dropped from the pool and the
  // next query opens a new one; without a listener the error would end the process.
  pool.on("error", (error) => logger.warn("an idle PostgreSQL connection was lost", { error: error.message }));
  return pool;
}

/** The error a pool gives when no connection came within poolTimeoutMs. */
export function isPoolTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout exceeded when trying to connect/.test(error.message);
}
