/**
 * `npm run import -- sirene` on a StockEtablissement file written in INSEE's own layout (format
 * 3.11 with the NAF 2025 column: the header below is the published one, in its order), run as its
 * own process on the DATA_DIR the built server serves.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { yearsBetween } from "../../src/domain/calendar.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { csvLine } from "../../src/import/csv.ts";
import { LEGAL_UNIT_HEADER as UNIT_HEADER } from "../../src/import/sirene/layout.ts";
import { openDatabase } from "../../src/store/db.ts";
import {
  ESTABLISHMENT_HEADER as HEADER,
  legalUnitsCsv,
  publicCompany,
  stockRow as row,
} from "../helpers/sirene-stock.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 30 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const siren = makeSiren("55566677");
const bakery = makeSiret(siren, "0001");
const base = {
  siren,
  statutDiffusionEtablissement: "O",
  dateCreationEtablissement: "2011-09-15",
  dateDernierTraitementEtablissement: "2026-10-02T08:15:31",
  numeroVoieEtablissement: "14",
  indiceRepetitionEtablissement: "B",
  typeVoieEtablissement: "AV",
  libelleVoieEtablissement: "ROGER SALENGRO",
  codePostalEtablissement: "69100",
  libelleCommuneEtablissement: "VILLEURBANNE",
  codeCommuneEtablissement: "69266",
  etatAdministratifEtablissement: "A",
  enseigne1Etablissement: "AU PAIN DORE",
  activitePrincipaleEtablissement: "10.71C",
  nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
};

/** The companies of the establishments below, as StockUniteLegale names them. */
function unitsFile(name: string, units: Record<string, string>[]): string {
  const file = path.join(server.dataDir, name);
  writeFileSync(file, legalUnitsCsv(units));
  return file;
}

function stockFile(name: string, rows: string[]): string {
  const file = path.join(server.dataDir, name);
  writeFileSync(file, `${HEADER.join(",")}\r\n${rows.join("\r\n")}\r\n`);
  return file;
}

async function importSirene(file: string, ...more: string[]) {
  try {
    const { stdout } = await run(
      process.execPath,
      ["jobs/import.ts", "sirene", "--etablissements", file, ...more, "--json"],
      {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
      },
    );
    return { code: 0, report: JSON.parse(stdout) };
  } catch (failure) {
    const { code, stdout } = failure as { code: number; stdout: string };
    return { code, report: JSON.parse(stdout) };
  }
}

describe("npm run import -- sirene", () => {
  it("takes active public establishments of covered trades in, skips the rest by reason, and records what closes as closed", async () => {
    const file = stockFile("StockEtablissement_utf8.csv", [
      row({ ...base, nic: "00013", siret: bakery }),
      row({ ...base, nic: "00021", siret: makeSiret(siren, "0002"), statutDiffusionEtablissement: "P" }),
      row({ ...base, nic: "00039", siret: makeSiret(siren, "0003"), etatAdministratifEtablissement: "F" }),
      row({ ...base, nic: "00047", siret: makeSiret(siren, "0004"), activitePrincipaleEtablissement: "62.01Z" }),
      "123,456",
      row({ ...base, nic: "00099", siret: "55566677700099" }),
    ]);
    const units = unitsFile("StockUniteLegale_1.csv", [publicCompany(siren, "SARL AU PAIN DORE")]);
    const first = await importSirene(file, "--unites-legales", units);
    expect(first.code).toBe(1);
    expect(first.report).toEqual({
      read: 6,
      stock_date: "2026-10-02T08:15:31.000Z",
      created: 1,
      updated: 0,
      archived: 0,
      closed: 0,
      confirmed: 0,
      unchanged: 0,
      skipped: { not_public: 1, closed: 1, naf_not_covered: 1 },
      rejected: [
        { file: "establishments", line: 6, error: `2 fields where the header has ${HEADER.length}` },
        { file: "establishments", line: 7, error: "siret: 55566677700099 is not a valid SIRET" },
      ],
      rejected_count: 2,
    });

    const { body } = await server.getJson("/api/registry/search?q=Pain%20Dore");
    const found = body.results as { merchant: { ab_id: string; name: string; address: string } }[];
    expect(found.map((result) => [result.merchant.name, result.merchant.address])).toEqual([
      ["AU PAIN DORE", "14 bis avenue Roger Salengro, 69100 Villeurbanne"],
    ]);
    const abId = found[0]?.merchant.ab_id as string;
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(resolved.body._state.merchant_status).toBe("PROBATION");
    expect(resolved.body.merchant.siret).toBe(bakery);
    // The identity signal says where it came from: INSEE's published file, not an API call.
    const evidence = await server.getJson(`/api/verify/siret_verified/${abId}`);
    expect(evidence.body.data).toMatchObject({
      status: "verified",
      source: "official_file",
      proof_status: "official_source_verified",
      source_url:
        "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret",
      verified_at: "2026-10-02T08:15:31.000Z",
    });

    // The same file again: nothing changes.
    const again = await importSirene(file, "--unites-legales", units);
    expect(again.report).toMatchObject({ created: 0, updated: 0, unchanged: 1 });

    // A later stock: the establishment closed on 4 November (dateDebut), processed on the 20th, as
    // INSEE writes a closed row. Resolvable, saying closed, since when and from which source; never a hit.
    const closedRow = {
      ...base,
      nic: "00013",
      siret: bakery,
      etatAdministratifEtablissement: "F",
      dateDebut: "2026-11-04",
      dateDernierTraitementEtablissement: "2026-11-20T06:00:00",
    };
    const later = stockFile("StockEtablissement_later.csv", [row(closedRow)]);
    expect((await importSirene(later)).report).toMatchObject({ read: 1, closed: 1, archived: 0 });
    const closed = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(closed.status).toBe(200);
    expect(closed.body.merchant.closure).toEqual({
      closed_on: "2026-11-04",
      source: "sirene",
      source_url:
        "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret",
      label: "Établissement fermé (état administratif F)",
      announcement_id: null,
      recorded_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(closed.body._state.blocked_because).toContain("merchant_closed");
    expect((await server.getJson("/api/registry/search?q=Pain%20Dore")).body.results).toEqual([]);
    expect(await (await server.get(`/m/${abId}/`)).text()).toContain(
      "Établissement fermé depuis le 4 novembre 2026, selon le répertoire SIRENE (Insee) : Établissement fermé (état administratif F).",
    );
    // The same closed row again changes nothing.
    expect((await importSirene(later)).report).toMatchObject({ read: 1, closed: 0, unchanged: 1 });
    const { body: feed } = await server.getJson("/api/registry/changes?limit=1000");
    expect(
      (feed.changes as { ab_id: string; change: string }[])
        .filter((change) => change.ab_id === abId)
        .map((change) => change.change),
    ).toEqual(["created", "updated"]);

    // Open again in a later stock (a row corrected): SIRENE's closure is lifted, and it is a hit again.
    const reopened = stockFile("StockEtablissement_reopened.csv", [
      row({
        ...closedRow,
        etatAdministratifEtablissement: "A",
        dateDernierTraitementEtablissement: "2026-12-01T06:00:00",
      }),
    ]);
    expect((await importSirene(reopened)).report).toMatchObject({ read: 1, updated: 1 });
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).body.merchant.closure).toBeNull();
    const { body: again2 } = await server.getJson("/api/registry/search?q=Pain%20Dore");
    expect((again2.results as { merchant: { ab_id: string } }[]).map((hit) => hit.merchant.ab_id)).toEqual([abId]);
  }, 60_000);

  it("verifies every active establishment as of the stock's date, keeps INSEE's dates as the records' last changes, and moves the check forward with a newer stock", async () => {
    const companySiren = makeSiren("11199988");
    const untouched = makeSiret(companySiren, "0001");
    const recent = makeSiret(companySiren, "0002");
    const rows = [
      // Not touched by INSEE since 2018: most of France.
      {
        nic: "00013",
        siret: untouched,
        enseigne1Etablissement: "FOURNIL ANCIEN",
        dateDernierTraitementEtablissement: "2018-05-03T10:20:30",
      },
      {
        nic: "00021",
        siret: recent,
        enseigne1Etablissement: "FOURNIL RECENT",
        dateDernierTraitementEtablissement: "2026-11-28T16:45:00",
      },
    ].map((values) => row({ ...base, siren: companySiren, ...values }));
    const stock = stockFile("StockEtablissement_dated.csv", rows);
    const units = unitsFile("StockUniteLegale_dated.csv", [publicCompany(companySiren, "FOURNILS DATES")]);
    const first = await importSirene(stock, "--unites-legales", units);
    expect(first.report).toMatchObject({ read: 2, stock_date: "2026-11-28T16:45:00.000Z", created: 2, rejected: [] });
    const signalsOf = () => {
      const db = openDatabase(path.join(server.dataDir, "abeille.db"));
      const found = db.$client
        .prepare(
          `SELECT m.siret, s.verified_at, s.expires_at, s.changed_at, s.origin FROM signals s JOIN merchants m ON m.ab_id = s.ab_id
           WHERE m.siret IN (?, ?) AND s.key = 'siret_verified' ORDER BY m.siret`,
        )
        .all(untouched, recent) as { verified_at: string; expires_at: string; changed_at: string }[];
      db.$client.close();
      return found;
    };
    expect(signalsOf()).toEqual([
      {
        siret: untouched,
        verified_at: "2026-11-28T16:45:00.000Z",
        expires_at: "2028-11-27T16:45:00.000Z",
        changed_at: "2018-05-03T10:20:30.000Z",
        origin: "sirene",
      },
      {
        siret: recent,
        verified_at: "2026-11-28T16:45:00.000Z",
        expires_at: "2028-11-27T16:45:00.000Z",
        changed_at: "2026-11-28T16:45:00.000Z",
        origin: "sirene",
      },
    ]);
    // The establishment untouched since 2018 counts as verified: its identity check holds.
    const { body } = await server.getJson("/api/registry/search?q=Fournil%20Ancien");
    const abId = (body.results as { merchant: { ab_id: string } }[])[0]?.merchant.ab_id as string;
    const evidence = await server.getJson(`/api/verify/siret_verified/${abId}`);
    expect(evidence.body.data).toMatchObject({ status: "verified", verified_at: "2026-11-28T16:45:00.000Z" });

    // The same stock again writes nothing; the next month's stock confirms both as of its date.
    expect((await importSirene(stock, "--unites-legales", units)).report).toMatchObject({ confirmed: 0, unchanged: 2 });
    const { body: feedBefore } = await server.getJson("/api/registry/changes?limit=1000");
    const newer = await importSirene(stock, "--unites-legales", units, "--file-date", "2026-12-01");
    expect(newer.report).toMatchObject({
      stock_date: "2026-12-01T00:00:00.000Z",
      created: 0,
      updated: 0,
      confirmed: 2,
      unchanged: 0,
    });
    expect(signalsOf().map((signal) => [signal.verified_at, signal.expires_at, signal.changed_at])).toEqual([
      ["2026-12-01T00:00:00.000Z", "2028-11-30T00:00:00.000Z", "2018-05-03T10:20:30.000Z"],
      ["2026-12-01T00:00:00.000Z", "2028-11-30T00:00:00.000Z", "2026-11-28T16:45:00.000Z"],
    ]);
    // A confirmation is no change of the merchant's record: the change feed did not move.
    const { body: feedAfter } = await server.getJson("/api/registry/changes?limit=1000");
    expect(feedAfter.changes).toEqual(feedBefore.changes);
    expect((await server.getJson(`/api/verify/siret_verified/${abId}`)).body.data.verified_at).toBe(
      "2026-12-01T00:00:00.000Z",
    );

    // Every surface says how fresh SIRENE's word is: confirmed by the stock of 1 December, INSEE's
    // record last changed in May 2018 (merchant.sources, and the same dates on each document).
    const sources = [
      { source: "sirene", confirmed_at: "2026-12-01T00:00:00.000Z", changed_at: "2018-05-03T10:20:30.000Z" },
    ];
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).body.merchant.sources).toEqual(sources);
    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
    expect([card.merchant.sources, card.decision_card.merchant.sources]).toEqual([sources, sources]);
    expect((await server.getJson(`/api/merchants/${abId}/ai-digest`)).body.data.sources).toEqual(sources);
    const jsonld = JSON.parse(await (await server.get(`/api/merchants/${abId}/jsonld`)).text()) as {
      additionalProperty: { propertyID: string; value: unknown }[];
    };
    expect(
      jsonld.additionalProperty
        .filter((property) => property.propertyID.startsWith("abeille:sources."))
        .map((property) => [property.propertyID, property.value]),
    ).toEqual([
      ["abeille:sources.sirene.confirmed_at", "2026-12-01T00:00:00.000Z"],
      ["abeille:sources.sirene.changed_at", "2018-05-03T10:20:30.000Z"],
    ]);
    const said = "Répertoire SIRENE (INSEE) : confirmé le 1er décembre 2026 (fiche modifiée par l'INSEE le 3 mai 2018)";
    expect(await (await server.get(`/m/${abId}/ai.md`)).text()).toContain(`- ${said}`);
    expect(await (await server.get(`/m/${abId}/`)).text()).toContain(`<li>${said.replace("'", "&#39;")}</li>`);
  }, 60_000);

  it("takes the company's name and creation date from the legal units file, read for the kept establishments only", async () => {
    const companySiren = makeSiren("44433322");
    const shop = makeSiret(companySiren, "0001");
    const establishments = stockFile("StockEtablissement_2.csv", [
      row({ ...base, siren: companySiren, nic: "00015", siret: shop, enseigne1Etablissement: "LA FOURNEE" }),
    ]);
    const units = path.join(server.dataDir, "StockUniteLegale_utf8.csv");
    const unit = (values: Record<string, string>) => csvLine(UNIT_HEADER, values);
    writeFileSync(
      units,
      `${UNIT_HEADER.join(",")}\n${unit({ siren: makeSiren("11122233"), statutDiffusionUniteLegale: "O", denominationUniteLegale: "AUTRE SOCIETE" })}\n${unit(
        {
          siren: companySiren,
          statutDiffusionUniteLegale: "O",
          dateCreationUniteLegale: "1998-03-01",
          denominationUniteLegale: "SARL LA FOURNEE DE VILLEURBANNE",
          categorieJuridiqueUniteLegale: "5499",
        },
      )}\n`,
    );
    const result = await importSirene(establishments, "--unites-legales", units);
    expect(result.report).toMatchObject({ created: 1, rejected: [] });
    const { body } = await server.getJson("/api/registry/search?q=Fournee");
    const abId = (body.results as { merchant: { ab_id: string } }[])[0]?.merchant.ab_id as string;
    const { stdout } = await run(process.execPath, ["jobs/merchants.ts", "show", abId, "--json"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    });
    const shown = JSON.parse(stdout) as { merchant: { legalName: string; businessName: string; foundedOn: string } };
    // Names as INSEE writes them: the sign, then the company's name; its creation date as the founding date.
    expect([shown.merchant.businessName, shown.merchant.legalName, shown.merchant.foundedOn]).toEqual([
      "LA FOURNEE",
      "SARL LA FOURNEE DE VILLEURBANNE",
      "1998-03-01",
    ]);
    // The company's age is an official signal too, recorded as the creation date and counted when read.
    const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
    expect(JSON.stringify(card.body)).toContain("company_age_years");
    const events = (JSON.parse(stdout) as { events: { changes: Record<string, { to: unknown }> }[] }).events;
    expect(events[0]?.changes.legal_form?.to).toBe("5499");
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    const age = db.$client
      .prepare("SELECT value, source, verified_at FROM signals WHERE ab_id = ? AND key = 'company_age_years'")
      .get(abId);
    db.$client.close();
    expect(age).toEqual({ value: '"1998-03-01"', source: "official_file", verified_at: "2026-10-02T08:15:31.000Z" });
  }, 60_000);

  it("reads one establishment twice in a file as one merchant, and refuses a file cut inside a field with its line", async () => {
    const twiceSiren = makeSiren("22211100");
    const shop = makeSiret(twiceSiren, "0001");
    const once = { ...base, siren: twiceSiren, nic: "00019", siret: shop, enseigne1Etablissement: "DEUX FOIS" };
    const file = stockFile("StockEtablissement_twice.csv", [
      row(once),
      row({ ...once, numeroVoieEtablissement: "16", dateDernierTraitementEtablissement: "2026-10-03T08:00:00" }),
    ]);
    const units = unitsFile("StockUniteLegale_twice.csv", [publicCompany(twiceSiren, "DEUX FOIS SAS")]);
    expect((await importSirene(file, "--unites-legales", units)).report).toMatchObject({
      read: 2,
      created: 1,
      updated: 1,
      rejected: [],
    });
    const { body } = await server.getJson("/api/registry/search?q=Deux%20Fois");
    const found = body.results as { merchant: { address: string } }[];
    expect(found.map((result) => result.merchant.address)).toEqual([
      "16 bis avenue Roger Salengro, 69100 Villeurbanne",
    ]);

    const cut = path.join(server.dataDir, "StockEtablissement_cut.csv");
    writeFileSync(
      cut,
      `${HEADER.join(",")}\r\n${row(once)}\r\n${row({ ...once, enseigne1Etablissement: "COUPE" }).replace("COUPE", '"COU')}`,
    );
    const failure = await run(process.execPath, ["jobs/import.ts", "sirene", "--etablissements", cut], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect("code" in failure ? failure.code : 0).toBe(3);
    expect("stderr" in failure ? failure.stderr : "").toBe(
      `import: --etablissements ${cut}, line 3: the file ends inside a quoted field (cut short?)\n`,
    );
  }, 60_000);

  it("reads the stock zipped as INSEE publishes it and positions from Etalab's gzipped geocoded file; without one, the commune's centroid, marked as such", async () => {
    const companySiren = makeSiren("33322211");
    const placedShop = makeSiret(companySiren, "0001");
    const centroidShop = makeSiret(companySiren, "0002");
    const csv = `${HEADER.join(",")}\r\n${[
      row({ ...base, siren: companySiren, nic: "00017", siret: placedShop, enseigne1Etablissement: "FOURNIL ZIPPE" }),
      row({
        ...base,
        siren: companySiren,
        nic: "00025",
        siret: centroidShop,
        enseigne1Etablissement: "FOURNIL SANS GPS",
      }),
    ].join("\r\n")}\r\n`;
    const zipped = path.join(server.dataDir, "StockEtablissement_utf8.zip");
    writeFileSync(zipped, zipOf("StockEtablissement_utf8.csv", csv));
    const geoHeader = [
      ...HEADER,
      "longitude",
      "latitude",
      "geo_score",
      "geo_type",
      "geo_adresse",
      "geo_id",
      "geo_ligne",
      "geo_l4",
      "geo_l5",
    ];
    const geoRow = HEADER.map((name) => (name === "siret" ? placedShop : ""))
      .concat([
        "4.880123",
        "45.766942",
        "0.93",
        "housenumber",
        "14 bis Avenue Roger Salengro 69100 Villeurbanne",
        "69266_3410_00014_bis",
        "G",
        "",
        "",
      ])
      .join(",");
    const geo = path.join(server.dataDir, "geo_siret_69.csv.gz");
    writeFileSync(geo, gzipSync(`${geoHeader.join(",")}\n${geoRow}\n`));

    const units = unitsFile("StockUniteLegale_zip.csv", [publicCompany(companySiren, "FOURNILS REUNIS")]);
    const result = await importSirene(zipped, "--geo", geo, "--unites-legales", units);
    expect(result.report).toMatchObject({ read: 2, created: 2, rejected: [] });
    const proofOf = async (q: string) => {
      const { body } = await server.getJson(`/api/registry/search?q=${encodeURIComponent(q)}`);
      const abId = (body.results as { merchant: { ab_id: string } }[])[0]?.merchant.ab_id as string;
      const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
      const proof = card.body.data.decision_card.territorial_proof as Record<string, unknown>;
      return [proof.latitude, proof.longitude, proof.geocoding_source, proof.geocoding_score];
    };
    expect(await proofOf("Fournil Zippe")).toEqual([45.766942, 4.880123, "geo_sirene_housenumber", 0.93]);
    const [, , source, score] = await proofOf("Fournil sans GPS");
    expect([source, score]).toEqual(["commune_centroid", 0.3]);

    // The same archive again changes nothing; an archive cut short is refused with a message.
    expect((await importSirene(zipped, "--geo", geo, "--unites-legales", units)).report).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
    const cut = path.join(server.dataDir, "StockEtablissement_cut.zip");
    writeFileSync(cut, zipOf("StockEtablissement_utf8.csv", csv.repeat(40)).subarray(0, 200));
    const failure = await run(process.execPath, ["jobs/import.ts", "sirene", "--etablissements", cut], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect("code" in failure ? failure.code : 0).toBe(3);
    expect("stderr" in failure ? failure.stderr : "").toBe(
      `import: --etablissements ${cut}: a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)\n`,
    );
  }, 60_000);
  it("takes in all of local commerce by either NAF code, NAF 2025 first, on real establishments in INSEE's layout", async () => {
    // Real establishments, with the values SIRENE gives them as the API Recherche d'entreprises
    // answered for them (recorded by the Annuaire des Entreprises, test/fixtures/recherche-entreprises),
    // written column by column into StockEtablissement's layout: both NAF columns as INSEE fills them now.
    const real = (values: Record<string, string>) =>
      row({
        statutDiffusionEtablissement: "O",
        etatAdministratifEtablissement: "A",
        nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
        ...values,
      });
    const electrician = {
      siren: "487444697",
      nic: "00428",
      siret: "48744469700428",
      dateCreationEtablissement: "2019-03-11",
      dateDernierTraitementEtablissement: "2025-12-05T20:01:54",
      numeroVoieEtablissement: "22",
      typeVoieEtablissement: "RUE",
      libelleVoieEtablissement: "MAISON BLANCHE",
      codePostalEtablissement: "24330",
      libelleCommuneEtablissement: "BOULAZAC ISLE MANOIRE",
      codeCommuneEtablissement: "24053",
      denominationUsuelleEtablissement: "SOLARSUD",
      activitePrincipaleEtablissement: "43.21A",
      activitePrincipaleNAF25Etablissement: "43.21G",
    };
    const fastFood = {
      siren: "910866482",
      nic: "00011",
      siret: "91086648200011",
      dateCreationEtablissement: "2022-02-22",
      dateDernierTraitementEtablissement: "2025-12-05T15:42:22",
      numeroVoieEtablissement: "56",
      typeVoieEtablissement: "RUE",
      libelleVoieEtablissement: "CATHERINE DE LA ROCHEFOUCAULD",
      codePostalEtablissement: "75009",
      libelleCommuneEtablissement: "PARIS 9",
      codeCommuneEtablissement: "75109",
      activitePrincipaleEtablissement: "56.10C",
      activitePrincipaleNAF25Etablissement: "56.11J",
    };
    const sweets = {
      siren: "981195464",
      nic: "00012",
      siret: "98119546400012",
      dateCreationEtablissement: "2023-11-20",
      dateDernierTraitementEtablissement: "2025-12-05T20:17:33",
      numeroVoieEtablissement: "6",
      typeVoieEtablissement: "RUE",
      libelleVoieEtablissement: "GEORGES WODLI",
      codePostalEtablissement: "67000",
      libelleCommuneEtablissement: "STRASBOURG",
      codeCommuneEtablissement: "67482",
      denominationUsuelleEtablissement: "UNE POIGNEE DE FRIANDISES",
      activitePrincipaleEtablissement: "47.24Z",
      activitePrincipaleNAF25Etablissement: "47.24Y",
    };
    const grocery = {
      siren: "835013798",
      nic: "00029",
      siret: "83501379800029",
      dateCreationEtablissement: "2018-02-16",
      dateDernierTraitementEtablissement: "2025-12-05T15:37:32",
      numeroVoieEtablissement: "81",
      typeVoieEtablissement: "RUE",
      libelleVoieEtablissement: "ALPHONSE GUERIN",
      codePostalEtablissement: "35000",
      libelleCommuneEtablissement: "RENNES",
      codeCommuneEtablissement: "35238",
      activitePrincipaleEtablissement: "47.11B",
      activitePrincipaleNAF25Etablissement: "47.11G",
    };
    // Beside them, rows written here for what the real ones do not show.
    const written = makeSiren("77788899");
    const onlyNaf2025 = makeSiret(written, "0001");
    const file = stockFile("StockEtablissement_naf.csv", [
      real(electrician),
      real(fastFood),
      real(sweets),
      real(grocery),
      // From 2027 on: the rev. 2 column empty, NAF 2025 alone.
      row({
        ...base,
        siren: written,
        nic: "00013",
        siret: onlyNaf2025,
        enseigne1Etablissement: "LA TABLE DE 2027",
        activitePrincipaleEtablissement: "",
        nomenclatureActivitePrincipaleEtablissement: "",
        activitePrincipaleNAF25Etablissement: "56.11G",
      }),
      // Wholesale in both nomenclatures: left out.
      row({
        ...base,
        siren: written,
        nic: "00021",
        siret: makeSiret(written, "0002"),
        enseigne1Etablissement: "GROSSISTE",
        activitePrincipaleEtablissement: "46.34Z",
        activitePrincipaleNAF25Etablissement: "46.34Y",
      }),
      // Building cleaning in rev. 2, combined facilities support in NAF 2025: NAF 2025 decides, left out.
      row({
        ...base,
        siren: written,
        nic: "00039",
        siret: makeSiret(written, "0003"),
        enseigne1Etablissement: "FACILITY",
        activitePrincipaleEtablissement: "81.21Z",
        activitePrincipaleNAF25Etablissement: "81.10Y",
      }),
    ]);
    // Their companies: ESSOR ENERGIES and KIKOU as the API answered for them (names and creation
    // dates), the two others and the written company written here.
    const units = unitsFile("StockUniteLegale_naf.csv", [
      publicCompany("487444697", "ESSOR ENERGIES", "2005-12-06"),
      publicCompany("910866482", "KIKOU", "2022-02-22"),
      publicCompany("981195464", "UNE POIGNEE DE FRIANDISES", "2023-11-20"),
      publicCompany("835013798", "EPICERIE GUERIN", "2018-02-16"),
      publicCompany(written, "LA TABLE DE 2027 SAS"),
    ]);
    const result = await importSirene(file, "--unites-legales", units);
    expect(result.report).toMatchObject({ read: 7, created: 5, skipped: { naf_not_covered: 2 }, rejected: [] });

    const abIdOf = async (siret: string) => {
      const found = await server.getJson(`/api/registry/search?q=${siret}`);
      return (found.body.results as { merchant: { ab_id: string } }[])[0]?.merchant.ab_id as string;
    };
    const resolved = async (siret: string) => {
      const abId = await abIdOf(siret);
      const { body } = await server.getJson(`/api/registry/resolve/${abId}`);
      const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
      const identity = (card.body as { data: { identity: Record<string, unknown> } }).data.identity;
      const merchant = body.merchant as Record<string, unknown>;
      return [
        merchant.trade,
        merchant.sector,
        merchant.naf_code,
        merchant.naf_code_2025,
        identity.naf_code,
        identity.naf_code_2025,
      ];
    };
    expect(await resolved("48744469700428")).toEqual([
      "Électricien",
      "batiment",
      "43.21A",
      "43.21G",
      "43.21A",
      "43.21G",
    ]);
    // The company: ESSOR ENERGIES, created on 6 December 2005, its establishment SOLARSUD on
    // 11 March 2019. The founding date and the years are the company's, counted now.
    const solarsud = await abIdOf("48744469700428");
    const card = await server.getJson(`/api/merchants/${solarsud}/decision-card`);
    const decision = card.body.data.decision_card;
    expect([decision.identity.business_name, decision.identity.legal_name]).toEqual(["SOLARSUD", "ESSOR ENERGIES"]);
    expect(decision.merchant_signals.years_in_business).toBe(yearsBetween("2005-12-06", new Date()));
    expect(await (await server.get(`/m/${solarsud}/`)).text()).toContain("6 décembre 2005");
    expect(await resolved("91086648200011")).toEqual([
      "Restauration rapide",
      "restauration",
      "56.10C",
      "56.11J",
      "56.10C",
      "56.11J",
    ]);
    expect(await resolved("98119546400012")).toEqual([
      "Boutique de pâtisserie, confiserie et pain",
      "alimentation",
      "47.24Z",
      "47.24Y",
      "47.24Z",
      "47.24Y",
    ]);
    expect(await resolved("83501379800029")).toEqual([
      "Épicerie, alimentation générale",
      "alimentation",
      "47.11B",
      "47.11G",
      "47.11B",
      "47.11G",
    ]);
    expect(await resolved(onlyNaf2025)).toEqual(["Restaurant", "restauration", "56.11G", "56.11G", "56.11G", "56.11G"]);

    // Search finds them by either code, and by their trade's words.
    const idsFor = async (q: string) =>
      (
        (await server.getJson(`/api/registry/search?q=${encodeURIComponent(q)}`)).body.results as {
          merchant: { ab_id: string };
        }[]
      ).map((found) => found.merchant.ab_id);
    const fastFoodId = await abIdOf("91086648200011");
    expect(await idsFor("56.11J")).toEqual([fastFoodId]);
    expect(await idsFor("56.10C paris")).toEqual([fastFoodId]);
    expect(await idsFor("fast food paris")).toEqual([fastFoodId]);
    expect(await idsFor("43.21G")).toEqual([await abIdOf("48744469700428")]);
    expect(await idsFor("pâtisserie strasbourg")).toEqual([await abIdOf("98119546400012")]);
    expect(await idsFor("épicerie rennes")).toEqual([await abIdOf("83501379800029")]);

    // A later file without the NAF 2025 column (an older layout) keeps the codes known.
    const older = HEADER.filter((name) => name !== "activitePrincipaleNAF25Etablissement");
    const olderFile = path.join(server.dataDir, "StockEtablissement_older.csv");
    writeFileSync(
      olderFile,
      `${older.join(",")}\r\n${csvLine(older, { ...electrician, statutDiffusionEtablissement: "O", etatAdministratifEtablissement: "A", dateDernierTraitementEtablissement: "2025-12-06T08:00:00" })}\r\n`,
    );
    // Nothing changed, and the file is dated before the stock the check holds from: nothing moves.
    expect((await importSirene(olderFile)).report).toMatchObject({ read: 1, unchanged: 1, rejected: [] });
    expect(await resolved("48744469700428")).toEqual([
      "Électricien",
      "batiment",
      "43.21A",
      "43.21G",
      "43.21A",
      "43.21G",
    ]);
  }, 90_000);
});

/** A zip archive of one deflated file, as INSEE publishes its stock (local header, data, central directory). */
function zipOf(name: string, text: string): Buffer {
  const data = Buffer.from(text, "utf8");
  const packed = deflateRawSync(data);
  const fileName = Buffer.from(name, "utf8");
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + fileName.length, 12);
  end.writeUInt32LE(30 + fileName.length + packed.length, 16);
  return Buffer.concat([local, fileName, packed, central, fileName, end]);
}
