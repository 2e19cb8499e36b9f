/**
 * INSEE's SIRENE stock of establishments as the official file writes it (StockEtablissement,
 * format 3.11 with the NAF 2025 column): the published header, in its order, and one row of it.
 */
import { csvLine } from "../../src/import/csv.ts";
import { ESTABLISHMENT_HEADER, LEGAL_UNIT_HEADER } from "../../src/import/sirene/layout.ts";

export { ESTABLISHMENT_HEADER };

/** One CSV row in the header's order; the columns not given are empty. */
export function stockRow(values: Record<string, string>): string {
  return csvLine(ESTABLISHMENT_HEADER, values);
}

/** StockUniteLegale's text: its published header, then one row per company (the columns not given are empty). */
export function legalUnitsCsv(units: Record<string, string>[]): string {
  return `${[LEGAL_UNIT_HEADER.join(","), ...units.map((unit) => csvLine(LEGAL_UNIT_HEADER, unit))].join("\n")}\n`;
}

/** A public company of StockUniteLegale, as the tests name the establishments' companies. */
export function publicCompany(siren: string, name: string, createdOn = "2011-09-15"): Record<string, string> {
  return {
    siren,
    statutDiffusionUniteLegale: "O",
    dateCreationUniteLegale: createdOn,
    denominationUniteLegale: name,
    categorieJuridiqueUniteLegale: "5499",
    etatAdministratifUniteLegale: "A",
  };
}
