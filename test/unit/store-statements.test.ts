/**
 * The raw SQL of src/store against the schema the migrations build: a renamed or dropped column
 * fails here, not on the first request that runs the statement. Drizzle's query builder is typed
 * by src/store/schema.ts (the type check catches those); the raw statements are what this checks.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { TRUST_SIGNALS_OF_MERCHANT_SQL, TRUST_SIGNALS_OF_MERCHANTS_SQL } from "../../src/store/merchant-repository.ts";
import { openPackIndexWriter } from "../../src/store/pack-index.ts";
import { openPublishIndex } from "../../src/store/publish-index.ts";
import { createProfileLoader, createPublishSource } from "../../src/store/publish-source.ts";
import { CURRENT_CARDS_SQL } from "../../src/store/search-card-store.ts";

const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-statements-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * limits.db, the refresh job's index.db and the packs' index (packs.db) have their own schemas,
 * created by the store modules themselves, which prepare every statement when they open (checked
 * below for the two indexes).
 */
const OTHER_DATABASES = new Set([
  "rate-limit-store.ts",
  "redis-rate-limit-store.ts",
  "publish-index.ts",
  "pack-index.ts",
]);

/**
 * The string literals passed to `prepare(` in a source file (after an optional type argument),
 * when they hold no interpolation: the statements whose text is all in the source.
 */
function literalStatements(source: string): string[] {
  const found: string[] = [];
  let index = source.indexOf(".prepare");
  while (index >= 0) {
    let cursor = index + ".prepare".length;
    if (source[cursor] === "<") {
      let depth = 0;
      for (; cursor < source.length; cursor++) {
        if (source[cursor] === "<") depth += 1;
        else if (source[cursor] === ">" && --depth === 0) break;
      }
      cursor += 1;
    }
    if (source[cursor] === "(") {
      cursor += 1;
      while (/\s/.test(source[cursor] ?? "")) cursor += 1;
      const quote = source[cursor];
      if (quote === '"' || quote === "`" || quote === "'") {
        let end = cursor + 1;
        while (end < source.length && source[end] !== quote) end += source[end] === "\\" ? 2 : 1;
        const text = source.slice(cursor + 1, end);
        if (!text.includes("${")) found.push(text.replace(/\\"/g, '"'));
      }
    }
    index = source.indexOf(".prepare", index + 1);
  }
  return found;
}

describe("the store's SQL", () => {
  it("opens the refresh job's index, which prepares each of its statements against its own schema", () => {
    const index = openPublishIndex(dataDir);
    expect(index.meta()).toBeNull();
    expect(index.counts()).toEqual({ merchants: 0, files: 0 });
    index.close();
  });

  it("opens the packs' index, which prepares each of its statements against its own schema", () => {
    const index = openPackIndexWriter(path.join(dataDir, "publish-state"));
    expect(index.committed()).toEqual({ generation: 0, publishKey: null, run: null });
    expect(index.counts()).toEqual({ documents: 0, merchants: 0 });
    index.close();
  });

  it("prepares, every literal statement of src/store, against the migrated schema", () => {
    const db = openDatabase(path.join(dataDir, "abeille.db"));
    const failures: string[] = [];
    let checked = 0;
    for (const file of readdirSync(path.join(root, "src/store")).filter((name) => name.endsWith(".ts"))) {
      if (OTHER_DATABASES.has(file)) continue;
      for (const statement of literalStatements(readFileSync(path.join(root, "src/store", file), "utf8"))) {
        checked += 1;
        try {
          db.$client.prepare(statement);
        } catch (error) {
          failures.push(`${file}: ${(error as Error).message}: ${statement.slice(0, 120)}`);
        }
      }
    }
    db.$client.close();
    expect(failures).toEqual([]);
    // The scan found the statements (a broken scan would pass on nothing).
    expect(checked).toBeGreaterThanOrEqual(40);
  });

  it("reads the verified signals trust needs from the covering index alone, not a table row per signal", () => {
    const db = openDatabase(path.join(dataDir, "abeille.db"));
    try {
      for (const sql of [TRUST_SIGNALS_OF_MERCHANTS_SQL, TRUST_SIGNALS_OF_MERCHANT_SQL]) {
        const plan = db.$client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("[]") as { detail: string }[];
        expect(plan.map((step) => step.detail)).toContain(
          "SEARCH signals USING COVERING INDEX signals_verified (ab_id=?)",
        );
      }
    } finally {
      db.$client.close();
    }
  });

  it("reads a search's kept cards by their merchants' keys, not every card of the format", () => {
    const db = openDatabase(path.join(dataDir, "abeille.db"));
    try {
      const plan = db.$client.prepare(`EXPLAIN QUERY PLAN ${CURRENT_CARDS_SQL}`).all("[]", "1", "") as {
        detail: string;
      }[];
      expect(plan.map((step) => step.detail)).toContain("SEARCH c USING INDEX sqlite_autoindex_kept_cards_1 (ab_id=?)");
    } finally {
      db.$client.close();
    }
  });

  it("prepares every statement the repositories make up front, interpolated ones included", () => {
    const app = createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }));
    try {
      expect(() => createPublishSource(app.db)).not.toThrow();
      expect(() => createProfileLoader(app.db)).not.toThrow();
      expect(() => createMerchantRegistryRepository(app.db)).not.toThrow();
    } finally {
      app.close();
    }
  });
});
