/**
 * INSEE's SIRENE stock of establishments as the official file writes it (StockEtablissement,
 * format 3.11 with the NAF 2025 column): the published header, in its order, and one row of it.
 */
import { csvLine } from "../../src/import/csv.ts";
import { ESTABLISHMENT_HEADER } from "../../src/import/sirene/layout.ts";

export { ESTABLISHMENT_HEADER };

/** One CSV row in the header's order; the columns not given are empty. */
export function stockRow(values: Record<string, string>): string {
  return csvLine(ESTABLISHMENT_HEADER, values);
}
