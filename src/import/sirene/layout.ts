import { readFileSync } from "node:fs";
import { z } from "zod";
import { SIRENE_DATASET_URL } from "../../domain/merchants/apply-official-establishment.ts";

/**
 * The published layout of INSEE's SIRENE stock files (format 3.11 with the NAF 2025 column) and
 * of Etalab's geocoded establishments, from data/sirene-headers.json: every column in its order.
 * The import needs only some of them (establishments.ts); whoever writes such a file (the demo
 * seed, the tests, the import bench) writes them all.
 */
const headers = z
  .object({
    format: z.literal(1),
    etablissement: z.array(z.string()).min(50),
    uniteLegale: z.array(z.string()).min(30),
    geoColumns: z.array(z.string()).min(4),
  })
  .parse(JSON.parse(readFileSync(new URL("../../../data/sirene-headers.json", import.meta.url), "utf8")));

/** StockEtablissement's header. */
export const ESTABLISHMENT_HEADER: readonly string[] = headers.etablissement;
/** A geocoded establishments file's header: INSEE's columns, then Etalab's geocoding columns. */
export const GEOCODED_ESTABLISHMENT_HEADER: readonly string[] = [...headers.etablissement, ...headers.geoColumns];
/** StockUniteLegale's header. */
export const LEGAL_UNIT_HEADER: readonly string[] = headers.uniteLegale;

/** The three files a SIRENE import reads (the keys of SireneImportFiles). */
export type SireneFileKind = "establishments" | "legalUnits" | "geo";

/**
 * Columns only the SIRENE layout used before 2019 has (the "sirc-" files of "SIRENE historique",
 * one file of about a hundred columns per establishment with its company: SIREN, NIC,
 * L1_NORMALISEE ... APET700, LIBAPET, ... NOMEN_LONG, ... DEPCOMEN, semicolon separated, quoted,
 * in latin1; INSEE stopped it when it published the stock files of the new SIRENE in 2019).
 */
const BEFORE_2019_COLUMNS = ["l1_normalisee", "apet700", "libapet", "nomen_long", "depcomen"];

/** The header's names, whatever its separator, quotes and case. */
function namesOf(firstLine: string): string[] {
  return firstLine.split(/[,;\t|]/).map((name) =>
    name
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase(),
  );
}

/**
 * Why a file's header is not one of the layouts the import reads as `kind`, in a sentence that
 * says what the file is and what to give instead; null when it may be (the reader then checks
 * that it has every column it needs). The layouts read are INSEE's stock files since 2019: the
 * first StockEtablissement and StockUniteLegale of the new SIRENE (48 and 33 columns), today's
 * (format 3.11: 53 and 34 columns, and the NAF 2025 column of 2025), and Etalab's geocoded
 * establishments; columns are found by name, whatever their case and order.
 */
export function layoutRefusal(firstLine: string, kind: SireneFileKind): string | null {
  const names = namesOf(firstLine);
  const has = (name: string) => names.includes(name.toLowerCase());
  if (has("siren") && has("nic") && BEFORE_2019_COLUMNS.some(has)) {
    return (
      'this is the SIRENE layout used before 2019 (the "sirc-" files of SIRENE historique: SIREN;NIC;L1_NORMALISEE;...;APET700;..., ' +
      `semicolon separated, latin1), which the import does not read: take INSEE's current stock files (StockEtablissement, StockUniteLegale) from ${SIRENE_DATASET_URL}`
    );
  }
  if (!firstLine.includes(",") && firstLine.includes(";") && has("siren")) {
    return "the columns are separated by semicolons (a spreadsheet's export?): INSEE's stock files separate them by commas; give the file as published";
  }
  if (kind === "legalUnits" && has("siret")) {
    return "this is an establishments file (it has a siret column), not StockUniteLegale: give it with --etablissements";
  }
  if (kind === "establishments" && !has("siret") && has("statutDiffusionUniteLegale")) {
    return "this is a legal units file (StockUniteLegale: no siret column), not StockEtablissement: give it with --unites-legales";
  }
  if (kind === "geo" && has("siret") && !(has("longitude") && has("latitude"))) {
    return "this file has no longitude and latitude columns: --geo takes Etalab's geocoded SIRENE establishments (geo_siret_<department>.csv.gz)";
  }
  return null;
}
