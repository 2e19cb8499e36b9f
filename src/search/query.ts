import { AB_ID_PATTERN } from "../schemas/common.ts";
import { type QueryTerm, queryTerms } from "./normalize.ts";
import { FILLER_WORDS, TRADE_WORDS } from "./vocabulary.ts";

/*
 * What a query asks for, read the same way by every engine: an identifier (SIRET, SIREN, ab_id),
 * or normalised terms with filler words dropped and trade words marked.
 */

export interface Identifier {
  kind: "siret" | "siren" | "ab_id";
  value: string;
}

export interface AnalyzedQuery {
  terms: QueryTerm[];
  identifier: Identifier | null;
}

/** "SIRET 123 456 789 00012", "n° 123456789", "AB_K3M9P2QX": the identifier, or null. */
export function identifierIn(text: string): Identifier | null {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (AB_ID_PATTERN.test(lower)) return { kind: "ab_id", value: lower };
  const bare = trimmed.replace(/^(?:siret|siren|n°|no|num[ée]ro)\s*:?\s*/i, "");
  if (!/^[\d\s.\u00a0\u202f-]+$/.test(bare)) return null;
  const digits = bare.replace(/[^\d]/g, "");
  if (digits.length === 14) return { kind: "siret", value: digits };
  if (digits.length === 9) return { kind: "siren", value: digits };
  return null;
}

export function analyzeQuery(text: string): AnalyzedQuery {
  const identifier = identifierIn(text);
  const terms: QueryTerm[] = [];
  for (const term of queryTerms(text)) {
    if (FILLER_WORDS.has(term.term)) continue;
    // A whole trade word is indexed as typed with the trade (vocabulary.ts): no prefix expansion,
    // so "maçon" does not reach "maçonnerie" in a description.
    terms.push(TRADE_WORDS.has(term.term) ? { term: term.term, prefix: false, trade: true } : term);
  }
  return { terms, identifier };
}
