/**
 * The SIRENE import says what INSEE's files say and no more: names in INSEE's order and never
 * made up, the company's creation date, the check's date as the file gives it, towns as the
 * commune reference writes them, streets as people write them. Rows are read from text in the
 * published layouts (real rows of StockEtablissement as public projects quote them in their
 * tests, beside rows written here), then applied to a real store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { formatAddress } from "../../src/domain/format.ts";
import {
  applyOfficialEstablishment,
  applyOfficialLegalUnit,
  SIRENE_DATASET_URL,
} from "../../src/domain/merchants/apply-official-establishment.ts";
import type { MerchantModification, MerchantRegistryView } from "../../src/domain/merchants/merchant-registry.ts";
import type { OfficialEstablishment, OfficialLegalUnit } from "../../src/domain/merchants/official-establishment.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { csvRows } from "../../src/import/csv.ts";
import {
  ESTABLISHMENT_COLUMNS,
  establishmentOf,
  legalUnitOf,
  placedAt,
  streetFromColumns,
  streetFromLabel,
} from "../../src/import/sirene/establishments.ts";
import { ESTABLISHMENT_HEADER } from "../../src/import/sirene/layout.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryView } from "../../src/store/merchant-registry-repository.ts";
import { legalUnitsCsv } from "../helpers/sirene-stock.ts";

/** StockEtablissement's 2019 layout (48 columns): today's without the address id, Lambert coordinates, last number and NAF 2025 columns. */
const HEADER_2019 = ESTABLISHMENT_HEADER.filter(
  (name) =>
    ![
      "identifiantAdresseEtablissement",
      "coordonneeLambertAbscisseEtablissement",
      "coordonneeLambertOrdonneeEtablissement",
      "dernierNumeroVoieEtablissement",
      "indiceRepetitionDernierNumeroVoieEtablissement",
      "activitePrincipaleNAF25Etablissement",
    ].includes(name),
);

/** Real rows of the 2019 layout, as quoted in public projects' tests (INSEE, Licence Ouverte). */
const REAL_ROWS_2019 = [
  "999992357,00015,99999235700015,O,2003-12-31,01,2017,,2019-06-24T14:13:19,true,5,,6,,RUE,DE L ETOILE,80090,AMIENS,,,80021,,,,,,,,,,,,,,,,,,,2012-01-22,A,,,,,81.10Z,NAFRev2,O",
  '321569527,00062,32156952700062,O,2014-11-18,12,2018,,2020-11-20T08:33:40,false,3,,5,B,RUE,DE L ASILE POPINCOURT,75011,PARIS 11,,,75111,,,,,,,,,,,,,,,,,,,2020-11-04,F,ASIE INFINY,,,"AUSTRALIE TOURS, NOUVELLE-ZELANDE VOYAGES, ALMA LATINA VOYAGES",79.12Z,NAFRev2,O',
  "999990666,00037,99999066600037,O,2000-07-01,NN,,,2020-05-20T03:34:55,true,3,8 A 10,8,,RUE,D'ASTORG,75008,PARIS 8,,,75108,,,,,,,,,,,,,,,,,,,2008-01-01,A,,,,,65.11Z,NAFRev2,N",
  "999990609,00011,99999060900011,O,,NN,,,,true,1,,4,,PL,DE LA PYRAMIDE,92800,PUTEAUX,,,92062,,,,,,,,,,,,,,,,,,,1991-12-30,F,,,,,73.1Z,NAF1993,N",
];

async function* chunks(text: string): AsyncGenerator<string> {
  yield text;
}

async function readEstablishments(header: readonly string[], rows: string[]): Promise<OfficialEstablishment[]> {
  const read: OfficialEstablishment[] = [];
  for await (const item of csvRows(chunks(`${header.join(",")}\r\n${rows.join("\r\n")}\r\n`), ESTABLISHMENT_COLUMNS)) {
    if ("error" in item) throw new Error(`line ${item.line}: ${item.error}`);
    read.push(establishmentOf(item.row));
  }
  return read;
}

describe("an establishment row, read as INSEE writes it", () => {
  it("reads real rows of the 2019 layout: streets as people write them, names as given, dates only when given", async () => {
    const [amiens, popincourt, astorg, puteaux] = await readEstablishments(HEADER_2019, REAL_ROWS_2019);
    expect(amiens).toMatchObject({
      siret: "99999235700015",
      active: true,
      public: true,
      nafCode: "81.10Z",
      name: null,
      street: "6 rue de l'Etoile",
      postalCode: "80090",
      city: "AMIENS",
      inseeCode: "80021",
      createdOn: "2003-12-31",
      processedAt: "2019-06-24T14:13:19.000Z",
    });
    // The sign comes first; the usual name (quoted, with commas) only when there is no sign.
    expect(popincourt).toMatchObject({ name: "ASIE INFINY", street: "5 bis rue de l'Asile Popincourt", active: false });
    expect(astorg).toMatchObject({ street: "8 rue d'Astorg", name: null });
    // No processing date in the row: none is made up.
    expect(puteaux).toMatchObject({ processedAt: null, createdOn: null, street: "4 place de la Pyramide" });
  });

  it("writes street names in people's case, never adding letters, and leaves out the parts a row leaves empty", () => {
    expect(streetFromColumns("13", "", "CHE", "DES JARDINS NEUFS")).toBe("13 chemin des Jardins Neufs");
    expect(streetFromColumns("", "", "AV", "DE LA LIBERATION")).toBe("avenue de la Liberation");
    expect(streetFromColumns("12", "", "RUE", "DE LA REPUBLIQUE")).toBe("12 rue de la Republique");
    expect(streetFromColumns("3", "T", "BD", "LOUIS XIV")).toBe("3 ter boulevard Louis XIV");
    expect(streetFromColumns("", "", "", "LE BOURG")).toBe("Le Bourg");
    expect(streetFromColumns("", "", "", "")).toBe("");
    // The lookup tables are Maps: a column holding an object's own property names is text like any other.
    expect(streetFromColumns("12", "toString", "constructor", "DU MOULIN")).toBe("12 tostring constructor du Moulin");
    expect(streetFromColumns("1", "__proto__", "hasOwnProperty", "X")).toBe("1 __proto__ hasownproperty X");
  });

  it("takes the street from a geocoded file's label when the geocoder matched the house or the street", async () => {
    const [shop] = await readEstablishments(ESTABLISHMENT_HEADER, [
      ESTABLISHMENT_HEADER.map(
        (name) =>
          ({
            siren: "443061841",
            nic: "00047",
            siret: "44306184100047",
            numeroVoieEtablissement: "12",
            typeVoieEtablissement: "RUE",
            libelleVoieEtablissement: "DE LA REPUBLIQUE",
            codePostalEtablissement: "13300",
            libelleCommuneEtablissement: "SALON-DE-PROVENCE",
            codeCommuneEtablissement: "13103",
          })[name] ?? "",
      ).join(","),
    ]);
    if (!shop) throw new Error("no row read");
    const position = (type: string) => ({
      latitude: 43.64,
      longitude: 5.09,
      score: 0.95,
      type,
      label: "12 Rue de la République 13300 Salon-de-Provence",
    });
    expect(placedAt(shop, position("housenumber")).street).toBe("12 rue de la République");
    expect(placedAt(shop, position("municipality")).street).toBe("12 rue de la Republique");
    expect(placedAt(shop, null).street).toBe("12 rue de la Republique");
    expect(streetFromLabel("Lieu-dit Le Bourg 33410 Cadillac", "33410", "street")).toBe("lieu-dit Le Bourg");
    expect(streetFromLabel("12 Rue de la Paix 75002 Paris", "13300", "housenumber")).toBeNull();
  });

  it("reads a company's name as INSEE gives it: its name, or a person's usual first name and name of use", () => {
    expect(
      legalUnitOf({
        siren: "123456782",
        statutDiffusionUniteLegale: "O",
        denominationUniteLegale: "AGA",
        dateCreationUniteLegale: "2005-12-06",
      }),
    ).toEqual({ siren: "123456782", legalName: "AGA", legalForm: null, createdOn: "2005-12-06" });
    expect(
      legalUnitOf({
        siren: "123456782",
        statutDiffusionUniteLegale: "O",
        prenomUsuelUniteLegale: "JEANNE",
        nomUniteLegale: "MARTIN",
        nomUsageUniteLegale: "DURAND",
        categorieJuridiqueUniteLegale: "1000",
      }),
    ).toEqual({ siren: "123456782", legalName: "JEANNE DURAND", legalForm: "1000", createdOn: null });
    // A sole trader whose name is not to be diffused gives no name at all.
    expect(legalUnitOf({ siren: "123456782", statutDiffusionUniteLegale: "P", nomUniteLegale: "[ND]" })).toBeNull();
  });
});

const NOW = new Date("2026-11-26T10:00:00.000Z");
let dir: string;
let db: Db;
let registry: MerchantRegistryView;
const communes = createCommuneLookup();
const apply = (establishment: OfficialEstablishment, at: Date = NOW) =>
  applyOfficialEstablishment({ registry, communes, now: () => at }, establishment, "import:sirene");

/** Writes on a merchant as another door would (the merchant, an operator, the official API). */
function rewrite(
  abId: string,
  change: Pick<MerchantModification, "fields"> & Partial<Pick<MerchantModification, "signals">>,
) {
  const found = registry.find(abId);
  if (!found) throw new Error(`${abId} not found`);
  const written = registry.update({
    abId,
    expectedRevision: found.revision,
    products: null,
    territorialProof: undefined,
    ...change,
    event: { at: NOW.toISOString(), actor: "operator:test", action: "updated", changes: {}, reason: null },
    feed: "updated",
  });
  if (!written) throw new Error(`${abId} changed meanwhile`);
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-faithful-"));
  db = openDatabase(path.join(dir, "abeille.db"));
  registry = createMerchantRegistryView(db);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
function restaurant(
  values: Partial<OfficialEstablishment> = {},
  unit: Partial<OfficialLegalUnit> | null = {},
): OfficialEstablishment {
  counter += 1;
  const siren = makeSiren(String(81234500 + counter));
  return {
    siret: makeSiret(siren, "0001"),
    siren,
    public: true,
    active: true,
    nafCode: "56.10A",
    nafCode2025: "56.11G",
    name: null,
    street: "2 rue de l'Eglise",
    postalCode: "33410",
    city: "CADILLAC",
    inseeCode: "33081",
    createdOn: "2019-03-11",
    processedAt: "2025-06-02T09:12:44.000Z",
    // A stock whose latest processing is this row's.
    asOf: "2025-06-02T09:12:44.000Z",
    legalUnit: unit === null ? null : { siren, legalName: "AGA", createdOn: "2005-12-06", legalForm: "5499", ...unit },
    ...values,
  };
}

describe("an establishment applied to the registry", () => {
  it("names a merchant as INSEE does, never after its trade and town; without its company, it waits for the legal units file", () => {
    const row = restaurant();
    expect(apply({ ...row, legalUnit: null })).toEqual({ kind: "skipped", reason: "name_unknown" });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    const { merchant, signals } = registry.find(created.abId) ?? { merchant: null, signals: [] };
    expect(merchant).toMatchObject({
      businessName: "AGA",
      legalName: "AGA",
      city: "Cadillac-sur-Garonne",
      foundedOn: "2005-12-06",
      street: "2 rue de l'Eglise",
    });
    expect(signals.map((signal) => [signal.key, signal.value, signal.verifiedAt]).sort()).toEqual([
      ["company_age_years", "2005-12-06", "2025-06-02T09:12:44.000Z"],
      ["siret_verified", true, "2025-06-02T09:12:44.000Z"],
    ]);
    // The company's age is counted when read (20 years on 26 November 2026), not at INSEE's processing (19).
    const assessment = assessMerchant(merchant as NonNullable<typeof merchant>, signals, {
      orderRailEnabled: false,
      now: NOW,
    });
    expect(assessment.trust.contributions.find((item) => item.signal === "company_age_years")?.points).toBe(12);
  });

  it("takes the town as the commune reference writes it, hyphens and accents included", () => {
    const salon = apply(restaurant({ city: "SALON DE PROVENCE", inseeCode: "13103", postalCode: "13300" }));
    const verneuil = apply(restaurant({ city: "VERNEUIL SUR SEINE", inseeCode: "78642", postalCode: "78480" }));
    if (salon.kind !== "created" || verneuil.kind !== "created") throw new Error("not created");
    expect(registry.find(salon.abId)?.merchant.city).toBe("Salon-de-Provence");
    expect(registry.find(verneuil.abId)?.merchant.city).toBe("Verneuil-sur-Seine");
  });

  it("takes in an establishment of any current commune: one the reference does not place keeps the geocoded file's position, or none", () => {
    // Chapeau (03054, 231 inhabitants) has no coordinates in the reference: nothing is made up for it.
    const unplaced = apply(restaurant({ city: "CHAPEAU", inseeCode: "03054", postalCode: "03340" }));
    const geocoded = apply(
      restaurant({
        city: "CHAPEAU",
        inseeCode: "03054",
        postalCode: "03340",
        position: { latitude: 46.4895, longitude: 3.5313, score: 0.91, type: "housenumber" },
      }),
    );
    if (unplaced.kind !== "created" || geocoded.kind !== "created") throw new Error("not created");
    const proof = (abId: string) => {
      const found = registry.find(abId)?.territorialProof;
      return [found?.cityNormalized, found?.latitude, found?.longitude, found?.geocodingSource, found?.geocodingScore];
    };
    expect(proof(unplaced.abId)).toEqual(["Chapeau", null, null, null, null]);
    expect(proof(geocoded.abId)).toEqual(["Chapeau", 46.4895, 3.5313, "geo_sirene_housenumber", 0.91]);
  });

  it("reads SIRENE's municipal arrondissement codes (Paris, Lyon, Marseille) as their commune", () => {
    const marseille = apply(restaurant({ city: "MARSEILLE 2", inseeCode: "13202", postalCode: "13002" }));
    const paris = apply(restaurant({ city: "PARIS 8", inseeCode: "75108", postalCode: "75008" }));
    if (marseille.kind !== "created" || paris.kind !== "created") throw new Error("not created");
    expect(registry.find(marseille.abId)?.merchant.city).toBe("Marseille");
    expect(registry.find(paris.abId)?.merchant).toMatchObject({ city: "Paris", postalCode: "75008" });
  });

  it("lets a later legal units file correct the company's name and founding date, and a sign replace a name that stood in", () => {
    const row = restaurant({}, { legalName: "A G A", createdOn: "2019-03-11" });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    expect(registry.find(created.abId)?.merchant).toMatchObject({ businessName: "A G A", foundedOn: "2019-03-11" });
    const later = {
      ...row,
      legalUnit: { siren: row.siren, legalName: "AGA", createdOn: "2005-12-06", legalForm: "5499" },
    };
    expect(apply(later, new Date("2026-11-27T10:00:00Z"))).toEqual({ kind: "updated", abId: created.abId });
    expect(registry.find(created.abId)?.merchant).toMatchObject({
      businessName: "AGA",
      legalName: "AGA",
      foundedOn: "2005-12-06",
    });
    expect(apply({ ...later, name: "CHEZ AGA" })).toEqual({ kind: "updated", abId: created.abId });
    expect(registry.find(created.abId)?.merchant).toMatchObject({ businessName: "CHEZ AGA", legalName: "AGA" });
  });

  it("takes the sign when the same row renames the company, even where the name stood in for the company's", () => {
    const row = restaurant({}, { legalName: "A G A" });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    const renamedWithSign = {
      ...row,
      name: "CHEZ AGA",
      legalUnit: { siren: row.siren, legalName: "AGA", createdOn: "2005-12-06", legalForm: "5499" },
    };
    expect(apply(renamedWithSign)).toEqual({ kind: "updated", abId: created.abId });
    expect(registry.find(created.abId)?.merchant).toMatchObject({ businessName: "CHEZ AGA", legalName: "AGA" });
  });

  it("replaces a name an earlier import made up from the trade and town, once the company is known", () => {
    const row = restaurant();
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    rewrite(created.abId, {
      fields: { businessName: "Restaurant Cadillac-Sur-Garonne", legalName: "Restaurant Cadillac-Sur-Garonne" },
    });
    apply(row, new Date("2026-11-27T10:00:00Z"));
    expect(registry.find(created.abId)?.merchant).toMatchObject({ businessName: "AGA", legalName: "AGA" });
  });

  it("holds the check from the stock's date, never from the clock, and only when the stock has a date", () => {
    const undated = restaurant({ processedAt: null, asOf: null });
    expect(apply(undated)).toEqual({ kind: "skipped", reason: "undated" });
    const dated = apply({ ...undated, asOf: "2026-11-01T00:00:00.000Z" });
    if (dated.kind !== "created") throw new Error(dated.kind);
    const identity = registry.find(dated.abId)?.signals.find((signal) => signal.key === "siret_verified");
    expect([identity?.verifiedAt, identity?.expiresAt, identity?.changedAt]).toEqual([
      "2026-11-01T00:00:00.000Z",
      "2028-10-31T00:00:00.000Z",
      undefined,
    ]);
  });

  it("verifies an establishment INSEE has not touched for years as of the stock's date, keeping INSEE's date as the record's last change", () => {
    const untouched = apply(
      restaurant(
        { processedAt: "2019-04-02T10:00:00.000Z", asOf: "2026-12-01T00:00:00.000Z" },
        { processedAt: "2018-01-05T08:00:00.000Z" },
      ),
    );
    if (untouched.kind !== "created") throw new Error(untouched.kind);
    const signals = registry.find(untouched.abId)?.signals ?? [];
    expect(
      signals.map((signal) => [signal.key, signal.verifiedAt, signal.expiresAt, signal.changedAt, signal.origin]),
    ).toEqual([
      [
        "company_age_years",
        "2026-12-01T00:00:00.000Z",
        "2028-11-30T00:00:00.000Z",
        "2018-01-05T08:00:00.000Z",
        "sirene",
      ],
      ["siret_verified", "2026-12-01T00:00:00.000Z", "2028-11-30T00:00:00.000Z", "2019-04-02T10:00:00.000Z", "sirene"],
    ]);
    // A record INSEE changed after the date the source speaks as of is confirmed from its change.
    const changedLater = apply(
      restaurant({ processedAt: "2026-12-01T09:30:00.000Z", asOf: "2026-12-01T00:00:00.000Z" }),
    );
    if (changedLater.kind !== "created") throw new Error(changedLater.kind);
    const identity = registry.find(changedLater.abId)?.signals.find((signal) => signal.key === "siret_verified");
    expect([identity?.verifiedAt, identity?.changedAt]).toEqual([
      "2026-12-01T09:30:00.000Z",
      "2026-12-01T09:30:00.000Z",
    ]);
  });

  it("confirms an unchanged establishment as of a newer stock: its signals' dates move and nothing else; the same stock again changes nothing", () => {
    const row = restaurant({ processedAt: "2021-03-04T05:06:07.000Z", asOf: "2026-11-01T00:00:00.000Z" });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    const before = registry.find(created.abId);
    const events = createMerchantRegistryView(db).events(created.abId).length;
    const newer = { ...row, asOf: "2026-12-01T00:00:00.000Z" };
    expect(apply(newer, new Date("2026-12-02T08:00:00.000Z"))).toEqual({ kind: "confirmed", abId: created.abId });
    const after = registry.find(created.abId);
    // The merchant's record, revision, audit log and feed are as they were.
    expect([after?.revision, after?.merchant]).toEqual([before?.revision, before?.merchant]);
    expect(createMerchantRegistryView(db).events(created.abId).length).toBe(events);
    expect(after?.signals.map((signal) => [signal.key, signal.verifiedAt, signal.expiresAt, signal.changedAt])).toEqual(
      [
        ["company_age_years", "2026-12-01T00:00:00.000Z", "2028-11-30T00:00:00.000Z", undefined],
        ["siret_verified", "2026-12-01T00:00:00.000Z", "2028-11-30T00:00:00.000Z", "2021-03-04T05:06:07.000Z"],
      ],
    );
    expect(apply(newer)).toEqual({ kind: "unchanged", abId: created.abId });
    // An older stock does not move it back.
    expect(apply(row)).toEqual({ kind: "unchanged", abId: created.abId });
    // A newer stock where it closed records its closure at once (a change, not a confirmation):
    // the merchant keeps its status and stays resolvable, since the closed period's start.
    const closing = {
      ...newer,
      active: false,
      closedOn: "2026-12-20",
      processedAt: "2026-12-21T08:00:00.000Z",
      asOf: "2027-01-01T00:00:00.000Z",
    };
    expect(apply(closing)).toEqual({ kind: "closed", abId: created.abId });
    const closed = registry.find(created.abId);
    expect([closed?.merchant.status, closed?.merchant.closure?.closedOn, closed?.merchant.closure?.sourceUrl]).toEqual([
      "PROBATION",
      "2026-12-20",
      SIRENE_DATASET_URL,
    ]);
    expect(apply(closing)).toEqual({ kind: "unchanged", abId: created.abId });
    // Open again in a later stock: SIRENE's closure is lifted (an update, with its audit event).
    expect(apply({ ...newer, asOf: "2027-02-01T00:00:00.000Z" })).toEqual({ kind: "updated", abId: created.abId });
    expect(registry.find(created.abId)?.merchant.closure).toBeNull();
  });

  it("never puts a later check back to an older row's date", () => {
    const row = restaurant();
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    const checked = "2026-11-20T08:00:00.000Z";
    rewrite(created.abId, {
      fields: {},
      signals: [
        {
          key: "siret_verified",
          status: "verified",
          proofStatus: "official_source_verified",
          source: "official_api",
          sourceUrl: "https://recherche-entreprises.api.gouv.fr/search?q=x",
          value: true,
          verifiedAt: checked,
          recordedAt: checked,
          expiresAt: "2028-11-19T08:00:00.000Z",
        },
      ],
    });
    expect(apply(row)).toEqual({ kind: "unchanged", abId: created.abId });
    const identity = registry.find(created.abId)?.signals.find((signal) => signal.key === "siret_verified");
    expect([identity?.source, identity?.verifiedAt]).toEqual(["official_api", checked]);
    // A newer stock confirms it as its own: the same check, said by SIRENE's file as of its date.
    expect(apply({ ...row, processedAt: "2026-11-25T06:00:00.000Z", asOf: "2026-12-01T00:00:00.000Z" })).toEqual({
      kind: "confirmed",
      abId: created.abId,
    });
    const confirmed = registry.find(created.abId)?.signals.find((signal) => signal.key === "siret_verified");
    expect([confirmed?.source, confirmed?.origin, confirmed?.verifiedAt]).toEqual([
      "official_file",
      "sirene",
      "2026-12-01T00:00:00.000Z",
    ]);
  });

  it("follows the company API Sirene answers for: renamed and confirmed as of the day, closed when it ceased, nothing taken from one not public", () => {
    const row = restaurant({ name: null });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    const deps = { registry, communes, now: () => NOW };
    const day = {
      siren: row.siren,
      ceased: false,
      ceasedOn: null,
      unit: { siren: row.siren, legalName: "AGA PARIS", createdOn: "2005-12-06", legalForm: "5499" },
      processedAt: "2026-12-03T10:00:00.000Z",
      asOf: "2026-12-03T00:00:00.000Z",
      url: `https://api.insee.fr/api-sirene/3.11/siren/${row.siren}`,
    };
    expect(applyOfficialLegalUnit(deps, day, "import:sirene-daily")).toEqual([{ kind: "updated", abId: created.abId }]);
    const renamed = registry.find(created.abId);
    // The business name only stood in for the company's: it follows it.
    expect([renamed?.merchant.legalName, renamed?.merchant.businessName]).toEqual(["AGA PARIS", "AGA PARIS"]);
    const age = renamed?.signals.find((signal) => signal.key === "company_age_years");
    expect([age?.source, age?.sourceUrl, age?.verifiedAt, age?.changedAt]).toEqual([
      "official_api",
      day.url,
      "2026-12-03T10:00:00.000Z",
      "2026-12-03T10:00:00.000Z",
    ]);
    expect(applyOfficialLegalUnit(deps, day, "import:sirene-daily")).toEqual([
      { kind: "unchanged", abId: created.abId },
    ]);
    expect(applyOfficialLegalUnit(deps, { ...day, unit: null }, "import:sirene-daily")).toEqual([
      { kind: "skipped", reason: "not_public" },
    ]);
    // Ceased since 30 November (its ceased period's dateDebut): the merchant's closure is recorded,
    // its status kept (resolvable, never a search hit), as a closed establishment's is.
    const ceased = { ...day, ceased: true, ceasedOn: "2026-11-30" };
    expect(applyOfficialLegalUnit(deps, ceased, "import:sirene-daily")).toEqual([
      { kind: "closed", abId: created.abId },
    ]);
    const closed = registry.find(created.abId)?.merchant;
    expect(closed?.status).toBe("PROBATION");
    expect(closed?.closure).toEqual({
      closedOn: "2026-11-30",
      source: "sirene",
      sourceUrl: day.url,
      label: "Unité légale cessée (état administratif C)",
      announcementId: null,
      recordedAt: NOW.toISOString(),
    });
    expect(createMerchantRegistryView(db).events(created.abId).at(-1)?.reason).toBe(
      "unité légale cessée au répertoire SIRENE le 2026-11-30",
    );
    // The same answer again: the closure stands, nothing written.
    expect(applyOfficialLegalUnit(deps, ceased, "import:sirene-daily")).toEqual([
      { kind: "unchanged", abId: created.abId },
    ]);
    // Without dateDebut: since the day INSEE processed it.
    const otherRow = restaurant({ name: null });
    const other = apply(otherRow);
    if (other.kind !== "created") throw new Error(other.kind);
    const otherDay = { ...day, siren: otherRow.siren, ceased: true, ceasedOn: null };
    expect(applyOfficialLegalUnit(deps, otherDay, "import:sirene-daily")).toEqual([
      { kind: "closed", abId: other.abId },
    ]);
    expect(registry.find(other.abId)?.merchant.closure?.closedOn).toBe("2026-12-03");
  });

  it("keeps the merchant's own spelling of the same street, and takes a street that is another one", () => {
    const row = restaurant({ street: "12 rue de la Republique" });
    const created = apply(row);
    if (created.kind !== "created") throw new Error(created.kind);
    rewrite(created.abId, { fields: { street: "12 rue de la République" } });
    expect(apply(row)).toEqual({ kind: "unchanged", abId: created.abId });
    expect(registry.find(created.abId)?.merchant.street).toBe("12 rue de la République");
    apply({ ...row, street: "14 rue de la Republique" });
    expect(registry.find(created.abId)?.merchant.street).toBe("14 rue de la Republique");
  });

  it("prints an address without the parts it lacks", () => {
    expect(formatAddress({ street: "", postalCode: "33410", city: "Cadillac-sur-Garonne" })).toBe(
      "33410 Cadillac-sur-Garonne",
    );
    expect(formatAddress({ street: "2 rue de l'Eglise", postalCode: "33410", city: "Cadillac-sur-Garonne" })).toBe(
      "2 rue de l'Eglise, 33410 Cadillac-sur-Garonne",
    );
  });

  it("reads a real legal units row layout through the published header", async () => {
    const text = legalUnitsCsv([
      {
        siren: "443061841",
        statutDiffusionUniteLegale: "O",
        dateCreationUniteLegale: "2002-10-01",
        denominationUniteLegale: "GOOGLE FRANCE",
        categorieJuridiqueUniteLegale: "5499",
      },
    ]);
    const units: (OfficialLegalUnit | null)[] = [];
    for await (const item of csvRows(chunks(text), ["siren"]))
      if (!("error" in item)) units.push(legalUnitOf(item.row));
    expect(units).toEqual([
      { siren: "443061841", legalName: "GOOGLE FRANCE", legalForm: "5499", createdOn: "2002-10-01" },
    ]);
  });
});
