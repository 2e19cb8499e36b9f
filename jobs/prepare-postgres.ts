/**
 * `npm start`'s preparation of a PostgreSQL store (DATABASE_URL), before any server process opens
 * it: the migrations (one transaction under an advisory lock: an instance starting beside another
 * waits, then finds them applied), and the check of the files every machine holds alike
 * (jobs/shared-files.ts), then the demo seed when the registry is empty (DEMO_SEED_COUNT), under
 * an advisory lock: an instance starting beside the seeding one waits, then finds the registry
 * and seeds nothing. Runs in the child process jobs/seed.ts --if-empty, as on SQLite.
 */
import type { Config } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { startOfToday } from "../src/seed/demo-day.ts";
import { createDeploymentFileStore } from "../src/store/deployment-files.ts";
import { createPostgresMerchantRegistryRepository } from "../src/store/postgres/merchant-registry-repository.ts";
import { applyPostgresMigrations, DatabaseSetupError } from "../src/store/postgres/migrate.ts";
import { openPostgresPool } from "../src/store/postgres/pool.ts";
import { createPostgresRegistryMaintenance } from "../src/store/postgres/registry-maintenance.ts";
import { postgresStore } from "../src/store/postgres/store.ts";
import { CommandError } from "./cli.ts";
import { outageCause, postgresRefusal } from "./postgres-refusal.ts";
import { checkSharedFiles, SharedFilesError } from "./shared-files.ts";

/** How long the preparation waits for PostgreSQL to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

export async function preparePostgresStore(config: Config & { postgres: NonNullable<Config["postgres"]> }): Promise<{
  migrationsApplied: string[];
  seeded: boolean;
}> {
  const pool = openPostgresPool({
    ...config.postgres,
    // One connection holds the seeding lock while the seed writes through the others.
    poolMax: 4,
    poolTimeoutMs: Math.max(config.postgres.poolTimeoutMs, CONNECT_TIMEOUT_MS),
    applicationName: "abeille start",
  });
  try {
    const migrationsApplied = await applyPostgresMigrations(pool);
    await checkSharedFiles(createDeploymentFileStore(postgresStore(pool).storeDb), config);
    const seeded = config.demoSeedCount > 0 ? await seedOnce(pool, config) : false;
    return { migrationsApplied, seeded };
  } catch (failure) {
    throw startRefusal(failure);
  } finally {
    await pool.end();
  }
}

/** What the operator reads (one line, never the URL: it holds the password). */
function startRefusal(failure: unknown): unknown {
  const error = outageCause(failure);
  if (error instanceof SharedFilesError || error instanceof DatabaseSetupError) return new CommandError(error.message);
  return postgresRefusal(failure, "PostgreSQL (DATABASE_URL)", CONNECT_TIMEOUT_MS) ?? error;
}

/** The lock of the start's demo seed ("ABSEED" in ASCII). */
const SEED_LOCK_KEY = 0x4142_5345_4544;

/** Seeds the demo through the imports when the registry is empty; true when this instance did. */
async function seedOnce(pool: ReturnType<typeof openPostgresPool>, config: Config): Promise<boolean> {
  const lock = await pool.connect();
  try {
    await lock.query("SELECT pg_advisory_lock($1)", [SEED_LOCK_KEY]);
    const maintenance = createPostgresRegistryMaintenance(pool);
    if (!(await maintenance.isEmpty())) return false;
    const { seedDemoRegistryInto } = await import("../src/seed/seed-demo.ts");
    const started = performance.now();
    logger.info("seeding demo registry", { count: config.demoSeedCount, seed: config.demoSeed, store: "postgres" });
    const summary = await seedDemoRegistryInto(
      { registry: createPostgresMerchantRegistryRepository(postgresStore(pool)), maintenance, sqlite: null },
      { count: config.demoSeedCount, seed: config.demoSeed, now: startOfToday(), dataDir: config.dataDir },
    );
    logger.info("demo registry seeded", {
      merchants: summary.merchants,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    });
    return true;
  } finally {
    await lock.query("SELECT pg_advisory_unlock($1)", [SEED_LOCK_KEY]).catch(() => undefined);
    lock.release();
  }
}
