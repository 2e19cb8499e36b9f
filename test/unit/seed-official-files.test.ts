/**
 * The demo's merchants written as INSEE's and Etalab's files (src/seed/official-files.ts) come
 * back through the SIRENE import as the same establishments: same ids when the import is handed
 * the generator's, same SIRET, activity, postal code, commune, position and creation date; names
 * and streets as INSEE writes them (capitals without accents, which a declaration restores).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importDeclarations } from "../../src/domain/merchants/import-declarations.ts";
import { makeSiren } from "../../src/domain/siret.ts";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup, loadCommuneReference } from "../../src/seed/communes.ts";
import { MerchantGenerator } from "../../src/seed/generate.ts";
import {
  csvLine,
  declarationOf,
  establishmentRow,
  GEOCODED_ESTABLISHMENT_HEADER,
  LEGAL_UNIT_HEADER,
  legalUnitRow,
} from "../../src/seed/official-files.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import type { SeedRecord } from "../../src/store/seed-writer.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-official-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date("2026-11-01T10:00:00.000Z");
const folded = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

describe("the demo written as official files", () => {
  it("comes back through the SIRENE import as the same establishments", async () => {
    const reference = loadCommuneReference();
    const generator = new MerchantGenerator(reference, 7, NOW.getTime());
    const records: SeedRecord[] = Array.from({ length: 40 }, (_unused, index) => {
      const abId = `ab_${String(index).padStart(8, "0")}`;
      return generator.generate(index, abId, makeSiren(`5${String(index).padStart(7, "0")}`), null).record;
    });
    const establishments = path.join(dir, "StockEtablissement_geo.csv");
    const units = path.join(dir, "StockUniteLegale_utf8.csv");
    writeFileSync(
      establishments,
      [
        GEOCODED_ESTABLISHMENT_HEADER.join(","),
        ...records.map((record) => csvLine(GEOCODED_ESTABLISHMENT_HEADER, establishmentRow(record, NOW))),
        "",
      ].join("\r\n"),
    );
    writeFileSync(
      units,
      [
        LEGAL_UNIT_HEADER.join(","),
        ...records.map((record) => csvLine(LEGAL_UNIT_HEADER, legalUnitRow(record, NOW))),
        "",
      ].join("\r\n"),
    );

    const db = openDatabase(path.join(dir, "abeille.db"));
    const registry = createMerchantRegistryRepository(db);
    const ids = records.map((record) => record.merchant.abId);
    let next = 0;
    const report = await importSireneStock(
      { registry, communes: createCommuneLookup(reference), now: () => NOW, randomId: () => ids[next++] as string },
      { establishments, legalUnits: units },
      "import:demo",
    );
    expect(report).toMatchObject({ read: 40, created: 40, rejected: [], skipped: {} });

    for (const record of records) {
      const { merchant, territorialProof } = record;
      const imported = registry.find(merchant.abId);
      expect(imported, merchant.abId).not.toBeNull();
      const got = imported?.merchant;
      expect([got?.siret, got?.nafCode, got?.sector, got?.postalCode, got?.foundedOn]).toEqual([
        merchant.siret,
        merchant.nafCode,
        merchant.sector,
        merchant.postalCode,
        merchant.foundedOn,
      ]);
      expect(folded(got?.businessName ?? "")).toBe(folded(merchant.businessName));
      expect(folded(got?.legalName ?? "")).toBe(folded(merchant.legalName));
      expect(folded(got?.street ?? "")).toBe(folded(merchant.street));
      expect(folded(got?.city ?? "")).toBe(folded(merchant.city));
      expect([
        imported?.territorialProof?.inseeCode,
        imported?.territorialProof?.latitude,
        imported?.territorialProof?.longitude,
      ]).toEqual([territorialProof.inseeCode, territorialProof.latitude, territorialProof.longitude]);
      expect(imported?.signals.map((signal) => [signal.key, signal.source, signal.status]).sort()).toEqual([
        ["company_age_years", "official_file", "verified"],
        ["siret_verified", "official_file", "verified"],
      ]);
    }

    // Then their declarations, through the bulk import of `npm run merchants -- import`: the
    // merchant as generated, accents, contact, hours and offer included.
    const lines = records.map((record, index) => ({ number: index + 1, text: JSON.stringify(declarationOf(record)) }));
    const stored = new Map<string, number>();
    const declared = await importDeclarations(
      {
        registry,
        communes: createCommuneLookup(reference),
        now: () => NOW,
        checkpoints: { read: (key) => stored.get(key) ?? 0, write: (key, line) => void stored.set(key, line) },
      },
      (async function* () {
        yield* lines;
      })(),
      { importKey: "demo-declarations", actor: "import:demo" },
    );
    expect(declared).toMatchObject({ read: 40, created: 0, updated: 40, rejected: [] });
    for (const record of records) {
      const { merchant, products } = record;
      const imported = registry.find(merchant.abId);
      const got = imported?.merchant;
      expect(
        [got?.businessName, got?.legalName, got?.street, got?.city, got?.email, got?.phone, got?.website],
        merchant.abId,
      ).toEqual([
        merchant.businessName,
        merchant.legalName,
        merchant.street,
        merchant.city,
        merchant.email,
        merchant.phone,
        merchant.website,
      ]);
      expect([got?.description, got?.hours, got?.zones, got?.languages, got?.deliveryEnabled]).toEqual([
        merchant.description,
        merchant.hours,
        merchant.zones,
        merchant.languages,
        merchant.deliveryEnabled,
      ]);
      const offer = (list: typeof products) =>
        list.map((product) => [product.slug, product.name, product.priceCents, product.pricingModel, product.tags]);
      expect(offer(imported?.products ?? [])).toEqual(offer(products));
    }
    db.$client.close();
  });
});
