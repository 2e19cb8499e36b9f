/**
 * `npm run import -- sirene` on a StockEtablissement file written in INSEE's own layout (format
 * 3.11 with the NAF 2025 column: the header below is the published one, in its order), run as its
 * own process on the DATA_DIR the built server serves.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { ESTABLISHMENT_HEADER as HEADER, stockRow as row } from "../helpers/sirene-stock.ts";
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
  it("takes active public establishments of covered trades in, skips the rest by reason, and archives what closes", async () => {
    const file = stockFile("StockEtablissement_utf8.csv", [
      row({ ...base, nic: "00013", siret: bakery }),
      row({ ...base, nic: "00021", siret: makeSiret(siren, "0002"), statutDiffusionEtablissement: "P" }),
      row({ ...base, nic: "00039", siret: makeSiret(siren, "0003"), etatAdministratifEtablissement: "F" }),
      row({ ...base, nic: "00047", siret: makeSiret(siren, "0004"), activitePrincipaleEtablissement: "62.01Z" }),
      "123,456",
      row({ ...base, nic: "00099", siret: "55566677700099" }),
    ]);
    const first = await importSirene(file);
    expect(first.code).toBe(1);
    expect(first.report).toEqual({
      read: 6,
      created: 1,
      updated: 0,
      archived: 0,
      unchanged: 0,
      skipped: { not_public: 1, closed: 1, naf_not_covered: 1 },
      rejected: [
        { line: 6, error: `2 fields where the header has ${HEADER.length}` },
        { line: 7, error: "siret: 55566677700099 is not a valid SIRET" },
      ],
    });

    const { body } = await server.getJson("/api/registry/search?q=Pain%20Dore");
    const found = body.results as { merchant: { ab_id: string; name: string; address: string } }[];
    expect(found.map((result) => [result.merchant.name, result.merchant.address])).toEqual([
      ["Au Pain Dore", "14 bis avenue Roger Salengro, 69100 Villeurbanne"],
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
    const again = await importSirene(file);
    expect(again.report).toMatchObject({ created: 0, updated: 0, unchanged: 1 });

    // A later stock: the establishment closed.
    const later = stockFile("StockEtablissement_later.csv", [
      row({
        ...base,
        nic: "00013",
        siret: bakery,
        etatAdministratifEtablissement: "F",
        dateDernierTraitementEtablissement: "2026-11-20T06:00:00",
      }),
    ]);
    expect((await importSirene(later)).report).toMatchObject({ read: 1, archived: 1 });
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).status).toBe(404);
    const { body: feed } = await server.getJson("/api/registry/changes?limit=1000");
    expect(
      (feed.changes as { ab_id: string; change: string }[])
        .filter((change) => change.ab_id === abId)
        .map((change) => change.change),
    ).toEqual(["created", "withdrawn"]);
  }, 60_000);

  it("takes the company's name and creation date from the legal units file, read for the kept establishments only", async () => {
    const companySiren = makeSiren("44433322");
    const shop = makeSiret(companySiren, "0001");
    const establishments = stockFile("StockEtablissement_2.csv", [
      row({ ...base, siren: companySiren, nic: "00015", siret: shop, enseigne1Etablissement: "LA FOURNEE" }),
    ]);
    const units = path.join(server.dataDir, "StockUniteLegale_utf8.csv");
    const unit = (values: Record<string, string>) => UNIT_HEADER.map((name) => values[name] ?? "").join(",");
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
    expect([shown.merchant.businessName, shown.merchant.legalName, shown.merchant.foundedOn]).toEqual([
      "La Fournee",
      "Sarl la Fournee de Villeurbanne",
      "1998-03-01",
    ]);
  }, 60_000);
});

/** StockUniteLegale's published header (format 3.11 with the NAF 2025 column), in its order. */
const UNIT_HEADER = [
  "siren",
  "statutDiffusionUniteLegale",
  "unitePurgeeUniteLegale",
  "dateCreationUniteLegale",
  "sigleUniteLegale",
  "sexeUniteLegale",
  "prenom1UniteLegale",
  "prenom2UniteLegale",
  "prenom3UniteLegale",
  "prenom4UniteLegale",
  "prenomUsuelUniteLegale",
  "pseudonymeUniteLegale",
  "identifiantAssociationUniteLegale",
  "trancheEffectifsUniteLegale",
  "anneeEffectifsUniteLegale",
  "dateDernierTraitementUniteLegale",
  "nombrePeriodesUniteLegale",
  "categorieEntreprise",
  "anneeCategorieEntreprise",
  "dateDebut",
  "etatAdministratifUniteLegale",
  "nomUniteLegale",
  "nomUsageUniteLegale",
  "denominationUniteLegale",
  "denominationUsuelle1UniteLegale",
  "denominationUsuelle2UniteLegale",
  "denominationUsuelle3UniteLegale",
  "categorieJuridiqueUniteLegale",
  "activitePrincipaleUniteLegale",
  "nomenclatureActivitePrincipaleUniteLegale",
  "nicSiegeUniteLegale",
  "economieSocialeSolidaireUniteLegale",
  "societeMissionUniteLegale",
  "caractereEmployeurUniteLegale",
  "activitePrincipaleNAF25UniteLegale",
];
