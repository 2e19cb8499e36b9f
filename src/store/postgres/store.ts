/**
 * The store on PostgreSQL: the pool (pool.ts); the one query builder of the repositories shared
 * with SQLite (storeDb, src/store/store-db.ts); and drizzle's pg query builder over the tables
 * derived from SQLite's (schema.ts), for the PostgreSQL-only repositories not yet shared.
 */
import type pg from "pg";
import type { StoreDb } from "../store-db.ts";
import { drizzlePostgres, type NodePgDatabase } from "./drizzle.ts";
import * as schema from "./schema.ts";
import { postgresStoreDb } from "./store-db.ts";

export type PostgresDb = NodePgDatabase<typeof schema>;

export interface PostgresStore {
  pool: pg.Pool;
  db: PostgresDb;
  storeDb: StoreDb;
}

export function postgresStore(pool: pg.Pool): PostgresStore {
  return { pool, db: drizzlePostgres({ client: pool, schema }), storeDb: postgresStoreDb(pool) };
}
