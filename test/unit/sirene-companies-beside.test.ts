/**
 * Issue 34: a stock's companies (StockUniteLegale) are read by a thread of their own while the
 * establishments' first pass runs (stock-reader.ts spillLegalUnits, units-worker.ts), every
 * company kept on disk by SIREN and walked beside the rows in SIRET order (CompanyWalk). The rows
 * are named as when the companies were read after the first pass, for the wanted ones only: the
 * last listing of a company listed twice that names it, a company listed after its rows, a row
 * whose SIREN is not its SIRET's first nine digits, an odd SIREN; a company's line set aside only
 * when the company is wanted, in the file's order; a fault in either file refuses the import
 * before anything is applied, and nothing stays in the sorting folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { SireneFileError } from "../../src/import/sirene/import-sirene.ts";
import { mergedRuns } from "../../src/import/sirene/sorted-spill.ts";
import { spillLegalUnits } from "../../src/import/sirene/stock-reader.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "../helpers/sirene-stock.ts";
import { importedStock } from "../helpers/stock-imported.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-companies-beside-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shop = {
  statutDiffusionEtablissement: "O",
  dateCreationEtablissement: "2011-09-15",
  dateDernierTraitementEtablissement: "2026-10-02T08:15:31",
  numeroVoieEtablissement: "14",
  typeVoieEtablissement: "AV",
  libelleVoieEtablissement: "ROGER SALENGRO",
  codePostalEtablissement: "69100",
  libelleCommuneEtablissement: "VILLEURBANNE",
  codeCommuneEtablissement: "69266",
  etatAdministratifEtablissement: "A",
  activitePrincipaleEtablissement: "10.71C",
  nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
};

const twice = makeSiren("55544433");
const stray = makeSiren("66655544");
const strayShop = makeSiret(makeSiren("77766655"), "0001");
const other = makeSiren("22211100");
const unwanted = makeSiren("88877766");
const oddSiren = "12345678X";

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

const establishments = () =>
  [
    // In no order: the company's second shop before its first, the other company's between them.
    { ...shop, siren: twice, nic: "00024", siret: makeSiret(twice, "0002") },
    { ...shop, siren: other, nic: "00013", siret: makeSiret(other, "0001"), activitePrincipaleEtablissement: "47.24Z" },
    { ...shop, siren: twice, nic: "00016", siret: makeSiret(twice, "0001") },
    // A SIREN column that is not the SIRET's first nine digits (a damaged file): its company is the column's.
    { ...shop, siren: stray, nic: "00012", siret: strayShop },
    // A SIREN of another shape: its company is the one listed under the same text.
    { ...shop, siren: oddSiren, nic: "00011", siret: makeSiret(makeSiren("99988877"), "0001") },
  ].map((values) => stockRow(values));

/** The establishments' file: the published header, then the rows. */
const header = (rows: string[]) => `${ESTABLISHMENT_HEADER.join(",")}\n${rows.join("\n")}\n`;

const companies = () =>
  legalUnitsCsv([
    publicCompany(other, "AUTRE SOCIETE"),
    { ...publicCompany(unwanted, "X".repeat(400)) },
    publicCompany(twice, "ANCIEN NOM"),
    publicCompany(makeSiren("77766655"), "SOCIETE DU SIRET"),
    publicCompany(stray, "SOCIETE DE LA COLONNE"),
    { ...publicCompany(oddSiren, "SOCIETE ODD") },
    { ...publicCompany(other, "Y".repeat(400)) },
    // Listed again, after its rows' companies: the later name is the company's.
    publicCompany(twice, "NOUVEAU NOM"),
    // And once more, not public: it names nothing, and the name before it stays.
    { ...publicCompany(twice, "CACHE"), statutDiffusionUniteLegale: "P" },
  ]);

async function imported(name: string, stock: string, units: string) {
  const { merchants, ...outcome } = await importedStock(dir, name, stock, units);
  const named: Record<string, string | null> = {};
  for (const merchant of merchants) if (merchant) named[merchant.siret] = merchant.legalName ?? null;
  return { ...outcome, named };
}

describe("a SIRENE stock's companies read beside its establishments", () => {
  it("name each row as the wanted companies' last naming listing does, whatever the files' order", async () => {
    const stock = file("stock.csv", header(establishments()));
    const { report, error, named, leftInSortDir } = await imported("named", stock, file("units.csv", companies()));
    expect(error).toBeNull();
    expect(named).toEqual({
      [makeSiret(twice, "0001")]: "NOUVEAU NOM",
      [makeSiret(twice, "0002")]: "NOUVEAU NOM",
      [makeSiret(other, "0001")]: "AUTRE SOCIETE",
      [strayShop]: "SOCIETE DE LA COLONNE",
      [makeSiret(makeSiren("99988877"), "0001")]: "SOCIETE ODD",
    });
    // The unwanted company's name over the limit is not said; the wanted one's is, with its line.
    expect(report?.rejected).toEqual([
      {
        file: "legalUnits",
        line: 8,
        error: "denominationUniteLegale: 400 characters, more than the 200 a legal name may have",
      },
    ]);
    expect(report?.rejected_count).toBe(1);
    expect(leftInSortDir).toEqual([]);
  });

  it("refuses a companies' file cut inside a field before anything is applied, and leaves nothing to sort", async () => {
    const stock = file("stock-cut.csv", header(establishments()));
    const units = file("units-cut.csv", `${companies()}${other},"UNE SOCIETE COUPEE\n`);
    const { error, named, leftInSortDir } = await imported("cut-units", stock, units);
    expect(error).toBeInstanceOf(SireneFileError);
    expect([(error as SireneFileError).file, (error as SireneFileError).line]).toEqual(["legalUnits", 11]);
    expect(named).toEqual({});
    expect(leftInSortDir).toEqual([]);
  });

  it("refuses an establishments' file cut inside a field, the companies' thread stopped, and leaves nothing to sort", async () => {
    const stock = file("stock-cut-rows.csv", `${header(establishments())}${twice},"00030,COUPE\n`);
    const { error, named, leftInSortDir } = await imported("cut-rows", stock, file("units-sound.csv", companies()));
    expect(error).toBeInstanceOf(SireneFileError);
    expect([(error as SireneFileError).file, (error as SireneFileError).line]).toEqual(["establishments", 7]);
    expect(named).toEqual({});
    expect(leftInSortDir).toEqual([]);
  });
});

describe("a company packed from its bytes", () => {
  it("is packed as the text reading (refusedRow, legalUnitOf) packs it, whatever its columns hold", async () => {
    const name = (index: number) => makeSiren(String(30_000_000 + index));
    const variants: Record<string, string>[] = [
      {},
      { denominationUniteLegale: "LE  FOURNIL" },
      { denominationUniteLegale: " LE FOURNIL" },
      { denominationUniteLegale: "LE FOURNIL " },
      { denominationUniteLegale: "CAFÉ DES ARTS" },
      { denominationUniteLegale: 'LE "BON" PAIN' },
      { denominationUniteLegale: "LE\tFOURNIL" },
      { denominationUniteLegale: "LE\u0001FOURNIL" },
      { denominationUniteLegale: "LE \u202eFOURNIL" },
      {
        denominationUniteLegale: "",
        prenomUsuelUniteLegale: "MARIE",
        nomUsageUniteLegale: "DUPONT",
        nomUniteLegale: "MARTIN",
      },
      { denominationUniteLegale: "", prenomUsuelUniteLegale: "MARIE", nomUniteLegale: "MARTIN" },
      { denominationUniteLegale: "", nomUniteLegale: "MARTIN" },
      { denominationUniteLegale: "", prenomUsuelUniteLegale: "MARIE" },
      { denominationUniteLegale: "", prenomUsuelUniteLegale: "JEAN  PIERRE", nomUniteLegale: "MARTIN" },
      { denominationUniteLegale: "" },
      { statutDiffusionUniteLegale: "P" },
      { statutDiffusionUniteLegale: " O" },
      { statutDiffusionUniteLegale: "" },
      { categorieJuridiqueUniteLegale: "549" },
      { categorieJuridiqueUniteLegale: "ABCD" },
      { categorieJuridiqueUniteLegale: "0000" },
      { categorieJuridiqueUniteLegale: "" },
      { dateCreationUniteLegale: "2011-9-15" },
      { dateCreationUniteLegale: "" },
      { dateCreationUniteLegale: "2011-09-15T00:00:00" },
      { dateDernierTraitementUniteLegale: "2024-03-15T14:22:11" },
      { dateDernierTraitementUniteLegale: " 2024-03-15T14:22:11 " },
      { dateDernierTraitementUniteLegale: "2024-03-15T14:22:11.123" },
      { dateDernierTraitementUniteLegale: "2024-03-15" },
      { dateDernierTraitementUniteLegale: "2024-03-15T04:02:01" },
      { denominationUniteLegale: "N".repeat(60) },
      { denominationUniteLegale: "N".repeat(300) },
      { nomUniteLegale: "M".repeat(300) },
      { siren: "12345678X", denominationUniteLegale: "SOCIETE ODD" },
    ];
    const units = file(
      "bytes.csv",
      legalUnitsCsv(
        // Each variant twice: the same SIREN listed twice too.
        [...variants, ...variants].map((variant, index) => ({
          ...publicCompany(name(index % variants.length), `SOCIETE ${index}`),
          ...variant,
        })),
      ),
    );
    const spilled = async (fromBytes: boolean) => {
      const folder = path.join(dir, `bytes-${fromBytes}`);
      const result = await spillLegalUnits({ legalUnits: units, folder, fromBytes }, () => undefined);
      const read = (runs: string[]) =>
        [...mergedRuns(runs)].map(({ key, record }) => `${key} ${record.toString("base64")}`);
      return { units: read(result.units.runs), odd: read(result.odd.runs), refusals: read(result.refusals.runs) };
    };
    const fromBytes = await spilled(true);
    expect(fromBytes).toEqual(await spilled(false));
    // Each variant twice: 28 of a nine-digit SIREN named (not the 2 over a limit, refused, nor the 3
    // not public or naming nobody), the odd SIREN's.
    expect([fromBytes.units.length, fromBytes.odd.length, fromBytes.refusals.length]).toEqual([56, 2, 4]);
  });
});
