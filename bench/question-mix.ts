/**
 * The questions bench/national-serving.ts asks the server (issue 35, item 3): thousands of
 * distinct ones drawn from the registry itself, each kind of question a searcher asks in turn: a
 * merchant's name and town, a trade and a postcode, a SIRET, a SIREN, a trade and a misspelled
 * town. Distinct, so that no answer is a cache's; drawn from the registry, so that each has an
 * answer to find at any size.
 */
import { tradeOf } from "../src/domain/sectors.ts";
import { MIN_TYPO_WORD_LENGTH } from "../src/search/typos.ts";

/** What a question is drawn from: a merchant of the registry. */
export interface RegistryRow {
  abId: string;
  siret: string;
  businessName: string;
  city: string;
  postalCode: string;
  nafCode: string;
  nafCode2025: string | null;
}

export const QUESTION_KINDS = ["name_town", "trade_postcode", "siret", "siren", "misspelled_town"] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export interface Question {
  kind: QuestionKind;
  /** The search's text, as typed. */
  q: string;
  /** The merchant it was drawn from (one of those a SIREN or a trade names). */
  abId: string;
}

/**
 * The town with one typo both engines forgive (src/search/typos.ts): in its longest word, if it
 * has MIN_TYPO_WORD_LENGTH letters or more, the two letters at its middle swapped, or one of them
 * dropped when they are the same letter. Null when no word is long enough to be forgiven a typo.
 */
export function misspell(town: string): string | null {
  const words = town.split(/[\s'’-]+/);
  const longest = words.reduce((best, word) => (word.length > best.length ? word : best), "");
  if (longest.length < MIN_TYPO_WORD_LENGTH) return null;
  const middle = Math.floor(longest.length / 2);
  const [before, after] = [longest[middle - 1] as string, longest[middle] as string];
  const typo =
    before === after
      ? longest.slice(0, middle) + longest.slice(middle + 1)
      : longest.slice(0, middle - 1) + after + before + longest.slice(middle + 1);
  return town.replace(longest, typo);
}

/** The word a searcher calls the merchant's trade (its first name), or null for a code no trade has. */
function tradeWord(row: RegistryRow): string | null {
  return tradeOf(row)?.names[0] ?? null;
}

/** The question of this kind about this merchant, or null when the merchant cannot give one. */
function questionOf(kind: QuestionKind, row: RegistryRow): string | null {
  switch (kind) {
    case "name_town":
      return `${row.businessName} ${row.city}`;
    case "trade_postcode": {
      const trade = tradeWord(row);
      return trade && `${trade} ${row.postalCode}`;
    }
    case "siret":
      return row.siret;
    case "siren":
      return row.siret.slice(0, 9);
    case "misspelled_town": {
      const trade = tradeWord(row);
      const town = misspell(row.city);
      return trade && town && `${trade} ${town}`;
    }
  }
}

/**
 * Up to `count` distinct questions, the kinds in turn: the merchant at position i gives the
 * question of kind i modulo 5, kept unless an earlier one was the same (a SIREN of several
 * establishments, a trade in the same postcode) or the merchant cannot give it (no trade, a town
 * too short to misspell). In the rows' order: give them spread over the registry (by ab_id, drawn
 * at random).
 */
export function questionMix(rows: readonly RegistryRow[], count: number): Question[] {
  const questions: Question[] = [];
  const seen = new Set<string>();
  for (const [index, row] of rows.entries()) {
    if (questions.length >= count) break;
    const kind = QUESTION_KINDS[index % QUESTION_KINDS.length] as QuestionKind;
    const q = questionOf(kind, row);
    if (q === null || seen.has(q)) continue;
    seen.add(q);
    questions.push({ kind, q, abId: row.abId });
  }
  return questions;
}
