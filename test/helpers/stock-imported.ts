import { readdirSync } from "node:fs";
import path from "node:path";
import type { Merchant } from "../../src/domain/merchant.ts";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";

export interface ImportedStock {
  report: Awaited<ReturnType<typeof importSireneStock>> | null;
  /** What the import threw (null: it ended). */
  error: unknown;
  /** The merchants the import wrote, in the order it wrote them (null: not found after it). */
  merchants: (Merchant | null)[];
  /** What the import left in its sort folder (nothing, when it cleans up after itself). */
  leftInSortDir: string[];
}

/**
 * A SIRENE stock imported in process into a registry of its own (DIR/NAME.db, sorting in
 * DIR/NAME-sort), on 2026-12-01: its report or its error, and the merchants it wrote.
 */
export async function importedStock(dir: string, name: string, stock: string, units: string): Promise<ImportedStock> {
  const db = openDatabase(path.join(dir, `${name}.db`));
  const registry = createMerchantRegistryRepository(db);
  const sortDir = path.join(dir, `${name}-sort`);
  const changed: string[] = [];
  try {
    const outcome = await importSireneStock(
      { registry, communes: createCommuneLookup(), now: () => new Date("2026-12-01T10:00:00Z") },
      { establishments: stock, legalUnits: units, sortDir },
      "import:test",
      { onChanged: (abId) => changed.push(abId) },
    ).then(
      (report) => ({ report, error: null }),
      (error: unknown) => ({ report: null, error }),
    );
    const merchants: (Merchant | null)[] = [];
    for (const abId of changed) merchants.push((await registry.find(abId))?.merchant ?? null);
    return { ...outcome, merchants, leftInSortDir: readdirSync(sortDir) };
  } finally {
    db.$client.close();
  }
}
