import type Database from "better-sqlite3";
import { type OpenOptions, openConnection } from "./connection.ts";
import { type BetterSQLite3Database, drizzle } from "./drizzle.ts";
import * as schema from "./schema.ts";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Opens DATA_DIR's database in WAL mode, applies the committed migrations, with drizzle over it. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  return drizzle(openConnection(file, options), { schema }) as Db;
}
