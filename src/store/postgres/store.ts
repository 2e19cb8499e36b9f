/**
 * The store on PostgreSQL: the pool (pool.ts) and drizzle's query builder over the schema derived
 * from SQLite's (schema.ts), what each PostgreSQL repository is built from.
 */
import type pg from "pg";
import { drizzlePostgres, type NodePgDatabase } from "./drizzle.ts";
import * as schema from "./schema.ts";

export type PostgresDb = NodePgDatabase<typeof schema>;

export interface PostgresStore {
  pool: pg.Pool;
  db: PostgresDb;
}

export function postgresStore(pool: pg.Pool): PostgresStore {
  return { pool, db: drizzlePostgres({ client: pool, schema }) };
}
