/**
 * Issue 35, item 2: the embedded index's old tables in the SQLite store's file (before
 * DATA_DIR/search-index/) are dropped by the code that opens the index, a round at a time
 * (src/search/embedded/old-tables.ts): between two rounds another process writes the store, and
 * once they are gone the store's file holds no search table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { dropStoreFileTables } from "../../src/search/embedded/old-tables.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/wait-for.ts";

/** The layout embedded-13 kept in the store's file. */
const OLD_LAYOUT = [
  "CREATE TABLE search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE search_merchants (id INTEGER PRIMARY KEY, ab_id TEXT NOT NULL UNIQUE, trust INTEGER NOT NULL)",
  "CREATE TABLE search_details (id INTEGER PRIMARY KEY, about TEXT NOT NULL)",
  "CREATE VIRTUAL TABLE search_merchant_fts USING fts5(name, about, content = '', contentless_delete = 1)",
  "CREATE VIRTUAL TABLE search_terms USING fts5vocab(search_merchant_fts, row)",
  "CREATE VIRTUAL TABLE search_geo USING rtree(id, min_lat, max_lat, min_lng, max_lng, +trust)",
];
const ROWS = 3_000;

let dataDir: string;
let db: Db;
let other: Db;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-old-tables-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  other = openDatabase(path.join(dataDir, "abeille.db"), { busyTimeoutMs: 0 });
  db.$client.exec("CREATE TABLE probe (name TEXT PRIMARY KEY)");
  for (const statement of OLD_LAYOUT) db.$client.exec(statement);
  db.$client
    .transaction(() => {
      for (let id = 1; id <= ROWS; id++) {
        const words = `boulangerie numero ${id} ${"pain levain ".repeat(20)}`;
        db.$client.prepare("INSERT INTO search_merchants VALUES (?, ?, ?)").run(id, `ab_old${id}`, id % 100);
        db.$client.prepare("INSERT INTO search_details VALUES (?, ?)").run(id, words);
        db.$client
          .prepare("INSERT INTO search_merchant_fts (rowid, name, about) VALUES (?, ?, ?)")
          .run(id, `n${id}`, words);
        db.$client.prepare("INSERT INTO search_geo VALUES (?, ?, ?, ?, ?, ?)").run(id, 45, 45, 4, 4, id % 100);
      }
    })
    .immediate();
});

afterEach(() => {
  other.$client.close();
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const searchTables = () =>
  db.$client.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'search_%'").pluck().all() as string[];

describe("the old layout's tables in the store's file", () => {
  it("go a round at a time, another process writing the store between two rounds", async () => {
    expect(searchTables().length).toBeGreaterThan(6);
    const between: string[] = [];
    await dropStoreFileTables(db.$client, () => {
      try {
        other.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(`round-${between.length}`);
        between.push("committed");
      } catch (error) {
        between.push((error as { code: string }).code);
      }
    });
    expect(searchTables()).toEqual([]);
    // Many rounds (the FTS data, the R*Tree, the rows, each in rounds of 500), none holding the lock after it.
    expect(between.length).toBeGreaterThan(20);
    expect(new Set(between)).toEqual(new Set(["committed"]));
    expect(db.$client.pragma("integrity_check", { simple: true })).toBe("ok");
  });

  it("are dropped by opening the index, which builds in DATA_DIR/search-index/ meanwhile", async () => {
    const index = createEmbeddedSearchIndex(db);
    await index.rebuild();
    await waitFor(() => (searchTables().length === 0 ? true : undefined), 30_000, "the old tables dropped");
    index.close();
  });
});
