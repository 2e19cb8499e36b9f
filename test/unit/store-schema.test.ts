import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SQLiteTable as Table } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../../src/store/connection.ts";
import { openDatabase } from "../../src/store/db.ts";
import { getTableConfig, is, SQLiteTable } from "../../src/store/drizzle.ts";
import { migrations } from "../../src/store/migrations/index.ts";
import * as schema from "../../src/store/schema.ts";
import { migrationFiles } from "../helpers/migration-files.ts";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-schema-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const tables = (Object.values(schema) as unknown[]).filter((value): value is Table => is(value, SQLiteTable));

describe("the store schema", () => {
  it("embeds exactly the SQL migrations drizzle-kit wrote", () => {
    const files = migrationFiles(path.resolve("src/store/migrations/sql"));
    expect(files.length).toBeGreaterThan(10);
    expect(migrations).toEqual(files);
  });

  it("creates every drizzle table with the same columns", () => {
    const db = openDatabase(path.join(dataDir, "columns.db"));
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) {
      const config = getTableConfig(table);
      const columns = db.$client.prepare(`PRAGMA table_info(${config.name})`).all() as { name: string }[];
      expect(columns.map((column) => column.name).sort(), config.name).toEqual(
        config.columns.map((column) => column.name).sort(),
      );
    }
    db.$client.close();
  });

  it("applies migrations once, even when opened again", () => {
    const file = path.join(dataDir, "twice.db");
    openDatabase(file).$client.close();
    const db = openDatabase(file);
    expect(applyMigrations(db.$client)).toEqual([]);
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    db.$client.close();
  });
});
