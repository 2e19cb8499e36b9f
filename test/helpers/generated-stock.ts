/**
 * A StockEtablissement file of many rows in INSEE's current layout (through sirene-stock.ts), for
 * the imports run beside a server: real rows first, then generated ones.
 *
 * The real rows are the 60 of test/fixtures/insee-stock-etablissement-2024-sample.csv, copied
 * from INSEE's stock as the Trackdéchets SIRENE indexer keeps a sample of it in its tests
 * (github.com/MTES-MCT/trackdechets-sirene-search, tests/fixtures/StockEtablissement_utf8_sample.zip,
 * exported in March 2024: the 2024 header, 53 columns, written here by name into the current one):
 * 15 active establishments and 45 closed ones. The generated rows have the stock's mix: 40 %
 * closed, 5 % not public, a third in trades the registry covers; every covered, active and
 * public one has a sign, and its company is in the StockUniteLegale file written beside the stock
 * (`legalUnitsFileOf`), so the import takes it in. The real rows' companies are not in it: a real
 * row of a covered trade waits for its company (name_unknown), as it would without the file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { loadCommuneReference } from "../../src/seed/communes.ts";
import { Rng } from "../../src/seed/prng.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "./sirene-stock.ts";

const REAL_ROWS_FILE = path.resolve(import.meta.dirname, "../fixtures/insee-stock-etablissement-2024-sample.csv");
/** Trades the registry covers (a bakery, a restaurant, a plumber, a hairdresser, a florist). */
const COVERED_NAF = ["10.71C", "56.10A", "43.22A", "96.02A", "47.76Z"];
/** Activities it does not (software, wholesale, public administration, consulting). */
const OTHER_NAF = ["62.01Z", "46.90Z", "84.11Z", "70.22Z"];

/** Where writeStockFile writes the companies of a stock file's generated rows. */
export function legalUnitsFileOf(file: string): string {
  return `${file.replace(/\.csv$/, "")}.unites-legales.csv`;
}

export interface StockFile {
  rows: number;
  /** Every SIRET of the file. */
  sirets: Set<string>;
  /** The generated rows the import must take in: active, public, of a covered trade. */
  expected: Set<string>;
}

/**
 * Writes `rows` rows (the real ones included) to `file`. The rows depend on their position only:
 * a shorter file is the beginning of a longer one.
 */
export function writeStockFile(file: string, rows: number): StockFile {
  const lines = [ESTABLISHMENT_HEADER.join(",")];
  const sirets = new Set<string>();
  // The sample has no quoted field: each line splits on its commas.
  const [realHeader, ...realRows] = readFileSync(REAL_ROWS_FILE, "utf8").trimEnd().split("\n");
  const realColumns = realHeader?.split(",") ?? [];
  for (const line of realRows.slice(0, rows)) {
    const row = Object.fromEntries(line.split(",").map((value, index) => [realColumns[index] as string, value]));
    sirets.add(row.siret as string);
    lines.push(stockRow(row));
  }
  const communes = loadCommuneReference().communes.filter((commune) => commune.postalCodes.length > 0);
  const rng = Rng.create(23, 6);
  const expected = new Set<string>();
  const companies: Record<string, string>[] = [];
  for (let index = 0; lines.length <= rows; index++) {
    const commune = rng.pick(communes);
    const siren = makeSiren(`7${String(index).padStart(7, "0")}`);
    const siret = makeSiret(siren, "0001");
    const roll = rng.next();
    const closed = roll < 0.4;
    const hidden = !closed && roll < 0.45;
    const covered = rng.chance(0.35);
    const naf = covered ? rng.pick(COVERED_NAF) : rng.pick(OTHER_NAF);
    sirets.add(siret);
    if (covered && !closed && !hidden) expected.add(siret);
    companies.push(publicCompany(siren, `SOCIETE ${index}`, `${rng.between(1960, 1979)}-06-01`));
    lines.push(
      stockRow({
        siren,
        nic: siret.slice(9),
        siret,
        statutDiffusionEtablissement: hidden ? "P" : "O",
        dateCreationEtablissement: `${rng.between(1980, 2024)}-0${rng.between(1, 9)}-1${rng.between(0, 9)}`,
        dateDernierTraitementEtablissement: "2026-10-01T03:12:45",
        etablissementSiege: "true",
        nombrePeriodesEtablissement: "1",
        numeroVoieEtablissement: String(rng.between(1, 120)),
        typeVoieEtablissement: rng.pick(["RUE", "AV", "BD", "PL"]),
        libelleVoieEtablissement: rng.pick(["DE LA REPUBLIQUE", "DE LA GARE", "VICTOR HUGO", "DES ECOLES"]),
        codePostalEtablissement: commune.postalCodes[0] as string,
        libelleCommuneEtablissement: commune.name.toUpperCase(),
        codeCommuneEtablissement: commune.insee,
        dateDebut: "2020-01-01",
        etatAdministratifEtablissement: closed ? "F" : "A",
        enseigne1Etablissement: `${rng.pick(["AU", "CHEZ", "ATELIER", "MAISON"])} ${rng.pick(["MARTIN", "BERNARD", "PETIT", "DURAND", "LEROY"])} ${index}`,
        activitePrincipaleEtablissement: naf,
        nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
        caractereEmployeurEtablissement: "N",
      }),
    );
  }
  writeFileSync(file, `${lines.join("\r\n")}\r\n`);
  writeFileSync(legalUnitsFileOf(file), legalUnitsCsv(companies));
  return { rows: lines.length - 1, sirets, expected };
}
