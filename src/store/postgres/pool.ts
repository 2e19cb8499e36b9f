/**
 * The PostgreSQL connection pool (node-postgres, docs/decisions.md), opened from DATABASE_URL.
 * A caller never waits for a connection longer than `poolTimeoutMs`: a saturated pool or an
 * unreachable server rejects (isPoolTimeout), which a request turns into a 503 with Retry-After
 * instead of hanging.
 */
import type pg from "pg";
import { ServiceError } from "../../errors/service-error.ts";
import { logger } from "../../logging.ts";
import { postgresDriver } from "./driver.ts";

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

function int8AsNumber(driver: typeof pg) {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === driver.types.builtins.INT8 && format !== "binary"
        ? parseInt8
        : driver.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
  };
}

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
  /** Lent connections whose open transaction ran a statement that may move the revision. */
  const moving = new WeakSet<pg.PoolClient>();
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown> | undefined;
  /**
   * Tells `afterWrite` once a statement that may have moved the store revision has finished, and
   * once the transaction it ran in (on `client`) commits: another request of this process may read
   * between the two.
   */
  const watched = (args: unknown[], running: Promise<unknown>, client?: pg.PoolClient): Promise<unknown> => {
    if (!afterWrite) return running;
    const text = statementText(args[0]);
    const moves = mayMoveRevision(text);
    const ends = client !== undefined && moving.has(client) && text !== undefined && ENDS_TRANSACTION.test(text);
    if (moves && client) moving.add(client);
    if (ends && client) moving.delete(client);
    return moves || ends ? running.finally(afterWrite) : running;
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
            : watched(
                queryArgs,
                (clientQuery(...queryArgs) as Promise<unknown>).catch(unavailableAsServiceError),
                client,
              );
      }
      // A connection given back inside a transaction that moved the revision (an error) is rolled
      // back by the pool: nothing to tell; what is marked goes with the loan.
      moving.delete(client);
      return client;
    })();
  };
  return pool;
}

/**
 * The tables whose writes move the store revision: those migration 0001's triggers touch the
 * merchant for, and the revision's own row. A contract test compares it with the catalog's
 * triggers (revision-watch tests), so a new trigger cannot be missed here.
 */
export const REVISIONED_TABLES = [
  "merchants",
  "signals",
  "products",
  "territorial_proofs",
  "qa_clusters",
  "qa_nodes",
  "store_revision",
] as const;
const NAMES_A_REVISIONED_TABLE = new RegExp(`\\b(${REVISIONED_TABLES.join("|")})\\b`, "i");
/** COMMIT and its synonyms (ROLLBACK TO a savepoint does not end the transaction). */
const ENDS_TRANSACTION = /^\s*(commit|end)\b/i;

function statementText(statement: unknown): string | undefined {
  const text = typeof statement === "string" ? statement : (statement as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : undefined;
}

/**
 * Whether a statement may move the store revision, erring towards yes: one that names a
 * revisioned table and is not a plain SELECT, or one that may do anything (CALL, DO, a statement
 * whose text is not known). A lead, an outbox row or a rate limit names none, so writing them
 * leaves the kept revision trusted (revision-watch.ts).
 */
function mayMoveRevision(text: string | undefined): boolean {
  if (text === undefined || /^\s*(call|do)\b/i.test(text)) return true;
  return !/^\s*select\b/i.test(text) && NAMES_A_REVISIONED_TABLE.test(text);
}

/**
 * The pool of this process. `afterWrite` is told when a statement that may have moved the store
 * revision finished, and when its transaction committed (the revision watch then stops trusting
 * what it kept: revision-watch.ts).
 */
export function openPostgresPool(settings: PostgresSettings, hooks: { afterWrite?: () => void } = {}): pg.Pool {
  const driver = postgresDriver();
  const pool = new driver.Pool({
    connectionString: settings.url,
    max: settings.poolMax,
    // Covers both the wait for a free connection when all are busy and the opening of a new one.
    connectionTimeoutMillis: settings.poolTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: settings.applicationName ?? "abeille",
    ...(settings.statementTimeoutMs === undefined ? {} : { statement_timeout: settings.statementTimeoutMs }),
    types: int8AsNumber(driver),
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
