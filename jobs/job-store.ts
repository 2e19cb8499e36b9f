/**
 * The store of a one-shot operator command: PostgreSQL with DATABASE_URL (a small pool of its own,
 * no cache), else the SQLite file with the jobs' busy timeout (a server may hold the write lock).
 */
import type { Config } from "../src/config/config.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { openPostgresStore } from "../src/store/postgres/postgres-store.ts";
import { sqliteStoreOf } from "../src/store/sqlite-store.ts";

/** Connections a command opens at most. */
const JOB_POOL_MAX = 4;

export function openJobStore(config: Config, command: string): OpenedStore {
  if (config.postgres) {
    return openPostgresStore(
      { ...config.postgres, poolMax: Math.min(config.postgres.poolMax, JOB_POOL_MAX) },
      { applicationName: `abeille ${command}`, watchRevision: false },
    );
  }
  return sqliteStoreOf(openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS }));
}
