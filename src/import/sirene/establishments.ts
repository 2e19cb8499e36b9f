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

/** SIRENE's street type codes and the words addresses write them with (data/sirene-street-types.json). */
export const streetTypes: Readonly<Record<string, string>> = z
  .object({ format: z.literal(1), types: z.record(z.string(), z.string()) })
  .parse(JSON.parse(readFileSync(new URL("../../../data/sirene-street-types.json", import.meta.url), "utf8"))).types;

/** INSEE writes names in capitals (and without accents): words get an initial capital, particles none. */
function titleCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/(^|[\s'-])(\p{L})/gu, (_match, before: string, letter: string) => before + letter.toUpperCase())
    .replace(/(?<=\s)(De|Du|Des|La|Le|Les|Et|En|Sur|Sous|Aux|Au)(?=\s)/g, (word) => word.toLowerCase());
}

const REPETITION: Record<string, string> = { B: "bis", T: "ter", Q: "quater", C: "quinquies" };

/**
 * The columns Etalab's geocoded SIRENE files add to the establishment's (per department,
 * `geo_siret_69.csv.gz`): WGS84 degrees, the geocoder's score (0-1) and what it found
 * (housenumber, interpolation, street, locality, municipality).
 */
export const GEO_COLUMNS = ["longitude", "latitude", "geo_score", "geo_type"] as const;

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
  };
}

export function establishmentOf(row: Record<string, string>): OfficialEstablishment {
  const value = (name: (typeof ESTABLISHMENT_COLUMNS)[number]) => (row[name] ?? "").trim();
  const number = [value("numeroVoieEtablissement"), REPETITION[value("indiceRepetitionEtablissement")] ?? ""]
    .filter(Boolean)
    .join(" ");
  const type = streetTypes[value("typeVoieEtablissement")] ?? value("typeVoieEtablissement").toLowerCase();
  const street = [number, type, titleCase(value("libelleVoieEtablissement"))].filter(Boolean).join(" ");
  const name = value("enseigne1Etablissement") || value("denominationUsuelleEtablissement");
  const date = (text: string) => (/^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null);
  return {
    siret: value("siret"),
    siren: value("siren"),
    public: value("statutDiffusionEtablissement") === "O",
    active: value("etatAdministratifEtablissement") === "A",
    ...activityCodes(value("activitePrincipaleEtablissement"), (row[NAF_2025_COLUMN] ?? "").trim() || null),
    name: name ? titleCase(name) : null,
    street,
    postalCode: value("codePostalEtablissement"),
    city: titleCase(value("libelleCommuneEtablissement")),
    inseeCode: value("codeCommuneEtablissement"),
    createdOn: date(value("dateCreationEtablissement")),
    processedAt: /^\d{4}-\d{2}-\d{2}T/.test(value("dateDernierTraitementEtablissement"))
      ? `${value("dateDernierTraitementEtablissement").slice(0, 19)}.000Z`
      : null,
    position: positionOf(row),
  };
}

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

/** A legal unit's row, or null when it is not public (its name is then not to be used). */
export function legalUnitOf(row: Record<string, string>): OfficialLegalUnit | null {
  const value = (name: (typeof LEGAL_UNIT_COLUMNS)[number]) => (row[name] ?? "").trim();
  if (value("statutDiffusionUniteLegale") !== "O") return null;
  const person = [value("prenomUsuelUniteLegale"), value("nomUsageUniteLegale") || value("nomUniteLegale")]
    .filter(Boolean)
    .join(" ");
  const name = value("denominationUniteLegale") || person;
  if (!name) return null;
  const created = value("dateCreationUniteLegale");
  return {
    siren: value("siren"),
    legalName: titleCase(name),
    legalForm: /^\d{4}$/.test(value("categorieJuridiqueUniteLegale")) ? value("categorieJuridiqueUniteLegale") : null,
    createdOn: /^\d{4}-\d{2}-\d{2}/.test(created) ? created.slice(0, 10) : null,
  };
}
