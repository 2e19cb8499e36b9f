/**
 * drizzle-orm's PostgreSQL side, loaded through CommonJS for the reason src/store/drizzle.ts gives
 * (the ESM loader parses the package's 178 KB `exports` map again for every module). Apart from
 * the SQLite side so that a process on the embedded store never loads it.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const { and, asc, eq, getTableColumns, gt, is, isNull, sql } = load(
  "drizzle-orm",
) as typeof import("drizzle-orm");

export const {
  bigint,
  boolean,
  customType,
  doublePrecision,
  getTableConfig: getPgTableConfig,
  index,
  PgTable,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} = load("drizzle-orm/pg-core") as typeof import("drizzle-orm/pg-core");
/**
 * drizzle over a node-postgres pool, its module loaded on first use: it loads the `pg` driver,
 * which a process on the embedded store never needs (driver.ts).
 */
export const drizzlePostgres = ((...args: Parameters<typeof import("drizzle-orm/node-postgres").drizzle>) =>
  (load("drizzle-orm/node-postgres") as typeof import("drizzle-orm/node-postgres")).drizzle(
    ...args,
  )) as unknown as typeof import("drizzle-orm/node-postgres").drizzle;
export type { NodePgDatabase } from "drizzle-orm/node-postgres";

/** drizzle's SQLite query builder over a callback that runs its SQL (store-db.ts runs it on PostgreSQL). */
export const { drizzle: drizzleSqliteProxy } = load(
  "drizzle-orm/sqlite-proxy",
) as typeof import("drizzle-orm/sqlite-proxy");
