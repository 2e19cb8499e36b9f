import { readFileSync } from "node:fs";
/**
 * INSEE's SIRENE stock of establishments as the official file writes it (StockEtablissement,
 * format 3.11 with the NAF 2025 column): the published header, in its order, and one row of it.
 */
export const ESTABLISHMENT_HEADER: readonly string[] = (
  JSON.parse(readFileSync(new URL("../../data/sirene-headers.json", import.meta.url), "utf8")) as {
    etablissement: string[];
  }
).etablissement;

/** One CSV row in the header's order; the columns not given are empty. */
export function stockRow(values: Record<string, string>): string {
  return ESTABLISHMENT_HEADER.map((name) => {
    const value = values[name] ?? "";
    return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  }).join(",");
}
