import { withoutControlCharacters } from "../../schemas/common.ts";
import { MERCHANT_TEXT_LIMITS } from "../../schemas/merchant-declaration.ts";

type LimitedField = keyof typeof MERCHANT_TEXT_LIMITS;

/**
 * The merchant field each text column of the SIRENE files may fill (a name, a street, a town), and
 * so the limit a merchant declaration has for it: a row never brings what a declaration could not
 * say. INSEE's own widths are within them (a sign 50 characters, a street label 100, a company's
 * name 120), so a real row is never refused for its length.
 */
const FIELD_OF_COLUMN: ReadonlyMap<string, LimitedField> = new Map<string, LimitedField>([
  ["enseigne1Etablissement", "business_name"],
  ["enseigne2Etablissement", "business_name"],
  ["enseigne3Etablissement", "business_name"],
  ["denominationUsuelleEtablissement", "business_name"],
  ["denominationUsuelle1UniteLegale", "business_name"],
  ["denominationUsuelle2UniteLegale", "business_name"],
  ["denominationUsuelle3UniteLegale", "business_name"],
  ["denominationUniteLegale", "legal_name"],
  ["sigleUniteLegale", "legal_name"],
  ["nomUniteLegale", "legal_name"],
  ["nomUsageUniteLegale", "legal_name"],
  ["prenomUsuelUniteLegale", "legal_name"],
  ["pseudonymeUniteLegale", "legal_name"],
  ["complementAdresseEtablissement", "street"],
  ["libelleVoieEtablissement", "street"],
  ["libelleCommuneEtablissement", "city"],
]);

const LABEL: Record<LimitedField, string> = {
  legal_name: "a legal name",
  business_name: "a business name",
  street: "a street",
  city: "a town",
};

/**
 * The other columns an import reads are codes, numbers, dates and the geocoder's labels: held to
 * the longest a declared one-line field may be.
 */
const OTHER_COLUMN_MAX = Math.max(...Object.values(MERCHANT_TEXT_LIMITS));
const SHORTEST_LIMIT = Math.min(...Object.values(MERCHANT_TEXT_LIMITS));

/**
 * A row of a SIRENE file made fit to import, before anything reads it: its values cleaned of
 * control characters and bidirectional overrides (src/schemas/common.ts), and each held to the
 * limit of the field it fills. Returns why the row is refused (the column named, its length and
 * the limit), or null when it is fit; the row's values are replaced by their cleaned text. A value
 * over its limit refuses the row rather than being cut: a shortened name or street would be
 * published as INSEE's when INSEE never wrote it.
 */
export function refusedRow(row: Record<string, string>): string | null {
  for (const column in row) {
    const value = withoutControlCharacters(row[column] as string);
    row[column] = value;
    // Most values are short: the limits are looked up only for those that could be over one.
    if (value.length <= SHORTEST_LIMIT) continue;
    const field = FIELD_OF_COLUMN.get(column);
    const max = field ? MERCHANT_TEXT_LIMITS[field] : OTHER_COLUMN_MAX;
    const length = value.length > max ? value.trim().length : 0;
    if (length > max) {
      return `${column}: ${length} characters, more than the ${max} ${field ? `${LABEL[field]} may have` : "any column the import reads may have"}`;
    }
  }
  return null;
}
