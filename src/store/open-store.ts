/**
 * The store the configuration names: PostgreSQL with DATABASE_URL, else the embedded SQLite file.
 */
import type { Config } from "../config/config.ts";
import { openPostgresStore, type PostgresPorts } from "./postgres/postgres-store.ts";
import { openSqliteStore, type SqliteStore } from "./sqlite-store.ts";

export type OpenedStore = SqliteStore | PostgresPorts;

export function openStore(
  config: Pick<Config, "databaseFile" | "walCheckpoints" | "postgres">,
  options: { applicationName?: string } = {},
): OpenedStore {
  return config.postgres ? openPostgresStore(config.postgres, options) : openSqliteStore(config);
}
