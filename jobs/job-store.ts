/**
 * The store of a one-shot operator command: PostgreSQL with DATABASE_URL (a small pool of its own,
 * no cache), else the SQLite file with the jobs' busy timeout (a server may hold the write lock).
 * Every command opens it here (`withJobStore`), and builds what else it needs over the one store
 * it opened (`registryPortsOf`): no command opens DATA_DIR's file by itself, so each one honours
 * DATABASE_URL.
 */
import type { Config } from "../src/config/config.ts";
import { startCheckpointThread } from "../src/store/checkpoint-worker.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import type { LeaderFence } from "../src/store/postgres/leader-fence.ts";
import { leaderTermOf } from "../src/store/postgres/leader-term.ts";
import { openPostgresStore, type PostgresPorts } from "../src/store/postgres/postgres-store.ts";
import { postgresRegistryPorts } from "../src/store/postgres/registry-ports.ts";
import { postgresStore } from "../src/store/postgres/store.ts";
import { type RegistryPorts, sqliteRegistryPorts } from "../src/store/registry-ports.ts";
import { sqliteStoreOf } from "../src/store/sqlite-store.ts";
import { isPostgresRefusal, postgresRefusal } from "./postgres-refusal.ts";

/** Connections a command opens at most. */
const JOB_POOL_MAX = 4;

export function openJobStore(config: Config, command: string, options: JobStoreOptions = {}): OpenedStore {
  if (config.postgres) {
    return openPostgresStore(
      { ...config.postgres, poolMax: Math.min(config.postgres.poolMax, JOB_POOL_MAX) },
      { applicationName: `abeille ${command}`, watchRevision: false },
    );
  }
  return sqliteStoreOf(
    openDatabase(config.databaseFile, {
      busyTimeoutMs: JOB_BUSY_TIMEOUT_MS,
      ...(options.bulkWrites ? { checkpoints: "bulk" as const } : {}),
    }),
  );
}

export interface JobStoreOptions {
  /** The command writes millions of rows (src/store/connection.ts: checkpoints "bulk"). */
  bulkWrites?: boolean;
}

/**
 * Runs a command's work over its store and closes the store after it, whatever happens. A
 * PostgreSQL that does not answer (or refuses the connection, or was never migrated) ends the
 * command with one line on stderr (jobs/postgres-refusal.ts), not a stack trace.
 */
export async function withJobStore<T>(
  config: Config,
  command: string,
  work: (store: OpenedStore) => Promise<T>,
  options: JobStoreOptions = {},
): Promise<T> {
  const store = openJobStore(config, command, options);
  // A bulk writer's checkpoints run on the process's other core (checkpoint-worker.ts).
  const checkpoints =
    options.bulkWrites && store.engine === "sqlite" ? startCheckpointThread(config.databaseFile) : null;
  try {
    return await work(store);
  } catch (error) {
    if (config.postgres && isPostgresRefusal(error)) {
      throw postgresRefusal(error, "PostgreSQL (DATABASE_URL)", config.postgres.poolTimeoutMs) ?? error;
    }
    throw error;
  } finally {
    await checkpoints?.stop();
    await store.close();
  }
}

/**
 * The registry's ports (writes, maintenance, the identity check's queue) over the store a command
 * opened. On PostgreSQL its writes go through the store's leader fence: plain transactions, unless
 * the command is a job the leader started (`followLeaderTerm`).
 */
export function registryPortsOf(store: OpenedStore): RegistryPorts {
  return store.engine === "sqlite"
    ? sqliteRegistryPorts(store.db)
    : postgresRegistryPorts(postgresStore(store.pool), store.leaderFence);
}

/**
 * A job the server's leader started (its term in the environment, jobs/background.ts: the
 * scheduled refresh, the daily imports): from now on its fenced writes commit only while that
 * server still leads (src/store/postgres/leader-fence.ts). A command run by hand has no term: its
 * writes are plain transactions. Answers the store's fence.
 */
export function followLeaderTerm(store: PostgresPorts): LeaderFence {
  const term = leaderTermOf(process.env);
  if (term) store.leaderFence.follow(() => term);
  return store.leaderFence;
}
