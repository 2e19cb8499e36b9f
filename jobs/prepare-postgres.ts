/**
 * `npm start`'s preparation of a PostgreSQL store (DATABASE_URL), before any server process opens
 * it: the migrations (one transaction under an advisory lock: an instance starting beside another
 * waits, then finds them applied), and the check of the files every machine holds alike
 * (jobs/shared-files.ts). Runs in the child process jobs/seed.ts --if-empty, as on SQLite.
 */
import type { Config } from "../src/config/config.ts";
import { isServiceError } from "../src/errors/service-error.ts";
import { recordDeploymentFiles } from "../src/store/postgres/deployment-files.ts";
import { applyPostgresMigrations, DatabaseSetupError } from "../src/store/postgres/migrate.ts";
import { isPoolTimeout, openPostgresPool } from "../src/store/postgres/pool.ts";
import { CommandError } from "./cli.ts";
import { checkSharedFiles, SharedFilesError } from "./shared-files.ts";

/** How long the preparation waits for PostgreSQL to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

export async function preparePostgresStore(config: Config & { postgres: NonNullable<Config["postgres"]> }): Promise<{
  migrationsApplied: string[];
}> {
  const pool = openPostgresPool({
    ...config.postgres,
    poolMax: 2,
    poolTimeoutMs: Math.max(config.postgres.poolTimeoutMs, CONNECT_TIMEOUT_MS),
    applicationName: "abeille start",
  });
  try {
    const migrationsApplied = await applyPostgresMigrations(pool);
    await checkSharedFiles((names, decide, by) => recordDeploymentFiles(pool, names, decide, by), config);
    return { migrationsApplied };
  } catch (failure) {
    throw startRefusal(failure);
  } finally {
    await pool.end();
  }
}

/** What the operator reads (one line, never the URL: it holds the password). */
function startRefusal(failure: unknown): unknown {
  const error = isServiceError(failure) && failure.code === "STORE_UNAVAILABLE" ? failure.cause : failure;
  if (error instanceof SharedFilesError || error instanceof DatabaseSetupError) return new CommandError(error.message);
  if (isPoolTimeout(error))
    return new CommandError(
      `cannot reach PostgreSQL (DATABASE_URL): no connection within ${CONNECT_TIMEOUT_MS / 1000} s`,
    );
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === "string")
    return new CommandError(`PostgreSQL (DATABASE_URL): ${error.message} (${code})`);
  return error;
}
