/**
 * Issue 34: a stock's establishments are applied in SIRET order, whatever the order of the file's
 * rows (stock-reader.ts sorts the rows it keeps, sorted-spill.ts), and the registry is the same
 * as from the file in order: the same merchants, the same counts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";
import { importedStock } from "../helpers/stock-imported.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-siret-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function imported(name: string, stock: string, units: string) {
  const { report, error, merchants, leftInSortDir } = await importedStock(dir, name, stock, units);
  if (error) throw error;
  return { report, sirets: merchants.map((merchant) => merchant?.siret ?? "missing"), leftInSortDir };
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
