/**
 * A long import's progress is the bytes read of its files, as they are on disk, against the sum
 * of their sizes (src/import/open-text.ts, ReadMeter): the SIRENE import reads its establishments
 * twice when it names them from other files, so they count twice; a gzipped file counts in its
 * compressed bytes.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { importBodaccFile } from "../../src/import/bodacc/import-bodacc.ts";
import { ReadMeter } from "../../src/import/open-text.ts";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-import-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function registryIn(name: string) {
  const db = openDatabase(path.join(dir, `${name}.db`));
  return {
    deps: { registry: createMerchantRegistryRepository(db), communes: createCommuneLookup(), now: () => new Date() },
    close: () => db.$client.close(),
  };
}

describe("the bytes an import reads", () => {
  it("count every pass over the SIRENE files against their sizes, and reach the total at the end", async () => {
    const stock = path.join(dir, "stock.csv");
    writeStockFile(stock, 2_000);
    const units = legalUnitsFileOf(stock);
    const { deps, close } = registryIn("sirene");
    const meter = new ReadMeter();
    const seen: { file: string | null; bytes: number }[] = [];
    try {
      const report = await importSireneStock(deps, { establishments: stock, legalUnits: units }, "import:test", {
        meter,
        progressEvery: 500,
        onProgress: () => seen.push({ file: meter.current, bytes: meter.bytesRead }),
      });
      expect(report.read).toBe(2_000);
    } finally {
      close();
    }
    // The establishments named first, the companies, then the establishments applied.
    const total = 2 * statSync(stock).size + statSync(units).size;
    expect(meter.totalBytes).toBe(total);
    expect(meter.bytesRead).toBe(total);
    // Progress during the last pass: past the first two files, growing, never past the total.
    expect(seen.map((step) => step.file)).toEqual([stock, stock, stock, stock]);
    const bytes = seen.map((step) => step.bytes);
    expect(bytes.every((value) => value > statSync(stock).size + statSync(units).size && value <= total)).toBe(true);
    expect([...bytes].sort((a, b) => a - b)).toEqual(bytes);
  });

  it("count a gzipped BODACC file in its compressed bytes", async () => {
    const records = Array.from({ length: 300 }, (_, index) =>
      JSON.stringify({
        id: `A2026005${String(index).padStart(5, "0")}`,
        publicationavis: "A",
        dateparution: "2026-03-18",
        familleavis: "collective",
        registre: ["123 456 789", "123456789"],
      }),
    ).join("\n");
    const file = path.join(dir, "annonces.jsonl.gz");
    writeFileSync(file, gzipSync(records));
    const { deps, close } = registryIn("bodacc");
    const meter = new ReadMeter();
    try {
      const report = await importBodaccFile(deps, file, "import:test", { meter });
      expect(report.read).toBe(300);
    } finally {
      close();
    }
    expect(meter.totalBytes).toBe(statSync(file).size);
    expect(meter.bytesRead).toBe(statSync(file).size);
    expect(meter.totalBytes).toBeLessThan(Buffer.byteLength(records));
  });
});
