/**
 * The demo through the same door as real merchants (issue 9, item 5), step by step: its merchants
 * written as INSEE's and Etalab's files (src/seed/official-files.ts) come back through the SIRENE
 * import as the same establishments (the generator's ids handed to the importer; names and
 * streets in INSEE's capitals), their declarations restore the merchant as generated, the
 * platform's observations bring its listing, evidence and Q&A, and the operator's steps take each
 * to the status and review state the generator planned.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import { importDeclarations } from "../../src/domain/merchants/import-declarations.ts";
import { importObservations } from "../../src/domain/merchants/import-observations.ts";
import { reviewMerchantDescription } from "../../src/domain/merchants/review-merchant-description.ts";
import { updateMerchant } from "../../src/domain/merchants/update-merchant.ts";
import { makeSiren } from "../../src/domain/siret.ts";
import { importBodaccFile } from "../../src/import/bodacc/import-bodacc.ts";
import { csvLine } from "../../src/import/csv.ts";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { GEOCODED_ESTABLISHMENT_HEADER, LEGAL_UNIT_HEADER } from "../../src/import/sirene/layout.ts";
import { createCommuneLookup, loadCommuneReference } from "../../src/seed/communes.ts";
import type { SeedRecord } from "../../src/seed/generate.ts";
import { MerchantGenerator } from "../../src/seed/generate.ts";
import {
  bodaccRecordsOf,
  declarationOf,
  establishmentRow,
  legalUnitRow,
  lifecycleStepsOf,
  observationOf,
} from "../../src/seed/official-files.ts";
import { openDatabase } from "../../src/store/db.ts";
import {
  createMerchantRegistryRepository,
  createMerchantRegistryView,
} from "../../src/store/merchant-registry-repository.ts";

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
  it("comes back through the SIRENE import, the declarations import and the lifecycle as generated", async () => {
    const reference = loadCommuneReference();
    const generator = new MerchantGenerator(reference, 7, NOW.getTime());
    const records: SeedRecord[] = Array.from({ length: 40 }, (_unused, index) => {
      const abId = `ab_${String(index).padStart(8, "0")}`;
      // Every planned case once (statuses, an unreviewed description), then merchants drawn at random.
      const plan = PLANS[index] ? { kind: PLANS[index] } : null;
      return generator.generate(index, abId, makeSiren(`5${String(index).padStart(7, "0")}`), plan).record;
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
    const registry = createMerchantRegistryView(db);
    const store = createMerchantRegistryRepository(db);
    const ids = records.map((record) => record.merchant.abId);
    let next = 0;
    const report = await importSireneStock(
      {
        registry: store,
        communes: createCommuneLookup(reference),
        now: () => NOW,
        randomId: () => ids[next++] as string,
      },
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
    const unreviewed = (record: SeedRecord) =>
      record.merchant.descriptionLlmUnreviewed && record.merchant.description !== null;
    const lines = records.map((record, index) => ({
      number: index + 1,
      text: JSON.stringify(declarationOf(record, { withoutDescription: unreviewed(record) })),
    }));
    const stored = new Map<string, number>();
    const declared = await importDeclarations(
      {
        registry: store,
        communes: createCommuneLookup(reference),
        now: () => NOW,
        checkpoints: {
          read: async (key) => stored.get(key) ?? 0,
          write: async (key, line) => void stored.set(key, line),
        },
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
        // An unreviewed description is declared after the activation (below).
        unreviewed(record) ? null : merchant.description,
        merchant.hours,
        merchant.zones,
        merchant.languages,
        merchant.deliveryEnabled,
      ]);
      const offer = (list: typeof products) =>
        list.map((product) => [product.slug, product.name, product.priceCents, product.pricingModel, product.tags]);
      expect(offer(imported?.products ?? [])).toEqual(offer(products));
    }

    // Then what the platform observed: listing, website, photos, payment, the planned evidence
    // (all but what the official files prove) and the Q&A, each product cluster on its product.
    const observed = await importObservations(
      {
        registry: store,
        communes: createCommuneLookup(reference),
        now: () => NOW,
        checkpoints: {
          read: async (key) => stored.get(key) ?? 0,
          write: async (key, line) => void stored.set(key, line),
        },
      },
      (async function* () {
        yield* records.map((record, index) => ({
          number: index + 1,
          text: JSON.stringify(observationOf(record, NOW)),
        }));
      })(),
      { importKey: "demo-observations", actor: "import:demo" },
    );
    expect(observed).toMatchObject({ read: 40, updated: 40, rejected: [] });
    const fromFiles = new Set(["siret_verified", "company_age_years", "bodacc_clean"]);
    for (const record of records) {
      const { merchant, signals, clusters, products } = record;
      const imported = registry.find(merchant.abId);
      const got = imported?.merchant;
      expect(
        [got?.listingRating, got?.listingReviewCount, got?.domainAgeYears, got?.terrainPhotos, got?.paymentSetup],
        merchant.abId,
      ).toEqual([
        merchant.listingRating,
        merchant.listingReviewCount,
        merchant.domainAgeYears,
        merchant.terrainPhotos,
        merchant.paymentSetup,
      ]);
      expect(imported?.paymentAccountId).toBe(record.paymentAccountId);
      const evidence = (list: typeof signals) =>
        list
          .filter((signal) => !fromFiles.has(signal.key))
          .map((signal) => [signal.key, signal.status, signal.source, signal.value, signal.recordedAt])
          .sort();
      expect(evidence(imported?.signals ?? [])).toEqual(evidence(signals));
      const slugOf = (list: typeof products, brickId: string | null) =>
        list.find((product) => product.brickId === brickId)?.slug ?? null;
      const qa = (list: typeof clusters, offer: typeof products) =>
        list.map((cluster) => [
          cluster.label,
          slugOf(offer, cluster.brickId),
          cluster.nodes.map((node) => node.question),
        ]);
      expect(qa(imported?.clusters ?? [], imported?.products ?? [])).toEqual(qa(clusters, products));
    }

    // Then the operator's steps, through the lifecycle's rules: each merchant ends in the status
    // and review state the generator planned.
    const lifecycle = { registry, communes: createCommuneLookup(reference), now: () => NOW };
    for (const record of records) {
      const { abId } = record.merchant;
      for (const step of lifecycleStepsOf(record)) {
        if (step.kind === "review") reviewMerchantDescription(lifecycle, abId, "operator:demo");
        else if (step.kind === "status") {
          changeMerchantStatus(lifecycle, abId, { status: step.status, reason: step.reason }, "operator:demo");
        } else updateMerchant(lifecycle, abId, step.update, "operator:demo");
      }
    }
    const states = (list: SeedRecord[]) =>
      list.map((record) => {
        const merchant = registry.find(record.merchant.abId)?.merchant ?? record.merchant;
        return [merchant.abId, merchant.status, merchant.descriptionLlmUnreviewed, merchant.description];
      });
    expect(states(records)).toEqual(
      records.map(({ merchant }) => [
        merchant.abId,
        merchant.status,
        merchant.descriptionLlmUnreviewed,
        merchant.description,
      ]),
    );
    expect(new Set(records.map((record) => record.merchant.status))).toEqual(
      new Set(["ACTIVE", "PROBATION", "PAUSED", "SUSPENDED", "ARCHIVED"]),
    );
    expect(records.some((record) => unreviewed(record) && record.merchant.status === "ACTIVE")).toBe(true);

    // Then BODACC: the companies planned clean or failed are named there, and the import gives
    // each its bodacc_clean check as planned (archived merchants are not checked any more).
    // One company planned with a failed check (the generator draws few in 40): a proceeding opened.
    const troubled = records.find(
      (record) =>
        record.merchant.status === "ACTIVE" &&
        record.signals.some((signal) => signal.key === "bodacc_clean" && signal.status === "verified"),
    );
    const troubledCheck = troubled?.signals.find((signal) => signal.key === "bodacc_clean");
    if (troubledCheck) troubledCheck.status = "failed";
    const bodacc = path.join(dir, "annonces-commerciales.jsonl");
    const announced = new Date("2026-10-20T00:00:00.000Z");
    writeFileSync(
      bodacc,
      `${records.flatMap((record) => bodaccRecordsOf(record, announced).map((line) => JSON.stringify(line))).join("\n")}\n`,
    );
    const bodaccReport = await importBodaccFile({ registry: store, now: () => NOW }, bodacc, "import:demo");
    expect(bodaccReport.rejected).toEqual([]);
    const checks = (list: SeedRecord[]) =>
      list
        .filter((record) => record.merchant.status !== "ARCHIVED")
        .map((record) => [
          record.merchant.abId,
          registry.find(record.merchant.abId)?.signals.find((signal) => signal.key === "bodacc_clean")?.status ?? null,
        ]);
    const plannedChecks = records
      .filter((record) => record.merchant.status !== "ARCHIVED")
      .map((record) => {
        const planned = record.signals.find((signal) => signal.key === "bodacc_clean")?.status;
        return [record.merchant.abId, planned === "verified" || planned === "failed" ? planned : null];
      });
    expect(checks(records)).toEqual(plannedChecks);
    expect(plannedChecks.filter(([, status]) => status === "failed")).toEqual([[troubled?.merchant.abId, "failed"]]);
    expect(plannedChecks.some(([, status]) => status === "verified")).toBe(true);
    const notice = registry
      .find(troubled?.merchant.abId ?? "")
      ?.signals.find((signal) => signal.key === "bodacc_clean")?.notice;
    expect(notice?.kind).toBe("collective");
    db.$client.close();
  });
});

const PLANS = [
  "active_contactable",
  "unreviewed",
  "probation",
  "paused",
  "suspended",
  "archived",
  "low_trust",
] as const;
