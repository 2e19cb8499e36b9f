import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRepository } from "../../src/store/merchant-repository.ts";
import { fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

let dataDir: string;
let db: Db;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-revision-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  insertFixtureMerchants(db, fixtureMerchants);
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("store revision", () => {
  it.each([
    ["a merchant update", "UPDATE merchants SET business_name = business_name || ' ' WHERE ab_id = 'ab_bake0001'"],
    ["a signal update", "UPDATE signals SET status = 'revoked' WHERE ab_id = 'ab_bake0001'"],
    ["a signal deletion", "DELETE FROM signals WHERE ab_id = 'ab_bake0001'"],
    ["a product update", "UPDATE products SET name = 'Brioche' WHERE ab_id = 'ab_bake0001'"],
    ["a product deletion", "DELETE FROM products WHERE ab_id = 'ab_bake0001'"],
    ["a territorial proof update", "UPDATE territorial_proofs SET latitude = 45.0 WHERE ab_id = 'ab_bake0001'"],
  ])("moves with %s made through another connection", async (_what, statement) => {
    const merchants = createMerchantRepository(db);
    const before = await merchants.revision();
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    try {
      other.$client.exec(statement);
    } finally {
      other.$client.close();
    }
    expect(await merchants.revision()).toBeGreaterThan(before);
  });

  it("moves when merchants are added", async () => {
    const fresh = openDatabase(path.join(dataDir, "fresh.db"));
    try {
      const merchants = createMerchantRepository(fresh);
      expect(await merchants.revision()).toBe(0);
      insertFixtureMerchants(fresh, fixtureMerchants);
      expect(await merchants.revision()).toBeGreaterThan(0);
    } finally {
      fresh.$client.close();
    }
  });

  it("stays put when other tables are written", async () => {
    const merchants = createMerchantRepository(db);
    const before = await merchants.revision();
    db.$client.exec("INSERT INTO settings (key, value) VALUES ('probe', '1')");
    expect(await merchants.revision()).toBe(before);
  });
});
