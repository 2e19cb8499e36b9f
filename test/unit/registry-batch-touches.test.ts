/**
 * Issue 34: a registry batch on SQLite touches each merchant it wrote once, the store revision
 * moving by one a merchant (merchant-registry-repository.ts, deferTouches), where the triggers
 * moved it once a row: a new merchant's row, place and two signals four times. Outside a batch
 * the triggers touch as before; a batch that fails leaves the revision and the triggers as they were.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-batch-touches-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a registry batch on SQLite", () => {
  it("touches each merchant it wrote once, one store revision each, and leaves the triggers on", async () => {
    const stock = path.join(dir, "stock.csv");
    writeStockFile(stock, 400);
    const db = openDatabase(path.join(dir, "abeille.db"));
    const sqlite = db.$client;
    const registry = createMerchantRegistryRepository(db);
    const state = () =>
      sqlite.prepare("SELECT revision, deferred_touches AS deferred FROM store_revision WHERE id = 1").get() as {
        revision: number;
        deferred: number;
      };
    try {
      const report = await importSireneStock(
        { registry, communes: createCommuneLookup(), now: () => new Date("2026-12-01T10:00:00Z") },
        { establishments: stock, legalUnits: legalUnitsFileOf(stock), sortDir: path.join(dir, "sort") },
        "import:test",
      );
      expect(report.created).toBeGreaterThan(50);
      const signals = sqlite.prepare("SELECT count(*) FROM signals").pluck().get() as number;
      expect(signals).toBe(2 * report.created);
      expect(state()).toEqual({ revision: report.created, deferred: 0 });
      const touches = sqlite.prepare("SELECT touch FROM merchant_touches ORDER BY touch").pluck().all() as number[];
      expect(touches).toEqual(Array.from({ length: report.created }, (_, index) => index + 1));

      // A batch that throws: nothing of it stays, the flag included.
      await expect(
        registry.applyBatch({}, () => {
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(state()).toEqual({ revision: report.created, deferred: 0 });

      // A write outside any batch is touched by the triggers, at once.
      const abId = sqlite.prepare("SELECT ab_id FROM merchants ORDER BY ab_id LIMIT 1").pluck().get() as string;
      sqlite.prepare("UPDATE signals SET notice = 'checked' WHERE ab_id = ? AND key = 'siret_verified'").run(abId);
      expect(state()).toEqual({ revision: report.created + 1, deferred: 0 });
      expect(sqlite.prepare("SELECT touch FROM merchant_touches WHERE ab_id = ?").pluck().get(abId)).toBe(
        report.created + 1,
      );
    } finally {
      sqlite.close();
    }
  });
});
