import { readFileSync } from "node:fs";
import { z } from "zod";
import type {
  OfficialEstablishment,
  OfficialLegalUnit,
  OfficialPosition,
} from "../../domain/merchants/official-establishment.ts";
import { activityCodes } from "../../domain/naf.ts";

/**
 * A row of INSEE's StockEtablissement file (SIRENE stock, format 3.11: 53 columns, 54 with
 * activitePrincipaleNAF25Etablissement) as the registry reads it. The columns below are the ones
 * the import needs; the others are allowed and ignored.
 */
export const ESTABLISHMENT_COLUMNS = [
  "siren",
  "nic",
  "siret",
  "statutDiffusionEtablissement",
  "dateCreationEtablissement",
  "dateDernierTraitementEtablissement",
  "numeroVoieEtablissement",
  "indiceRepetitionEtablissement",
  "typeVoieEtablissement",
  "libelleVoieEtablissement",
  "codePostalEtablissement",
  "libelleCommuneEtablissement",
  "codeCommuneEtablissement",
  "etatAdministratifEtablissement",
  "enseigne1Etablissement",
  "denominationUsuelleEtablissement",
  "activitePrincipaleEtablissement",
] as const;

/**
 * The establishment's NAF 2025 code, beside the NAF rev. 2 one since 2025; read when the file has
 * the column (older files do not, and SIRENE's may drop it once NAF 2025 is its main code in 2027).
 */
export const NAF_2025_COLUMN = "activitePrincipaleNAF25Etablissement";

/**
 * The start of the row's current period: for a closed establishment, the day it closed. Read when
 * the file has it (every StockEtablissement layout does; rows written without it have no date).
 */
export const PERIOD_START_COLUMN = "dateDebut";

/** The day a row's current period started (a closed establishment's closing, a ceased company's end), else null. */
export function periodStartOf(row: Record<string, string>): string | null {
  return dateOf(spaced(row[PERIOD_START_COLUMN] ?? ""));
}

/** SIRENE's street type codes and the words addresses write them with (data/sirene-street-types.json). */
export const streetTypes: ReadonlyMap<string, string> = new Map(
  Object.entries(
    z
      .object({ format: z.literal(1), types: z.record(z.string(), z.string()) })
      .parse(JSON.parse(readFileSync(new URL("../../../data/sirene-street-types.json", import.meta.url), "utf8")))
      .types,
  ),
);

/** SIRENE's repetition index (indiceRepetitionEtablissement) and how an address writes it. */
const REPETITIONS: ReadonlyMap<string, string> = new Map([
  ["B", "bis"],
  ["T", "ter"],
  ["Q", "quater"],
  ["C", "quinquies"],
]);

/** Words a French street name writes in lower case after its first word ("rue de la Paix"). */
const PARTICLES: ReadonlySet<string> = new Set([
  "de",
  "du",
  "des",
  "la",
  "le",
  "les",
  "et",
  "en",
  "sur",
  "sous",
  "aux",
  "au",
  "à",
  "lès",
  "lez",
]);

/**
 * A street name as INSEE writes it (capitals, no accents: "DES JARDINS NEUFS") in the case people
 * write it ("des Jardins Neufs"): each word with an initial capital, particles and elisions (d', l')
 * in lower case wherever they stand after the street type, words with digits and Roman numerals
 * as written. Letters are never added: an accent INSEE left out stays out.
 */
export function streetNameCase(name: string, afterType: boolean): string {
  // INSEE writes an elision as a lone letter ("DE L ETOILE"): it joins its word again ("de l'Etoile").
  const words: string[] = [];
  const given = name.split(" ").filter(Boolean);
  for (let index = 0; index < given.length; index++) {
    const word = given[index] as string;
    const next = given[index + 1];
    if ((word === "L" || word === "D") && next !== undefined && /^\p{L}/u.test(next)) {
      words.push(`${word}'${next}`);
      index++;
    } else words.push(word);
  }
  return words
    .map((word, position) => {
      if (/\d/.test(word) || (/^[IVXLCDM]{2,}$/.test(word) && word !== "DIX")) return word;
      const lower = word.toLowerCase();
      const leading = position === 0 && !afterType;
      return lower
        .split("-")
        .map((part, inWord) => {
          const elision = /^([dl])['’](.+)$/u.exec(part);
          if (elision) {
            const [, article = "", rest = ""] = elision;
            const head = leading && inWord === 0 ? article.toUpperCase() : article;
            return `${head}'${capitalise(rest)}`;
          }
          if (PARTICLES.has(part) && !(leading && inWord === 0)) return part;
          return capitalise(part);
        })
        .join("-");
    })
    .join(" ");
}

function capitalise(word: string): string {
  return word.replace(/^\p{L}/u, (letter) => letter.toUpperCase());
}

/** A street line from SIRENE's columns: number, repetition, type and name, each part only when given. */
export function streetFromColumns(number: string, repetition: string, typeCode: string, name: string): string {
  const type = typeCode ? (streetTypes.get(typeCode.toUpperCase()) ?? typeCode.toLowerCase()) : "";
  const repeated = repetition ? (REPETITIONS.get(repetition.toUpperCase()) ?? repetition.toLowerCase()) : "";
  return [number, repeated, type, streetNameCase(name, type !== "")].filter(Boolean).join(" ");
}

/**
 * The street line of a geocoded file's labelled address (the national address base's label, as
 * people write it: "12 Rue de la République 69002 Lyon"), when the geocoder matched the house or
 * the street in the establishment's postal code: the label without its postal code and town, the
 * street type in lower case as in "12 rue de la République". Null when the label is not usable.
 */
export function streetFromLabel(label: string, postalCode: string, matchType: string | null): string | null {
  if (matchType !== "housenumber" && matchType !== "street") return null;
  const marker = ` ${postalCode} `;
  const at = label.lastIndexOf(marker);
  if (!postalCode || at <= 0) return null;
  const street = label.slice(0, at).trim();
  const words = street.split(" ");
  const typeAt = words.findIndex((word) => !/^\d/.test(word) && !REPETITION_WORDS.has(word.toLowerCase()));
  if (typeAt >= 0) {
    const word = words[typeAt] as string;
    if (STREET_TYPE_WORDS.has(word.toLowerCase())) words[typeAt] = word.toLowerCase();
  }
  return words.join(" ");
}

const REPETITION_WORDS: ReadonlySet<string> = new Set(REPETITIONS.values());
const STREET_TYPE_WORDS: ReadonlySet<string> = new Set([...streetTypes.values()].filter((word) => !word.includes(" ")));

/**
 * The columns Etalab's geocoded SIRENE files add to the establishment's (per department,
 * `geo_siret_69.csv.gz`) that the import reads: WGS84 degrees, the geocoder's score (0-1), what it
 * found (housenumber, interpolation, street, locality, municipality) and the address it found,
 * labelled as the national address base writes it.
 */
export const GEO_COLUMNS = ["longitude", "latitude", "geo_score", "geo_type", "geo_adresse"] as const;

/** A geocoded row's position, or null when it has none (or not a usable one). */
export function positionOf(row: Record<string, string>): OfficialPosition | null {
  const longitude = Number.parseFloat(row.longitude ?? "");
  const latitude = Number.parseFloat(row.latitude ?? "");
  if (!Number.isFinite(longitude) || !Number.isFinite(latitude)) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  const score = Number.parseFloat(row.geo_score ?? "");
  return {
    latitude,
    longitude,
    score: Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : null,
    type: (row.geo_type ?? "").trim() || null,
    label: spaced(row.geo_adresse ?? "") || null,
  };
}

/** INSEE's text with its runs of spaces made one (its columns are padded in places). */
function spaced(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A date of the file (YYYY-MM-DD, or the start of a timestamp), else null. */
function dateOf(text: string): string | null {
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
}

/**
 * INSEE's timestamp of its last processing of a record (dateDernierTraitement..., "2024-03-15T14:22:11",
 * local time without a zone, taken as written), as an ISO instant; null when absent or unreadable.
 */
export function processedAtOf(text: string): string | null {
  const value = text.trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(value) ? `${value.slice(0, 19)}.000Z` : null;
}

/** A legal unit's processing date, when its file gives one (older layouts and tests' files may not). */
function processedOf(text: string | undefined): { processedAt?: string } {
  const processedAt = processedAtOf(text ?? "");
  return processedAt ? { processedAt } : {};
}

export function establishmentOf(row: Record<string, string>): OfficialEstablishment {
  const value = (name: (typeof ESTABLISHMENT_COLUMNS)[number]) => spaced(row[name] ?? "");
  const active = value("etatAdministratifEtablissement") === "A";
  return {
    siret: value("siret"),
    siren: value("siren"),
    public: value("statutDiffusionEtablissement") === "O",
    active,
    closedOn: active ? null : periodStartOf(row),
    ...activityCodes(value("activitePrincipaleEtablissement"), (row[NAF_2025_COLUMN] ?? "").trim() || null),
    name: value("enseigne1Etablissement") || value("denominationUsuelleEtablissement") || null,
    street: streetFromColumns(
      value("numeroVoieEtablissement"),
      value("indiceRepetitionEtablissement"),
      value("typeVoieEtablissement"),
      value("libelleVoieEtablissement"),
    ),
    postalCode: value("codePostalEtablissement"),
    city: value("libelleCommuneEtablissement"),
    inseeCode: value("codeCommuneEtablissement"),
    createdOn: dateOf(value("dateCreationEtablissement")),
    processedAt: processedAtOf(value("dateDernierTraitementEtablissement")),
    position: null,
  };
}

/**
 * The establishment placed where a geocoded file puts it: its position, and its street as the
 * address base labels it when the geocoder matched the street or the house (people's spelling,
 * accents included), else the street from INSEE's columns.
 */
export function placedAt(
  establishment: OfficialEstablishment,
  position: OfficialPosition | null,
): OfficialEstablishment {
  if (!position) return establishment;
  const labelled = position.label ? streetFromLabel(position.label, establishment.postalCode, position.type) : null;
  return { ...establishment, position, street: labelled ?? establishment.street };
}

/** When INSEE last changed a legal unit's record: read when the file has the column (StockUniteLegale has). */
export const LEGAL_UNIT_PROCESSED_COLUMN = "dateDernierTraitementUniteLegale";

/** The columns of StockUniteLegale the import reads (the file has 34, 35 with the NAF 2025 one). */
export const LEGAL_UNIT_COLUMNS = [
  "siren",
  "statutDiffusionUniteLegale",
  "dateCreationUniteLegale",
  "categorieJuridiqueUniteLegale",
  "denominationUniteLegale",
  "nomUniteLegale",
  "nomUsageUniteLegale",
  "prenomUsuelUniteLegale",
] as const;

/**
 * A legal unit's row, or null when it is not public (its name is then not to be used) or names
 * nobody. Its name is INSEE's, as written: the company's name (denominationUniteLegale), or for a
 * person (a sole trader) the usual first name and the name of use, else the birth name.
 */
export function legalUnitOf(row: Record<string, string>): OfficialLegalUnit | null {
  const value = (name: (typeof LEGAL_UNIT_COLUMNS)[number]) => spaced(row[name] ?? "");
  if (value("statutDiffusionUniteLegale") !== "O") return null;
  const person = [value("prenomUsuelUniteLegale"), value("nomUsageUniteLegale") || value("nomUniteLegale")]
    .filter(Boolean)
    .join(" ");
  const name = value("denominationUniteLegale") || person;
  if (!name) return null;
  return {
    siren: value("siren"),
    legalName: name,
    legalForm: /^\d{4}$/.test(value("categorieJuridiqueUniteLegale")) ? value("categorieJuridiqueUniteLegale") : null,
    createdOn: dateOf(value("dateCreationUniteLegale")),
    ...processedOf(row[LEGAL_UNIT_PROCESSED_COLUMN]),
  };
}
