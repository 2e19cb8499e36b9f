import { readFileSync } from "node:fs";
import codesNaf from "@socialgouv/codes-naf";
import { z } from "zod";

/**
 * INSEE's two nomenclatures of activities the registry reads: NAF rev. 2 (SIRENE's reference
 * until the end of 2026, labels from @socialgouv/codes-naf) and NAF 2025 (the reference from
 * 1 January 2027, data/naf2025.json). Their sub-class codes never coincide: NAF rev. 2 ends its
 * codes in A to F or Z, NAF 2025 in G to L or Y, so a code says which nomenclature it is from.
 */

/** A sub-class code as INSEE writes it: 43.22A, 56.11G. */
export const NAF_CODE_PATTERN = /^\d{2}\.\d{2}[A-Z]$/;

export type NafNomenclature = "rev2" | "2025";

const naf2025File = z
  .object({
    format: z.literal(1),
    subclasses: z.record(z.string().regex(NAF_CODE_PATTERN), z.string().min(1)),
  })
  .parse(JSON.parse(readFileSync(new URL("../../data/naf2025.json", import.meta.url), "utf8")));

const labels: Record<NafNomenclature, ReadonlyMap<string, string>> = {
  rev2: new Map(codesNaf.filter((entry) => NAF_CODE_PATTERN.test(entry.id)).map((entry) => [entry.id, entry.label])),
  "2025": new Map(Object.entries(naf2025File.subclasses)),
};

/** Every sub-class of the nomenclature, in INSEE's order. */
export function nafSubclasses(nomenclature: NafNomenclature): readonly string[] {
  return [...labels[nomenclature].keys()];
}

/** The nomenclature a sub-class code belongs to, or null when it is no sub-class of either. */
export function nomenclatureOf(code: string): NafNomenclature | null {
  if (labels.rev2.has(code)) return "rev2";
  if (labels["2025"].has(code)) return "2025";
  return null;
}

/** INSEE's French label of a sub-class of either nomenclature. */
export function nafLabel(code: string): string | undefined {
  return labels.rev2.get(code) ?? labels["2025"].get(code);
}

/**
 * An establishment's two codes from what a register gives: its main activity code (SIRENE's
 * `activitePrincipaleEtablissement`, the API's `activite_principale`: NAF rev. 2 until SIRENE
 * switches to NAF 2025, which then writes NAF 2025 there) and the NAF 2025 code beside it, if any.
 * `nafCode` is the main code as given, or the NAF 2025 code when the main one is empty; a NAF
 * 2025 code is kept only if it is one (a code of neither nomenclature says nothing about it).
 */
export function activityCodes(main: string, naf2025: string | null): { nafCode: string; nafCode2025: string | null } {
  const beside = naf2025 !== null && labels["2025"].has(naf2025) ? naf2025 : null;
  const nafCode2025 = beside ?? (labels["2025"].has(main) ? main : null);
  return { nafCode: main || (nafCode2025 ?? ""), nafCode2025 };
}
