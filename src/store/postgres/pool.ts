/**
 * The PostgreSQL connection pool (node-postgres, docs/decisions.md), opened from DATABASE_URL.
 * A caller never waits for a connection longer than `poolTimeoutMs`: a saturated pool or an
 * unreachable server rejects (isPoolTimeout), which a request turns into a 503 with Retry-After
 * instead of hanging.
 */
import pg from "pg";
import { ServiceError } from "../../errors/service-error.ts";
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

/** How long a caller is told to wait when the database does not answer (Retry-After). */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * SQLSTATE classes and codes that say the database, not the statement, is the problem: a
 * connection exception (08), the server shutting down or starting (57P01-57P03), too many
 * connections (53300), a statement cancelled by statement_timeout (57014).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;
/** Node's errors when the server cannot be reached or the connection dies under a query. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND"]);

/** Whether an error from the pool or a connection means "the database does not answer now". */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_STATES.test(code) || UNREACHABLE_CODES.has(code))) return true;
  return (
    isPoolTimeout(error) ||
    /Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout/i.test(
      error.message,
    )
  );
}

/** A database that does not answer becomes the catalog's 503 STORE_UNAVAILABLE (the driver's error as its cause); other errors pass. */
function unavailableAsServiceError(error: unknown): never {
  if (isStoreUnavailable(error)) {
    const unavailable = new ServiceError("STORE_UNAVAILABLE", undefined, {
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    });
    // What the driver said, for an operator's command and the logs (never in an API answer).
    unavailable.cause = error;
    throw unavailable;
  }
  throw error;
}

/**
 * Every query of the pool, and of the connections it lends, answers a database outage as 503
 * STORE_UNAVAILABLE with a Retry-After (docs/several-machines.md): requests are refused clearly
 * while PostgreSQL is gone, and served again, without a restart, once it is back.
 */
function refusingOutages(pool: pg.Pool, afterWrite: (() => void) | undefined): pg.Pool {
  const refusing = new WeakSet<pg.PoolClient>();
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown> | undefined;
  /** Tells `afterWrite` once a statement that may have written has finished (COMMIT included). */
  const watched = (args: unknown[], running: Promise<unknown>): Promise<unknown> => {
    if (!afterWrite || !mayWrite(args[0])) return running;
    return running.finally(afterWrite);
  };
  // The callback form answers through its callback: left as it is.
  (pool as { query: unknown }).query = (...args: unknown[]) =>
    typeof args.at(-1) === "function"
      ? query(...args)
      : watched(args, (query(...args) as Promise<unknown>).catch(unavailableAsServiceError));
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  // pg's own pool.query lends itself a connection through the callback form: left as it is.
  (pool as { connect: unknown }).connect = (...args: unknown[]) => {
    if (typeof args[0] === "function") return connect(...args);
    return (async () => {
      const client = (await (connect() as Promise<pg.PoolClient>).catch(unavailableAsServiceError)) as pg.PoolClient;
      if (!refusing.has(client)) {
        refusing.add(client);
        // A lent connection the server ends (a restart, a failover) emits an error besides failing
        // its query: without a listener the event would end the process.
        client.on("error", (error) => logger.warn("a PostgreSQL connection in use was lost", { error: error.message }));
        const clientQuery = client.query.bind(client) as (...queryArgs: unknown[]) => Promise<unknown> | undefined;
        // The callback form (pg's pool.query lends the same connections later) is left as it is.
        (client as { query: unknown }).query = (...queryArgs: unknown[]) =>
          typeof queryArgs.at(-1) === "function"
            ? clientQuery(...queryArgs)
            : watched(queryArgs, (clientQuery(...queryArgs) as Promise<unknown>).catch(unavailableAsServiceError));
      }
      return client;
    })();
  };
  return pool;
}

/** Whether a statement may write: anything but a plain SELECT (BEGIN and COMMIT included). */
function mayWrite(statement: unknown): boolean {
  const text = typeof statement === "string" ? statement : (statement as { text?: unknown } | null)?.text;
  return typeof text !== "string" || !/^\s*select\b/i.test(text);
}

/**
 * The pool of this process. `afterWrite` is told when a statement that may have written finished
 * (the revision watch then stops trusting what it kept: revision-watch.ts).
 */
export function openPostgresPool(settings: PostgresSettings, hooks: { afterWrite?: () => void } = {}): pg.Pool {
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
  return refusingOutages(pool, hooks.afterWrite);
}

/** The error a pool gives when no connection came within poolTimeoutMs. */
export function isPoolTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout exceeded when trying to connect/.test(error.message);
}
