/**
 * What an operator command says when PostgreSQL (DATABASE_URL) does not answer or refuses the
 * connection: one line naming what the driver said, never a stack trace and never the URL (it
 * holds the password). The one home of that wording for `npm start`'s preparation
 * (jobs/prepare-postgres.ts), `npm run db` (jobs/db.ts) and every command opening its store
 * through jobs/job-store.ts.
 */
import { serviceErrorOf } from "../src/errors/service-error.ts";
import { isPoolTimeout, isStoreUnavailable } from "../src/store/postgres/pool.ts";
import { CommandError } from "./cli.ts";

/** The driver's error behind the pool's 503 STORE_UNAVAILABLE, else the failure as it is (a command's own errors). */
export function outageCause(failure: unknown): unknown {
  const service = serviceErrorOf(failure);
  return service?.code === "STORE_UNAVAILABLE" ? service.cause : failure;
}

/**
 * The driver's own error behind a failure: behind the pool's 503 STORE_UNAVAILABLE, and behind the
 * query builder's wrapper (drizzle's "Failed query" carries it as its cause); the failure itself
 * when it carries none.
 */
export function driverError(failure: unknown): unknown {
  let current = outageCause(failure);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (typeof (current as { code?: unknown }).code === "string") return current;
    current = current.cause;
  }
  return outageCause(failure);
}

/**
 * Whether a command's failure is PostgreSQL not answering, refusing the connection or lacking the
 * schema (a database never migrated), which `postgresRefusal` says in one line.
 */
export function isPostgresRefusal(failure: unknown): boolean {
  if (serviceErrorOf(failure)?.code === "STORE_UNAVAILABLE") return true;
  const error = driverError(failure);
  return isStoreUnavailable(error) || isConnectionRefusal(error);
}

/**
 * The one line for PostgreSQL not answering or refusing (`where`: how the server is named, e.g.
 * "PostgreSQL (DATABASE_URL)"), or null when the failure is something else.
 */
export function postgresRefusal(
  failure: unknown,
  where: string,
  connectTimeoutMs: number,
  suffix = "",
): CommandError | null {
  const error = driverError(failure);
  if (isPoolTimeout(error))
    return new CommandError(`cannot reach ${where}: no connection within ${connectTimeoutMs / 1000} s${suffix}`);
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && code === UNDEFINED_TABLE)
    return new CommandError(
      `${where}: ${error.message} (${code}): apply the migrations first, npm run db -- migrate${suffix}`,
    );
  if (error instanceof Error && typeof code === "string")
    // A system error (ECONNREFUSED, ENOTFOUND) or PostgreSQL's own (28P01 a wrong password, 3D000 no such database).
    return new CommandError(`${where}: ${error.message} (${code})${suffix}`);
  if (error instanceof Error && isStoreUnavailable(error))
    return new CommandError(`${where}: ${error.message}${suffix}`);
  // The pool's 503 without the driver's error behind it.
  if (serviceErrorOf(failure)?.code === "STORE_UNAVAILABLE")
    return new CommandError(`${where} does not answer${suffix}`);
  return null;
}

/** PostgreSQL's "relation does not exist": a database the migrations were never applied to. */
const UNDEFINED_TABLE = "42P01";

/**
 * PostgreSQL's refusals of a connection (a wrong password 28P01, no such role 28000, no such
 * database 3D000) and a schema missing (42P01).
 */
function isConnectionRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(28...|3D000|42P01)$/.test(code);
}
