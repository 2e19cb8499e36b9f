/**
 * `npm run import` on the layouts the official files have been published in, and on files that
 * are not what they claim, run as its own process on a temporary DATA_DIR. The rows are INSEE's
 * and DILA's own, from public projects' fixtures (test/fixtures/official/README.md), beside rows
 * written here in the same layouts: the 2019 stock layout and a header re-exported in lower case
 * are read; the pre-2019 layout is refused with what it is and where the current files are; a
 * fault is told of the file it is in (--etablissements, --unites-legales, --geo) with its line;
 * rows are held to the declarations' limits and cleaned of control characters; a file of
 * countless bad lines costs a count, not a list; BODACC pages of the v1 and v2.0 APIs are read.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIRENE_DATASET_URL } from "../../src/domain/merchants/apply-official-establishment.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { csvLine } from "../../src/import/csv.ts";
import { ESTABLISHMENT_HEADER } from "../../src/import/sirene/layout.ts";
import { openDatabase } from "../../src/store/db.ts";
import { legalUnitsCsv, publicCompany } from "../helpers/sirene-stock.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "test/fixtures/official");
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-import-layouts-"));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function importJob(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["jobs/import.ts", ...args], {
      cwd: root,
      // BASE_URL: vitest sets it to "/", which the configuration refuses.
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", BASE_URL: "http://abeille.test" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (failure) {
    const { code, stdout, stderr } = failure as Run;
    return { code, stdout, stderr };
  }
}

function file(name: string, content: string | Buffer): string {
  const at = path.join(dataDir, name);
  writeFileSync(at, content);
  return at;
}

function merchantOf(siret: string): { legal_name: string; business_name: string; street: string; founded_on: string } {
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  try {
    return db.$client
      .prepare("SELECT legal_name, business_name, street, founded_on FROM merchants WHERE siret = ?")
      .get(siret) as { legal_name: string; business_name: string; street: string; founded_on: string };
  } finally {
    db.$client.close();
  }
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);

/** A bakery of our own, in the columns every layout since 2019 has. */
const bakerySiren = makeSiren("48512377");
const bakerySiret = makeSiret(bakerySiren, "0001");
const bakery = {
  siren: bakerySiren,
  nic: bakerySiret.slice(9),
  siret: bakerySiret,
  statutDiffusionEtablissement: "O",
  dateCreationEtablissement: "2009-04-01",
  dateDernierTraitementEtablissement: "2026-10-02T08:15:31",
  etablissementSiege: "true",
  numeroVoieEtablissement: "14",
  indiceRepetitionEtablissement: "B",
  typeVoieEtablissement: "AV",
  libelleVoieEtablissement: "ROGER SALENGRO",
  codePostalEtablissement: "69100",
  libelleCommuneEtablissement: "VILLEURBANNE",
  codeCommuneEtablissement: "69266",
  etatAdministratifEtablissement: "A",
  enseigne1Etablissement: "LA MIE DOREE",
  activitePrincipaleEtablissement: "10.71C",
  nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
  caractereEmployeurEtablissement: "N",
};

/** The fixture's real rows and header, split. */
function fixtureRows(name: string): { header: string[]; rows: string[] } {
  const [header, ...rows] = readFileSync(path.join(fixtures, name), "utf8").split(/\r?\n/).filter(Boolean);
  return { header: (header as string).split(","), rows };
}

describe("SIRENE layouts", () => {
  it("reads the 2019 stock layout, header in lower case, with a 2019 legal units file whose header is in lower case", async () => {
    const stock = fixtureRows("StockEtablissement_2019.csv");
    const units = fixtureRows("StockUniteLegale_2019_lowercase.csv");
    const lower = stock.header.map((name) => name.toLowerCase());
    const establishments = file(
      "StockEtablissement_2019_lower.csv",
      `${lower.join(",")}\n${[...stock.rows, csvLine(stock.header, bakery)].join("\n")}\n`,
    );
    const ourUnit = csvLine(units.header, {
      siren: bakerySiren,
      statutdiffusionunitelegale: "O",
      datecreationunitelegale: "2009-03-15",
      datederniertraitementunitelegale: "2024-01-10T10:00:00",
      etatadministratifunitelegale: "A",
      denominationunitelegale: "SARL LA MIE DOREE",
      categoriejuridiqueunitelegale: "5499",
    });
    const legalUnits = file(
      "StockUniteLegale_2019_lower.csv",
      `${units.header.join(",")}\n${[...units.rows, ourUnit].join("\n")}\n`,
    );

    const result = await importJob(
      "sirene",
      "--etablissements",
      establishments,
      "--unites-legales",
      legalUnits,
      "--json",
    );
    expect([result.code, result.stderr]).toEqual([0, ""]);
    const report = JSON.parse(result.stdout);
    // INSEE's eleven rows are read and skipped (closed, or trades the registry does not cover), not rejected.
    expect(report).toMatchObject({ read: 12, created: 1, rejected: [], rejected_count: 0 });
    expect(total(report.skipped)).toBe(11);
    const merchant = merchantOf(bakery.siret);
    expect([merchant.legal_name.toLowerCase(), merchant.founded_on]).toEqual(["sarl la mie doree", "2009-03-15"]);
  });

  it("finds the current layout's columns by name, in any order", async () => {
    const shuffled = [...ESTABLISHMENT_HEADER].reverse();
    const amiens = {
      // INSEE's row of 99999235700015 (test/fixtures/official), in today's layout.
      siren: "999992357",
      nic: "00015",
      siret: "99999235700015",
      statutDiffusionEtablissement: "O",
      dateCreationEtablissement: "2003-12-31",
      trancheEffectifsEtablissement: "01",
      anneeEffectifsEtablissement: "2017",
      dateDernierTraitementEtablissement: "2019-06-24T14:13:19",
      etablissementSiege: "true",
      nombrePeriodesEtablissement: "5",
      numeroVoieEtablissement: "6",
      typeVoieEtablissement: "RUE",
      libelleVoieEtablissement: "DE L ETOILE",
      codePostalEtablissement: "80090",
      libelleCommuneEtablissement: "AMIENS",
      codeCommuneEtablissement: "80021",
      dateDebut: "2012-01-22",
      etatAdministratifEtablissement: "A",
      activitePrincipaleEtablissement: "81.10Z",
      nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
      caractereEmployeurEtablissement: "O",
    };
    const secondSiret = makeSiret(bakerySiren, "0002");
    const second = {
      ...bakery,
      nic: secondSiret.slice(9),
      siret: secondSiret,
      enseigne1Etablissement: "LA MIE DU PARC",
    };
    const establishments = file(
      "StockEtablissement_shuffled.csv",
      `${shuffled.join(",")}\n${csvLine(shuffled, amiens)}\n${csvLine(shuffled, second)}\n`,
    );
    const units = file(
      "StockUniteLegale_shuffled.csv",
      legalUnitsCsv([publicCompany(bakerySiren, "SARL LA MIE DOREE")]),
    );
    const result = await importJob("sirene", "--etablissements", establishments, "--unites-legales", units, "--json");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ read: 2, created: 1, rejected: [], rejected_count: 0 });
    expect(merchantOf(second.siret).street.toLowerCase()).toBe("14 bis avenue roger salengro");
  });

  it("refuses the pre-2019 layout, saying which it is and where INSEE's current files are published", async () => {
    const sirc = path.join(fixtures, "sirc-201707_L_M.csv");
    const refusal =
      'this is the SIRENE layout used before 2019 (the "sirc-" files of SIRENE historique: SIREN;NIC;L1_NORMALISEE;...;APET700;..., ' +
      `semicolon separated, latin1), which the import does not read: take INSEE's current stock files (StockEtablissement, StockUniteLegale) from ${SIRENE_DATASET_URL}`;
    expect(await importJob("sirene", "--etablissements", sirc)).toEqual({
      code: 3,
      stdout: "",
      stderr: `import: --etablissements ${sirc}, line 1: ${refusal}\n`,
    });
    const establishments = file(
      "StockEtablissement_one.csv",
      `${ESTABLISHMENT_HEADER.join(",")}\n${csvLine(ESTABLISHMENT_HEADER, bakery)}\n`,
    );
    expect(await importJob("sirene", "--etablissements", establishments, "--unites-legales", sirc)).toMatchObject({
      code: 3,
      stderr: `import: --unites-legales ${sirc}, line 1: ${refusal}\n`,
    });
  });

  it("names the file at fault and its line: the legal units file, the geocoded file, a file given for another", async () => {
    const establishments = file(
      "StockEtablissement_good.csv",
      `${ESTABLISHMENT_HEADER.join(",")}\n${csvLine(ESTABLISHMENT_HEADER, bakery)}\n`,
    );
    const units = fixtureRows("StockUniteLegale_2019_lowercase.csv");
    const cutUnits = file("StockUniteLegale_cut.csv", `${units.header.join(",")}\n${units.rows[0]}\n"000325175,O`);
    expect(await importJob("sirene", "--etablissements", establishments, "--unites-legales", cutUnits)).toMatchObject({
      code: 3,
      stderr: `import: --unites-legales ${cutUnits}, line 3: the file ends inside a quoted field (cut short?)\n`,
    });
    const gzippedCut = file(
      "StockUniteLegale_cut.csv.gz",
      gzipSync(readFileSync(path.join(fixtures, "StockUniteLegale_2019_lowercase.csv"))).subarray(0, 300),
    );
    expect(await importJob("sirene", "--etablissements", establishments, "--unites-legales", gzippedCut)).toMatchObject(
      {
        code: 3,
        stderr: `import: --unites-legales ${gzippedCut}: damaged or cut short (unexpected end of file)\n`,
      },
    );
    expect(await importJob("sirene", "--etablissements", establishments, "--geo", establishments)).toMatchObject({
      code: 3,
      stderr: `import: --geo ${establishments}, line 1: this file has no longitude and latitude columns: --geo takes Etalab's geocoded SIRENE establishments (geo_siret_<department>.csv.gz)\n`,
    });
    const unitsFile = path.join(fixtures, "StockUniteLegale_2019_lowercase.csv");
    expect(await importJob("sirene", "--etablissements", unitsFile)).toMatchObject({
      code: 3,
      stderr: `import: --etablissements ${unitsFile}, line 1: this is a legal units file (StockUniteLegale: no siret column), not StockEtablissement: give it with --unites-legales\n`,
    });
    const missing = path.join(dataDir, "geo_siret_69.csv.gz");
    expect(await importJob("sirene", "--etablissements", establishments, "--geo", missing)).toMatchObject({
      code: 3,
      stderr: `import: --geo ${missing}: no such file (ENOENT)\n`,
    });
    const semicolons = file("StockEtablissement_semicolons.csv", `${ESTABLISHMENT_HEADER.join(";")}\n`);
    expect(await importJob("sirene", "--etablissements", semicolons)).toMatchObject({
      code: 3,
      stderr: `import: --etablissements ${semicolons}, line 1: the columns are separated by semicolons (a spreadsheet's export?): INSEE's stock files separate them by commas; give the file as published\n`,
    });
    // Six runs of the import, each a process of its own (a few seconds each on a busy machine).
  }, 120_000);
});

describe("bounds on the SIRENE rows", () => {
  it("cleans names of control characters and bidirectional overrides, and rejects a row over a declaration's limit, naming the column", async () => {
    const siren = makeSiren("48612355");
    const shop = (nic: string, values: Record<string, string>) => {
      const siret = makeSiret(siren, nic);
      return csvLine(ESTABLISHMENT_HEADER, { ...bakery, siren, nic: siret.slice(9), siret, ...values });
    };
    const lines = [
      shop("0001", { enseigne1Etablissement: "AU\u0000 PAIN\tDORE\u202e\u2066\u0090" }),
      shop("0002", { enseigne1Etablissement: "AU PAIN DORE" }),
      shop("0003", { enseigne1Etablissement: "B".repeat(121) }),
      shop("0004", { libelleVoieEtablissement: "R".repeat(201) }),
      shop("0005", { libelleCommuneEtablissement: "V".repeat(101) }),
      // 5 MB of a name (one of 50 MB took 2.3 GB to import and made a page of 350 MB).
      shop("0006", { enseigne1Etablissement: "N".repeat(5_000_000) }),
      shop("0007", { enseigne1Etablissement: "B".repeat(120) }),
    ];
    const establishments = file(
      "StockEtablissement_limits.csv",
      `${ESTABLISHMENT_HEADER.join(",")}\n${lines.join("\n")}\n`,
    );
    const units = file("StockUniteLegale_limits.csv", legalUnitsCsv([publicCompany(siren, "SAS AU PAIN DORE")]));
    const result = await importJob("sirene", "--etablissements", establishments, "--unites-legales", units, "--json");
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ read: 7, created: 3, rejected_count: 4 });
    expect(report.rejected).toEqual([
      {
        file: "establishments",
        line: 4,
        error: "enseigne1Etablissement: 121 characters, more than the 120 a business name may have",
      },
      {
        file: "establishments",
        line: 5,
        error: "libelleVoieEtablissement: 201 characters, more than the 200 a street may have",
      },
      {
        file: "establishments",
        line: 6,
        error: "libelleCommuneEtablissement: 101 characters, more than the 100 a town may have",
      },
      {
        file: "establishments",
        line: 7,
        error: "a record of more than 65536 bytes (a damaged file, or not this file's layout): skipped",
      },
    ]);
    const cleaned = merchantOf(makeSiret(siren, "0001")).business_name;
    expect(cleaned).toBe(merchantOf(makeSiret(siren, "0002")).business_name);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must be gone.
    expect(cleaned).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(merchantOf(makeSiret(siren, "0007")).business_name).toHaveLength(120);
  });

  it("counts every rejected row of a gzip of 200,000 bad lines and lists only the first hundred", async () => {
    const bad = `${ESTABLISHMENT_HEADER.join(",")}\n${"123,456\n".repeat(200_000)}`;
    const gzipped = file("StockEtablissement_bad.csv.gz", gzipSync(bad));
    const result = await importJob("sirene", "--etablissements", gzipped, "--json");
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect([report.read, report.rejected_count, report.rejected.length]).toEqual([200_000, 200_000, 100]);
    const wrongWidth = `2 fields where the header has ${ESTABLISHMENT_HEADER.length}`;
    expect([report.rejected[0], report.rejected[99]]).toEqual([
      { file: "establishments", line: 2, error: wrongWidth },
      { file: "establishments", line: 101, error: wrongWidth },
    ]);
    const text = await importJob("sirene", "--etablissements", gzipped);
    const printed = text.stdout.trimEnd().split("\n");
    expect(printed[0]).toBe(
      "200000 rows: 0 added, 0 updated, 0 archived, 0 closed, 0 confirmed, 0 unchanged, 200000 rejected",
    );
    expect(printed.slice(2, 3)).toEqual([`--etablissements, line 2: ${wrongWidth}`]);
    expect(printed.at(-1)).toBe("... and 199900 more not listed (the first 100 are)");
    expect(printed).toHaveLength(103);
  });
});

describe("BODACC layouts and bounds", () => {
  it("reads a page of the v1 records API (records[].fields) and of Explore v2.0 (records[].record.fields)", async () => {
    // DJ BATIMENT (833 310 592), building trades in Cenon: a merchant of ours, then its announcement.
    const siret = makeSiret("833310592", "0001");
    const establishments = file(
      "StockEtablissement_djb.csv",
      `${ESTABLISHMENT_HEADER.join(",")}\n${csvLine(ESTABLISHMENT_HEADER, {
        ...bakery,
        siren: "833310592",
        nic: siret.slice(9),
        siret,
        enseigne1Etablissement: "DJ BATIMENT",
        numeroVoieEtablissement: "16",
        indiceRepetitionEtablissement: "",
        typeVoieEtablissement: "RUE",
        libelleVoieEtablissement: "DU 8 MAI 1945",
        codePostalEtablissement: "33150",
        libelleCommuneEtablissement: "CENON",
        codeCommuneEtablissement: "33119",
        activitePrincipaleEtablissement: "43.22A",
      })}\n`,
    );
    const units = file("StockUniteLegale_djb.csv", legalUnitsCsv([publicCompany("833310592", "DJ BATIMENT")]));
    expect((await importJob("sirene", "--etablissements", establishments, "--unites-legales", units)).code).toBe(0);

    // On one line, as the API answers (a first line that is a whole object was read as JSON Lines).
    const v1Page = file(
      "bodacc-v1-page.json",
      JSON.stringify(JSON.parse(readFileSync(path.join(fixtures, "bodacc-v1-records-page.json"), "utf8"))),
    );
    const v1 = await importJob("bodacc", v1Page, "--json");
    expect([v1.code, v1.stderr]).toEqual([0, ""]);
    expect(JSON.parse(v1.stdout)).toMatchObject({
      read: 1,
      period: { from: "2020-11-30", to: "2020-11-30" },
      matched: 1,
      // Its liquidation closed for want of assets: the company is gone, the merchant recorded closed.
      updated: 0,
      closed: 1,
      skipped: {},
      rejected: [],
      rejected_count: 0,
    });
    const v20 = await importJob("bodacc", path.join(fixtures, "bodacc-v2.0-records-page.json"), "--json");
    expect([v20.code, v20.stderr]).toEqual([0, ""]);
    expect(JSON.parse(v20.stdout)).toMatchObject({
      read: 3,
      period: { from: "2016-05-11", to: "2025-06-27" },
      matched: 0,
      skipped: { not_in_registry: 3 },
      rejected: [],
      rejected_count: 0,
    });
  });

  it("counts every rejected record of a gzip of 100,000 bad lines and lists only the first hundred", async () => {
    const gzipped = file("annonces.jsonl.gz", gzipSync("x\n".repeat(100_000)));
    const result = await importJob("bodacc", gzipped, "--json");
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect([report.read, report.rejected_count, report.rejected.length]).toEqual([100_000, 100_000, 100]);
    expect(report.rejected[99]).toEqual({
      record: 100,
      line: 100,
      error: `not valid JSON (Unexpected token 'x', "x" is not valid JSON)`,
    });
    const text = await importJob("bodacc", gzipped);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toBe("... and 99900 more not listed (the first 100 are)");
  });

  it("refuses a CSV export, naming the export to take instead, and a file it cannot open", async () => {
    const csv = file("annonces-commerciales.csv", "id;publicationavis;publicationavis_facette;parution;dateparution\n");
    expect(await importJob("bodacc", csv)).toEqual({
      code: 3,
      stdout: "",
      stderr: `import: ${csv}, line 1: this is the CSV export (/exports/csv): the import reads the JSON exports, /exports/jsonl or /exports/json of the same dataset\n`,
    });
    const missing = path.join(dataDir, "annonces-absentes.jsonl");
    expect(await importJob("bodacc", missing)).toEqual({
      code: 3,
      stdout: "",
      stderr: `import: ${missing}: no such file (ENOENT)\n`,
    });
    const encrypted = Buffer.alloc(64);
    encrypted.writeUInt32LE(0x04034b50, 0);
    encrypted.writeUInt16LE(0x1, 6);
    const zip = file("annonces.zip", encrypted);
    expect(await importJob("bodacc", zip)).toMatchObject({
      code: 3,
      stderr: `import: ${zip}: an encrypted zip archive: not read\n`,
    });
  });
});
