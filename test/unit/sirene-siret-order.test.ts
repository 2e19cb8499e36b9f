/**
 * Issue 34: a stock's establishments are applied in SIRET order, whatever the order of the file's
 * rows (stock-reader.ts sorts the rows it keeps, sorted-spill.ts), and the registry is the same
 * as from the file in order: the same merchants, the same counts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-siret-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function imported(name: string, stock: string, units: string) {
  const db = openDatabase(path.join(dir, `${name}.db`));
  const registry = createMerchantRegistryRepository(db);
  const sortDir = path.join(dir, `${name}-sort`);
  const changed: string[] = [];
  try {
    const report = await importSireneStock(
      { registry, communes: createCommuneLookup(), now: () => new Date("2026-12-01T10:00:00Z") },
      { establishments: stock, legalUnits: units, sortDir },
      "import:test",
      { onChanged: (abId) => changed.push(abId) },
    );
    const sirets: string[] = [];
    for (const abId of changed) sirets.push((await registry.find(abId))?.merchant.siret ?? "missing");
    return { report, sirets, leftInSortDir: readdirSync(sortDir) };
  } finally {
    db.$client.close();
  }
}

describe("a SIRENE stock whose rows come in no order", () => {
  it("is applied in SIRET order and brings the registry the file in order brings", async () => {
    const ordered = path.join(dir, "ordered.csv");
    writeStockFile(ordered, 3_000);
    const units = legalUnitsFileOf(ordered);
    // The same rows, shuffled (the same shuffle at every run).
    const [header, ...rows] = readFileSync(ordered, "utf8").trimEnd().split("\n");
    let state = 11;
    for (let index = rows.length - 1; index > 0; index--) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      const other = state % (index + 1);
      [rows[index], rows[other]] = [rows[other] as string, rows[index] as string];
    }
    const shuffled = path.join(dir, "shuffled.csv");
    writeFileSync(shuffled, `${[header, ...rows].join("\n")}\n`);

    const inOrder = await imported("ordered", ordered, units);
    const outOfOrder = await imported("shuffled", shuffled, units);
    expect(outOfOrder.sirets.length).toBeGreaterThan(500);
    expect(outOfOrder.sirets).toEqual([...outOfOrder.sirets].sort());
    expect(outOfOrder.sirets).toEqual(inOrder.sirets);
    expect({ ...outOfOrder.report, rejected: [] }).toEqual({ ...inOrder.report, rejected: [] });
    expect(outOfOrder.leftInSortDir).toEqual([]);
  });
});
