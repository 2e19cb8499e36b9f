/**
 * Issue 34: the SIRENE import's fast path gives exactly what the domain path gives. Most rows of a
 * national stock are set aside from a few columns' bytes (src/import/sirene/raw-fields.ts) and a
 * row read again with the digest recorded when it was applied, its merchant untouched since, is
 * known unchanged without a decision (import-sirene.ts); `everyRowToTheDomain` turns both off, so
 * every row is read whole and decided by applyOfficialEstablishment. On each engine, two stores
 * import the same files, one each way: a national-shaped stock with odd rows (a value past the
 * limit, a sign long enough to be read whole, a NAF code in spaces, a status with a control
 * character, a bad SIRET, an establishment closed after it opened in the same file), dated by its
 * latest processing date; then a later stock of the same country (openings, closings, new signs
 * and street numbers) dated by --file-date, after an operator changed a merchant, then that stock
 * again. After each import the reports are equal, and so are the registries, row for row:
 * merchants (their closures), places, signals (verified as of the stock's date, INSEE's change
 * date, their origin), audit log, change feed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { MerchantLifecycleDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { importSireneStock, type SireneImportReport } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { type NationalStock, writeNationalStock } from "../helpers/generated-stock.ts";
import { publicCompany } from "../helpers/sirene-stock.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-fast-path-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const engines = storeEngines();

const ODD_SIREN = makeSiren("99887766");
const base = {
  siren: ODD_SIREN,
  statutDiffusionEtablissement: "O",
  dateCreationEtablissement: "2015-04-01",
  dateDernierTraitementEtablissement: "2025-06-02T10:00:00",
  numeroVoieEtablissement: "4",
  typeVoieEtablissement: "RUE",
  libelleVoieEtablissement: "DE LA PAIX",
  codePostalEtablissement: "69001",
  libelleCommuneEtablissement: "LYON",
  codeCommuneEtablissement: "69381",
  etatAdministratifEtablissement: "A",
  activitePrincipaleEtablissement: "56.10A",
  nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
  activitePrincipaleNAF25Etablissement: "56.11G",
};
/** Later than any generated row's processing date (test/helpers/generated-stock.ts: 2026-10-31 at most). */
const LATEST = "2026-11-30T09:15:00";
/** The SIRET with its last digit changed: its check fails. */
const badSiret = (siret: string) => `${siret.slice(0, 13)}${(Number(siret[13]) + 1) % 10}`;
const odd = (nic: string, values: Record<string, string>) => {
  const siret = makeSiret(ODD_SIREN, nic);
  return { ...base, nic: siret.slice(9), siret, ...values };
};
/** Rows each path reads its own way: past a limit, long, in spaces, with a control character, closed after it opened. */
const ODD_ROWS = [
  odd("0001", { enseigne1Etablissement: "B".repeat(130) }),
  odd("0002", { enseigne1Etablissement: `LA BOULANGERIE ${"DU COIN ".repeat(12)}` }),
  odd("0003", { activitePrincipaleEtablissement: " 56.10A ", activitePrincipaleNAF25Etablissement: "" }),
  odd("0004", { statutDiffusionEtablissement: "O\u0001", enseigne1Etablissement: "CONTROLE" }),
  odd("0005", { etatAdministratifEtablissement: "a", enseigne1Etablissement: "MINUSCULE" }),
  { ...odd("0006", { enseigne1Etablissement: "FAUX" }), siret: badSiret(makeSiret(ODD_SIREN, "0006")) },
  odd("0007", { enseigne1Etablissement: "OUVERT PUIS FERME" }),
  odd("0007", { enseigne1Etablissement: "OUVERT PUIS FERME", etatAdministratifEtablissement: "F" }),
  odd("0008", { activitePrincipaleEtablissement: "", activitePrincipaleNAF25Etablissement: "47.11H" }),
  // The latest processing date of the file, after a no-break space (read from its text, not its bytes).
  odd("0009", { enseigne1Etablissement: "LA DERNIERE", dateDernierTraitementEtablissement: `\u00a0${LATEST}` }),
];

interface Side {
  store: OpenedStore;
  deps: MerchantLifecycleDeps;
}

function side(store: OpenedStore): Side {
  let drawn = 0;
  const registry = store.sqlite
    ? createMerchantRegistryRepository(store.sqlite)
    : createPostgresMerchantRegistryRepository(store.postgres as NonNullable<OpenedStore["postgres"]>);
  return {
    store,
    deps: {
      registry,
      communes: createCommuneLookup(),
      now: () => new Date("2026-11-05T08:00:00Z"),
      randomId: () => `ab_fp${String(++drawn).padStart(6, "0")}`,
    },
  };
}

interface SignalRow {
  ab_id: string;
  key: string;
  verified_at: string;
  expires_at: string;
  changed_at: string | null;
  origin: string | null;
}

/** The identity signals of merchants open and not archived, by SIRET, with their merchant's. */
async function identities({ store }: Side): Promise<Map<string, SignalRow>> {
  const rows = await store.rows<SignalRow & { siret: string }>(
    `SELECT m.siret, s.ab_id, s.key, s.verified_at, s.expires_at, s.changed_at, s.origin
     FROM signals s JOIN merchants m ON m.ab_id = s.ab_id
     WHERE s.key = 'siret_verified' AND m.status <> 'ARCHIVED' AND m.closure IS NULL`,
  );
  return new Map(rows.map(({ siret, ...signal }) => [siret, signal]));
}

/** What the registry holds, table by table, in key order (the digests aside: only the fast path records them). */
async function registryOf({ store }: Side) {
  const table = (sql: string) => store.rows<Record<string, unknown>>(sql);
  return {
    merchants: await table("SELECT * FROM merchants ORDER BY ab_id"),
    proofs: await table("SELECT * FROM territorial_proofs ORDER BY ab_id"),
    signals: await table("SELECT * FROM signals ORDER BY ab_id, key"),
    events: await table("SELECT * FROM merchant_events ORDER BY event_id"),
    changes: await table("SELECT * FROM merchant_changes ORDER BY seq"),
  };
}

async function bothWays(
  fast: Side,
  domain: Side,
  stock: NationalStock,
  fileDate: string | null = null,
): Promise<SireneImportReport> {
  const files = { establishments: stock.establishments, legalUnits: stock.legalUnits, fileDate };
  const quick = await importSireneStock(fast.deps, files, "import:sirene");
  const whole = await importSireneStock(domain.deps, files, "import:sirene", { everyRowToTheDomain: true });
  expect(quick).toEqual(whole);
  expect(await registryOf(fast)).toEqual(await registryOf(domain));
  return quick;
}

describe.each(engines)("the SIRENE import's fast path on $name", (engine) => {
  it("writes the registry the domain path writes, row for row, import after import", async () => {
    const at = path.join(dir, engine.name);
    const extraUnits = [
      { ...publicCompany(ODD_SIREN, "SOCIETE DES CAS RARES"), dateDernierTraitementUniteLegale: "2024-02-03T04:05:06" },
    ];
    const first = await writeNationalStock({
      dir: path.join(at, "first"),
      rows: 4_000,
      badSiretAt: [3, 1_500],
      extraRows: ODD_ROWS,
      extraUnits,
    });
    const fast = side(await engine.open());
    const domain = side(await engine.open());

    const report = await bothWays(fast, domain, first);
    // Every active, public establishment of a covered trade came in, the odd ones as the domain reads them.
    expect(report.read).toBe(4_000 + ODD_ROWS.length);
    expect(report.created).toBe(first.expected + 6);
    // Closed after it opened in the same file: its closure recorded, its merchant kept (resolvable).
    expect([report.closed, report.archived]).toEqual([1, 0]);
    // The stock's date: its latest processing date; every merchant's identity verified as of it,
    // for two years from it, INSEE's own change date of the row kept beside, SIRENE said as the origin.
    const stockDate = `${LATEST}.000Z`;
    expect(report.stock_date).toBe(stockDate);
    const verified = await identities(fast);
    expect(verified.size).toBe(first.expected + 5);
    const expiry = new Date(stockDate);
    expiry.setUTCDate(expiry.getUTCDate() + 730);
    for (const signal of verified.values()) {
      expect(signal).toMatchObject({ verified_at: stockDate, origin: "sirene" });
      expect(signal.expires_at).toBe(expiry.toISOString());
      expect(signal.changed_at).toMatch(/^20(0[89]|1\d|2[0-6])-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    }
    expect(verified.get(makeSiret(ODD_SIREN, "0008"))?.changed_at).toBe("2025-06-02T10:00:00.000Z");
    // The company's age: as of the stock's date too, INSEE's change of the company's record beside
    // (kept by the reading's packed companies for each merchant).
    const ages = await fast.store.rows<SignalRow & { siret: string }>(
      `SELECT m.siret, s.verified_at, s.changed_at, s.origin FROM signals s JOIN merchants m ON m.ab_id = s.ab_id
       WHERE s.key = 'company_age_years'`,
    );
    expect(ages).toHaveLength(first.expected + 6);
    for (const age of ages) {
      expect(age).toMatchObject({ verified_at: stockDate, origin: "sirene" });
      if (age.siret.startsWith(ODD_SIREN)) expect(age.changed_at).toBe("2024-02-03T04:05:06.000Z");
      else expect(age.changed_at).toMatch(/^20(0[89]|1\d|2[0-6])-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    }
    expect(report.rejected.map((rejection) => rejection.error)).toEqual([
      "enseigne1Etablissement: 130 characters, more than the 120 a business name may have",
      `siret: "${badSiret(makeSiret(ODD_SIREN, "0006"))}" is not a valid SIRET`,
      expect.stringMatching(/^siret: "\d{14}" is not a valid SIRET$/),
      expect.stringMatching(/^siret: "\d{14}" is not a valid SIRET$/),
    ]);
    expect(report.skipped.closed).toBeGreaterThan(2_000);

    // An operator changes a merchant: its digest no longer counts, the domain decides its row.
    const [changed] = await fast.store.rows<{ ab_id: string }>("SELECT ab_id FROM merchants ORDER BY ab_id LIMIT 1");
    for (const each of [fast, domain]) {
      await each.store.run(
        "UPDATE merchants SET business_name = 'RENOMME PAR L OPERATEUR', revision = revision + 1 WHERE ab_id = $1",
        [changed?.ab_id],
      );
    }
    const later = await writeNationalStock({
      dir: path.join(at, "later"),
      rows: 4_000,
      variant: 1,
      extraRows: ODD_ROWS,
      extraUnits,
    });
    // Dated by the operator: a month after the first stock.
    const second = await bothWays(fast, domain, later, "2026-12-01");
    expect(second.stock_date).toBe("2026-12-01T00:00:00.000Z");
    expect(second.closed).toBeGreaterThan(3);
    expect(second.updated).toBeGreaterThan(3);
    expect(second.created).toBeGreaterThan(3);
    // Most of the country is listed unchanged: confirmed as of the new date, nothing else written.
    expect(second.confirmed).toBeGreaterThan(first.expected / 2);
    expect(second.unchanged).toBe(0);
    for (const signal of (await identities(fast)).values()) expect(signal.verified_at).toBe("2026-12-01T00:00:00.000Z");
    // The same stock again: nothing changes, and the fast path knows it from the digests (but for
    // the establishment opened then closed in the same file, which each reading opens and closes).
    const again = await bothWays(fast, domain, later, "2026-12-01");
    expect([again.created, again.updated, again.archived, again.closed, again.confirmed]).toEqual([0, 1, 0, 1, 0]);
    expect(again.unchanged).toBe(
      second.created + second.updated + second.closed + second.confirmed + second.unchanged - 2,
    );
  }, 180_000);
});
