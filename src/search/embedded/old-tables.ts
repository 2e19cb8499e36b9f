import type { Db } from "../../store/db.ts";
import { writeLock } from "../../store/write-lock.ts";
import { STORE_FILE_TABLES } from "./tables.ts";

/*
 * The embedded index lived in the SQLite store's own file until INDEX_FORMAT embedded-14; it now
 * lives in DATA_DIR/search-index/ (index.ts). Its old tables are dropped by the code that opens
 * the index, not by a migration: at national size they hold gigabytes, and one DROP frees every
 * page of them in one transaction (zeroed: the store's connections run with secure_delete), the
 * store's write lock held for as long. So their rows go a round at a time, each round a short
 * transaction taken when the lock is free (write-lock.ts whenFree), and the tables, empty, are
 * dropped last. The virtual tables' rows are deleted from their shadow tables (SQLite allows it
 * outside defensive mode, for the round only): deleting through FTS5 writes tombstones and frees
 * nothing. Killed midway, the next open goes on.
 */

/** The old tables that hold the bulk, emptied before the drops: their own rows, or their shadow tables'. */
const EMPTIED_FIRST: readonly { table: string; key: string }[] = [
  { table: "search_merchant_fts_data", key: "rowid" },
  { table: "search_merchant_fts_docsize", key: "rowid" },
  { table: "search_geo_rowid", key: "rowid" },
  { table: "search_geo_node", key: "rowid" },
  { table: "search_geo_parent", key: "rowid" },
  { table: "search_details", key: "rowid" },
  { table: "search_merchants", key: "rowid" },
  { table: "search_sirets", key: "siret" },
];

/** Rows a round deletes: a few MB of pages at most (an FTS data row is up to a page). */
const ROWS_PER_ROUND = 500;

type Sqlite = Db["$client"];

/** Drops the old layout's tables from the store's file, a round at a time; resolves once none is left. */
export async function dropStoreFileTables(sqlite: Sqlite, onRound?: () => void): Promise<void> {
  const exists = (table: string) =>
    sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  if (!STORE_FILE_TABLES.some(exists)) return;
  const lock = writeLock(sqlite);
  for (const { table, key } of EMPTIED_FIRST) {
    for (;;) {
      const deleted = await lock.whenFree(() => {
        if (!exists(table)) return 0;
        sqlite.unsafeMode(true);
        try {
          return sqlite
            .prepare(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} LIMIT ${ROWS_PER_ROUND})`)
            .run().changes;
        } finally {
          sqlite.unsafeMode(false);
        }
      });
      onRound?.();
      if (deleted === 0) break;
      // Requests (and other writers) between two rounds.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  // fts5vocab (search_terms) first: it reads the FTS table.
  for (const table of STORE_FILE_TABLES) {
    await lock.whenFree(() => sqlite.exec(`DROP TABLE IF EXISTS ${table}`));
    onRound?.();
  }
}
