import { readFileSync } from "node:fs";
import { z } from "zod";

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
