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
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { nafSubclasses } from "../../src/domain/naf.ts";
import { tradeOf } from "../../src/domain/sectors.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { csvLine } from "../../src/import/csv.ts";
import { LEGAL_UNIT_HEADER } from "../../src/import/sirene/layout.ts";
import { loadCommuneReference } from "../../src/seed/communes.ts";
import { Rng } from "../../src/seed/prng.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "./sirene-stock.ts";
import { zipWriter } from "./zip-writer.ts";

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

/* ---- A national-shaped pair of stock files (issue 34): the benches' and the import tests' ---- */

/** The mix of activities drawn (test/fixtures/national-naf-mix.json: its sources are in it). */
const NATIONAL_MIX_FILE = path.resolve(import.meta.dirname, "../fixtures/national-naf-mix.json");
/** Each NAF rev. 2 sub-class's successors in NAF 2025, its main one first (INSEE's correspondence). */
const CORRESPONDENCE_FILE = path.resolve(import.meta.dirname, "../../data/naf-correspondence.csv");

/** Shares of the national stock (StockEtablissement, 2025): active rows, non-public companies. */
export const NATIONAL_SHAPE = { active: 0.38, nonPublic: 0.04 } as const;

export interface NationalStockOptions {
  /** Where the two files go (StockEtablissement_utf8.zip and StockUniteLegale_utf8.zip). */
  dir: string;
  /** Establishment rows. */
  rows: number;
  seed?: number;
  /** Plain CSV files (the same names, .csv) instead of zips. */
  plain?: boolean;
  /**
   * Rows given a SIRET that fails its check digit (the row is otherwise whole): their positions in
   * the file (0 is the first row after the header). None by default.
   */
  badSiretAt?: readonly number[];
  /** Called every 1,000,000 rows written (a long bench's progress). */
  onProgress?: (written: number) => void;
  /**
   * A later stock of the same country: with a variant other than 0, about 3 % of the
   * establishments have opened or closed since, 3 % have a new sign and 1 % a new street number
   * (the same ones for the same variant).
   */
  variant?: number;
  /** Rows written first, as given (the tests' odd rows), and companies added to the companies' file. */
  extraRows?: Record<string, string>[];
  extraUnits?: Record<string, string>[];
}

export interface NationalStock {
  establishments: string;
  legalUnits: string;
  rows: number;
  companies: number;
  /** Rows active, public and of a trade the registry covers (NAF 2025 first): the merchants an import brings in. */
  expected: number;
  /** Their SIRETs, when the stock has 200,000 rows or fewer (tests). */
  expectedSirets: Set<string> | null;
  /** What the rows hold, counted as they are written. */
  mix: { active: number; nonPublic: number; withNaf2025: number; naf2025Only: number; multiSite: number };
  /** The latest date of last processing in the file (the stock's own date, YYYY-MM-DD). */
  lastProcessed: string;
  /** That date of last processing as the import reads it (ISO): the stock's date without --file-date (the extra rows' aside). */
  lastProcessedAt: string;
  bytes: { establishments: number; legalUnits: number };
}

/**
 * Writes INSEE's two stock files, national-shaped, in their published layouts (every column, in
 * order) and, by default, zipped as INSEE publishes them: `rows` establishments, 38 % active and
 * 4 % of non-public companies; activities drawn from the national mix (test/fixtures/national-naf-mix.json),
 * with the NAF 2025 code INSEE's correspondence gives (its main successor, another one time in
 * ten) on 98 % of the active rows and 30 % of the closed ones, 1 % of the active rows with a NAF
 * 2025 code only; dates of last processing spread over 2008-2026 (more of them recent), the
 * latest 2026-10-31; companies of one to forty establishments (1.44 on average, as 43.9 million
 * rows for 29.9 million companies); places drawn by population from the commune reference. Rows
 * are in no particular order in either file: a company's establishments are scattered over the
 * file, and the companies' file is in another order. Every row depends on the seed and its
 * position only, and a file of millions is written without holding its rows (a few bytes a company).
 */
export async function writeNationalStock(options: NationalStockOptions): Promise<NationalStock> {
  const { rows, dir } = options;
  mkdirSync(dir, { recursive: true });
  const seed = options.seed ?? 34;
  const random = (entity: number, draw: number) => hash32(seed, entity, draw) / 4294967296;
  const communes = loadCommuneReference();
  const placed = communes.communes.filter((commune) => commune.postalCodes.length > 0);
  const population = new Float64Array(placed.length);
  placed.reduce((total, commune, index) => {
    population[index] = total + Math.max(1, commune.population);
    return population[index] as number;
  }, 0);
  const pickCommune = (value: number) =>
    placed[lowerBound(population, value * (population[population.length - 1] as number))] as (typeof placed)[number];
  const activities = nationalActivities();
  const pickActivity = (value: number) =>
    activities.codes[lowerBound(activities.cumulative, value * activities.total)] as string;
  const successors = nafSuccessors();

  // Companies: how many establishments each has (its first one's index in `starts`).
  const starts: number[] = [0];
  for (let company = 0; (starts[starts.length - 1] as number) < rows; company++) {
    starts.push(Math.min(rows, (starts[company] as number) + sitesOf(random(company, 0))));
  }
  const companies = starts.length - 1;
  const firstSite = Uint32Array.from(starts);
  const companyOf = (site: number) => upperBound(firstSite, site) - 1;
  const sirenOf = (company: number) => makeSiren(String((company * 7919 + 1_000_003) % 100_000_000).padStart(8, "0"));
  const nonPublic = (company: number) => random(company, 1) < NATIONAL_SHAPE.nonPublic;
  const companyActivity = (company: number) => pickActivity(random(company, 2));

  const extension = options.plain ? "csv" : "zip";
  const establishmentsFile = path.join(dir, `StockEtablissement_utf8.${extension}`);
  const legalUnitsFile = path.join(dir, `StockUniteLegale_utf8.${extension}`);
  const badSirets = new Set(options.badSiretAt ?? []);
  const mix = { active: 0, nonPublic: 0, withNaf2025: 0, naf2025Only: 0, multiSite: 0 };
  let expected = 0;
  const expectedSirets = rows <= 200_000 ? new Set<string>() : null;
  let lastProcessed = "";

  const establishments = await textSink(establishmentsFile, options.plain ?? false);
  await establishments.write(`${ESTABLISHMENT_HEADER.join(",")}\r\n`);
  for (const extra of options.extraRows ?? []) await establishments.write(`${stockRow(extra)}\r\n`);
  const variant = options.variant ?? 0;
  const changed = (site: number, draw: number, share: number) =>
    variant !== 0 && hash32(seed + variant, site, 500 + draw) / 4294967296 < share;
  const order = scattered(rows, seed);
  let chunk = "";
  for (let position = 0; position < rows; position++) {
    const site = order(position);
    const company = companyOf(site);
    const nic = site - (firstSite[company] as number);
    const draw = (index: number) => random(site, 100 + index);
    const siren = sirenOf(company);
    const siret = makeSiret(siren, String(nic + 1).padStart(4, "0"));
    const active = draw(0) < NATIONAL_SHAPE.active !== changed(site, 0, 0.03);
    const hidden = nonPublic(company);
    const nafRev2 = draw(1) < 0.8 ? companyActivity(company) : pickActivity(draw(2));
    const next = successors.get(nafRev2) ?? [];
    const naf2025 =
      draw(3) < (active ? 0.98 : 0.3) && next.length > 0
        ? ((next.length > 1 && draw(4) < 0.1 ? next[1 + Math.floor(draw(5) * (next.length - 1))] : next[0]) as string)
        : "";
    const only2025 = active && naf2025 !== "" && draw(6) < 0.01;
    const commune = pickCommune(draw(7));
    const processed = processingDate(draw(8), draw(9));
    if (processed > lastProcessed) lastProcessed = processed;
    const created = `${Math.min(Number(processed.slice(0, 4)), 1975 + Math.floor(draw(10) * 51))}-${pad2(1 + Math.floor(draw(11) * 12))}-${pad2(1 + Math.floor(draw(12) * 28))}`;
    const withSign = draw(13) < 0.4;
    const values: Record<string, string> = {
      siren,
      nic: siret.slice(9),
      siret: badSirets.has(position) ? `${siret.slice(0, 13)}${(Number(siret[13]) + 1) % 10}` : siret,
      statutDiffusionEtablissement: hidden ? "P" : "O",
      dateCreationEtablissement: created < processed ? created : processed.slice(0, 10),
      trancheEffectifsEtablissement: pickFrom(["NN", "", "00", "01", "02", "03", "11"], draw(14)),
      anneeEffectifsEtablissement: draw(15) < 0.3 ? "2023" : "",
      dateDernierTraitementEtablissement: processed,
      etablissementSiege: nic === 0 ? "true" : "false",
      nombrePeriodesEtablissement: String(1 + Math.floor(draw(16) * 4)),
      complementAdresseEtablissement: draw(17) < 0.1 ? `BAT ${pickFrom(["A", "B", "C"], draw(18))}` : "",
      numeroVoieEtablissement:
        draw(19) < 0.85 ? String(1 + Math.floor(draw(20) * 180) + (changed(site, 2, 0.01) ? 200 : 0)) : "",
      indiceRepetitionEtablissement: draw(21) < 0.03 ? "B" : "",
      typeVoieEtablissement: pickFrom(["RUE", "AV", "BD", "PL", "CHE", "RTE", "IMP", "ALL", "QUA"], draw(22)),
      libelleVoieEtablissement:
        draw(23) < 0.01
          ? `DU GENERAL DE GAULLE, RESIDENCE ${pickFrom(["LES PINS", "LE PARC"], draw(24))}`
          : pickFrom(STREET_NAMES, draw(25)),
      codePostalEtablissement: commune.postalCodes[0] as string,
      libelleCommuneEtablissement: commune.name.toUpperCase(),
      codeCommuneEtablissement: commune.insee,
      identifiantAdresseEtablissement: draw(26) < 0.5 ? `${commune.insee}_${Math.floor(draw(27) * 9000) + 1000}` : "",
      coordonneeLambertAbscisseEtablissement: (100_000 + draw(28) * 1_100_000).toFixed(1),
      coordonneeLambertOrdonneeEtablissement: (6_000_000 + draw(29) * 1_200_000).toFixed(1),
      dateDebut: processed.slice(0, 10),
      etatAdministratifEtablissement: active ? "A" : "F",
      enseigne1Etablissement:
        withSign || changed(site, 1, 0.03)
          ? `${pickFrom(["AU", "CHEZ", "ATELIER", "MAISON", "LE"], draw(30))} ${pickFrom(SURNAMES, draw(31))}${changed(site, 1, 0.03) ? " NOUVEAU" : ""}`
          : "",
      denominationUsuelleEtablissement: draw(32) < 0.05 ? `${pickFrom(SURNAMES, draw(33))} ET FILS` : "",
      activitePrincipaleEtablissement: only2025 ? "" : nafRev2,
      nomenclatureActivitePrincipaleEtablissement: only2025 ? "" : "NAFRev2",
      caractereEmployeurEtablissement: draw(34) < 0.3 ? "O" : "N",
      activitePrincipaleNAF25Etablissement: naf2025,
    };
    if (active) mix.active += 1;
    if (hidden) mix.nonPublic += 1;
    if (naf2025) mix.withNaf2025 += 1;
    if (only2025) mix.naf2025Only += 1;
    if ((firstSite[company + 1] as number) - (firstSite[company] as number) > 1) mix.multiSite += 1;
    const codes = { nafCode: only2025 ? naf2025 : nafRev2, nafCode2025: naf2025 || null };
    if (active && !hidden && !badSirets.has(position) && tradeOf(codes)) {
      expected += 1;
      expectedSirets?.add(siret);
    }
    chunk += `${stockRow(values)}\r\n`;
    if (chunk.length > 1 << 20) {
      await establishments.write(chunk);
      chunk = "";
    }
    if ((position + 1) % 1_000_000 === 0) options.onProgress?.(position + 1);
  }
  await establishments.write(chunk);
  const establishmentBytes = await establishments.end();

  const legalUnits = await textSink(legalUnitsFile, options.plain ?? false);
  await legalUnits.write(`${LEGAL_UNIT_HEADER.join(",")}\r\n`);
  for (const extra of options.extraUnits ?? []) await legalUnits.write(`${csvLine(LEGAL_UNIT_HEADER, extra)}\r\n`);
  const companyOrder = scattered(companies, seed + 1);
  chunk = "";
  for (let position = 0; position < companies; position++) {
    const company = companyOrder(position);
    const draw = (index: number) => random(company, 10 + index);
    const person = draw(0) < 0.45;
    const activity = companyActivity(company);
    const created = `${1960 + Math.floor(draw(1) * 65)}-${pad2(1 + Math.floor(draw(2) * 12))}-${pad2(1 + Math.floor(draw(3) * 28))}`;
    const first = pickFrom(FIRST_NAMES, draw(4));
    const unit: Record<string, string> = {
      siren: sirenOf(company),
      statutDiffusionUniteLegale: nonPublic(company) ? "P" : "O",
      dateCreationUniteLegale: created,
      sigleUniteLegale: !person && draw(5) < 0.05 ? "SARL" : "",
      sexeUniteLegale: person ? pickFrom(["M", "F"], draw(6)) : "",
      prenom1UniteLegale: person ? first : "",
      prenomUsuelUniteLegale: person ? first : "",
      trancheEffectifsUniteLegale: pickFrom(["NN", "", "00", "01", "02"], draw(7)),
      dateDernierTraitementUniteLegale: processingDate(draw(8), draw(9)),
      nombrePeriodesUniteLegale: String(1 + Math.floor(draw(10) * 3)),
      categorieEntreprise: person ? "" : "PME",
      anneeCategorieEntreprise: person ? "" : "2022",
      dateDebut: created,
      etatAdministratifUniteLegale: draw(11) < 0.45 ? "A" : "C",
      nomUniteLegale: person ? pickFrom(SURNAMES, draw(12)) : "",
      denominationUniteLegale: person
        ? ""
        : `${pickFrom(["SARL", "SAS", "EURL", "SCI", "SASU"], draw(13))} ${pickFrom(SURNAMES, draw(14))} ${company}`,
      categorieJuridiqueUniteLegale: person ? "1000" : pickFrom(["5499", "5710", "5720", "6540", "5498"], draw(15)),
      activitePrincipaleUniteLegale: activity,
      nomenclatureActivitePrincipaleUniteLegale: "NAFRev2",
      nicSiegeUniteLegale: makeSiret(sirenOf(company), "0001").slice(9),
      economieSocialeSolidaireUniteLegale: "N",
      caractereEmployeurUniteLegale: draw(16) < 0.3 ? "O" : "N",
      activitePrincipaleNAF25UniteLegale: successors.get(activity)?.[0] ?? "",
    };
    chunk += `${csvLine(LEGAL_UNIT_HEADER, unit)}\r\n`;
    if (chunk.length > 1 << 20) {
      await legalUnits.write(chunk);
      chunk = "";
    }
  }
  await legalUnits.write(chunk);
  const legalUnitBytes = await legalUnits.end();
  return {
    establishments: establishmentsFile,
    legalUnits: legalUnitsFile,
    rows: rows + (options.extraRows?.length ?? 0),
    companies,
    expected,
    expectedSirets,
    mix,
    lastProcessed: lastProcessed.slice(0, 10),
    lastProcessedAt: `${lastProcessed}.000Z`,
    bytes: { establishments: establishmentBytes, legalUnits: legalUnitBytes },
  };
}

const STREET_NAMES = [
  "DE LA REPUBLIQUE",
  "DE LA GARE",
  "VICTOR HUGO",
  "DES ECOLES",
  "JEAN JAURES",
  "DU MOULIN",
  "DE L EGLISE",
  "PASTEUR",
  "DE LA LIBERATION",
  "DES ACACIAS",
];
const SURNAMES = ["MARTIN", "BERNARD", "PETIT", "DURAND", "LEROY", "MOREAU", "SIMON", "LAURENT", "LEFEBVRE", "MICHEL"];
const FIRST_NAMES = ["MARIE", "JEAN", "NATHALIE", "PIERRE", "SOPHIE", "NICOLAS", "JULIE", "THOMAS", "CAMILLE", "LUC"];

/** Establishments of one company: mostly one, a few with many (1.44 on average). */
function sitesOf(value: number): number {
  if (value < 0.84) return 1;
  if (value < 0.94) return 2;
  if (value < 0.97) return 3;
  if (value < 0.994) return 4 + Math.floor(((value - 0.97) / 0.024) * 6);
  return 10 + Math.floor(((value - 0.994) / 0.006) * 31);
}

/** A date of last processing between 2008 and 2026-10-31, more of them recent. */
function processingDate(year: number, day: number): string {
  const from = Date.UTC(2008, 0, 1);
  const to = Date.UTC(2026, 9, 31, 23, 59, 59);
  const at = new Date(from + (to - from) * year ** 0.6);
  const seconds = Math.floor(day * 86_400);
  at.setUTCHours(Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60);
  return at.toISOString().slice(0, 19);
}

/** The national activity mix as cumulative weights over NAF rev. 2 sub-classes. */
function nationalActivities(): { codes: string[]; cumulative: Float64Array; total: number } {
  const file = JSON.parse(readFileSync(NATIONAL_MIX_FILE, "utf8")) as {
    divisions: Record<string, number>;
    subclasses: Record<string, Record<string, number>>;
  };
  const byDivision = new Map<string, string[]>();
  for (const code of nafSubclasses("rev2")) {
    byDivision.set(code.slice(0, 2), [...(byDivision.get(code.slice(0, 2)) ?? []), code]);
  }
  const codes: string[] = [];
  const weights: number[] = [];
  for (const [division, share] of Object.entries(file.divisions)) {
    const inside = byDivision.get(division) ?? [];
    const given = file.subclasses[division] ?? {};
    const rest = inside.filter((code) => !(code in given));
    const restShare = Math.max(0, 1 - Object.values(given).reduce((sum, value) => sum + value, 0));
    for (const code of inside) {
      codes.push(code);
      weights.push(share * (given[code] ?? restShare / Math.max(1, rest.length)));
    }
  }
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((weight, index) => {
    total += weight;
    cumulative[index] = total;
  });
  return { codes, cumulative, total };
}

function nafSuccessors(): Map<string, string[]> {
  const successors = new Map<string, string[]>();
  for (const line of readFileSync(CORRESPONDENCE_FILE, "utf8").trim().split("\n").slice(1)) {
    const [from = "", to = "", type = ""] = line.split(",");
    const list = successors.get(from) ?? [];
    if (type === "Unique" || to.slice(0, 5) === from.slice(0, 5)) list.unshift(to);
    else list.push(to);
    successors.set(from, list);
  }
  return successors;
}

/**
 * A permutation of 0..count-1 that looks random (an affine map modulo the first prime at or above
 * `count`, walking past the values out of range): the position of a row in the file to the row.
 */
function scattered(count: number, seed: number): (position: number) => number {
  if (count <= 1) return (position) => position;
  let prime = Math.max(3, count);
  while (!isPrime(prime)) prime += 1;
  const factor = 1 + (hash32(seed, 7, 7) % (prime - 1));
  const offset = hash32(seed, 8, 8) % prime;
  return (position) => {
    let value = position;
    do value = (factor * value + offset) % prime;
    while (value >= count);
    return value;
  };
}

function isPrime(value: number): boolean {
  if (value % 2 === 0) return value === 2;
  for (let divisor = 3; divisor * divisor <= value; divisor += 2) if (value % divisor === 0) return false;
  return true;
}

/** A 32-bit hash of three numbers (murmur3's finaliser over their mix): the generator's randomness. */
function hash32(seed: number, entity: number, draw: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(entity | 0, 0xcc9e2d51);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(draw, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose value is above `value`. */
function upperBound(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function pickFrom<T>(list: readonly T[], value: number): T {
  return list[Math.floor(value * list.length)] as T;
}

function pad2(value: number): string {
  return String(value).padStart(2, "0");
}

/** A file written as text, plain or as a zip of one CSV named after it. */
async function textSink(
  file: string,
  plain: boolean,
): Promise<{ write(text: string): Promise<void>; end(): Promise<number> }> {
  if (!plain) {
    const zip = zipWriter(file, path.basename(file).replace(/\.zip$/, ".csv"));
    return {
      write: (text) => zip.write(text),
      end: async () => (await zip.end()).uncompressedBytes,
    };
  }
  const out = createWriteStream(file);
  let bytes = 0;
  return {
    write: (text) =>
      new Promise<void>((resolve) => {
        bytes += Buffer.byteLength(text);
        if (out.write(text)) resolve();
        else out.once("drain", resolve);
      }),
    end: () =>
      new Promise<number>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve(bytes))),
      ),
  };
}
