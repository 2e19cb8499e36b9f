/**
 * drizzle-orm, loaded through CommonJS. Its package.json holds a 178 KB `exports` map, and Node's
 * ESM loader parses it again for every one of the package's modules it loads: importing
 * `drizzle-orm/better-sqlite3` as ESM allocated about 150 MB and took 0.8 s, which each server
 * process kept as resident memory; `require` takes 6 MB and 0.1 s (docs/performance.md).
 * Same package, same API; every store module imports drizzle from here.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gt,
  gte,
  inArray,
  is,
  isNotNull,
  isNull,
  like,
  lt,
  lte,
  min,
  ne,
  notExists,
  or,
  sql,
} = load("drizzle-orm") as typeof import("drizzle-orm");
export const { getTableConfig, index, integer, primaryKey, real, SQLiteTable, sqliteTable, text, uniqueIndex } = load(
  "drizzle-orm/sqlite-core",
) as typeof import("drizzle-orm/sqlite-core");
export const { drizzle } = load("drizzle-orm/better-sqlite3") as typeof import("drizzle-orm/better-sqlite3");
export type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
