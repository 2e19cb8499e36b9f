import { nomenclatureOf } from "../domain/naf.ts";
import { AB_ID_PATTERN } from "../schemas/common.ts";
import { normalizeTag, type QueryTerm, queryTerms } from "./normalize.ts";
import { type OpeningCheck, openingCheck } from "./opening-filter.ts";
import { MAX_SEARCH_DEPTH, type SearchQuery } from "./search-index.ts";
import { FILLER_WORDS, TRADE_WORDS } from "./vocabulary.ts";

/*
 * What a query asks for, read the same way by every engine: an identifier (SIRET, SIREN, ab_id),
 * or normalised terms with filler words dropped and trade words marked, and the NAF codes it
 * names (NAF rev. 2 or NAF 2025, a filter on either of a merchant's two codes).
 */

export interface Identifier {
  kind: "siret" | "siren" | "ab_id";
  value: string;
}

export interface AnalyzedQuery {
  terms: QueryTerm[];
  identifier: Identifier | null;
  /** NAF sub-classes named in the text ("56.10C", "5611G"), as INSEE writes them: each must be one of the merchant's. */
  nafCodes: string[];
}

/** A NAF sub-class code as typed: 56.10C, 56.10c, 5610C. */
const NAF_IN_TEXT = /(?<![\p{L}\p{N}.])(\d{2})\.?(\d{2})([A-Za-z])(?![\p{L}\p{N}])/gu;

/** The real NAF codes a text names, and the text without them. */
export function nafCodesIn(text: string): { nafCodes: string[]; rest: string } {
  const nafCodes: string[] = [];
  const rest = text.replace(NAF_IN_TEXT, (typed, division: string, group: string, letter: string) => {
    const code = `${division}.${group}${letter.toUpperCase()}`;
    if (nomenclatureOf(code) === null) return typed;
    if (!nafCodes.includes(code)) nafCodes.push(code);
    return " ";
  });
  return { nafCodes, rest };
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
  const { nafCodes, rest } = nafCodesIn(text);
  const terms: QueryTerm[] = [];
  for (const term of queryTerms(rest)) {
    if (FILLER_WORDS.has(term.term)) continue;
    // A whole trade word is indexed as typed with the trade (vocabulary.ts): no prefix expansion,
    // so "maçon" does not reach "maçonnerie" in a description.
    terms.push(TRADE_WORDS.has(term.term) ? { term: term.term, prefix: false, trade: true } : term);
  }
  return { terms, identifier, nafCodes };
}

export interface NormalizedQuery extends AnalyzedQuery {
  /** Canonical tags (normalizeTag), deduplicated. */
  tags: string[];
  near: { lat: number; lng: number; radiusKm: number | null } | null;
  limit: number;
  offset: number;
  /** The opening filters' instants (none: no filter). */
  opening: OpeningCheck[];
}

/** Turns a caller's query into safe, normalised parts; null when it cannot match anything. */
export function normalizeSearchQuery(query: SearchQuery): NormalizedQuery | null {
  const limit = Math.floor(Number(query.limit));
  const offset = Math.floor(Number(query.offset ?? 0));
  if (!Number.isFinite(limit) || limit < 1 || !Number.isFinite(offset) || offset < 0) return null;
  if (offset + limit > MAX_SEARCH_DEPTH) return null;
  const tags = [
    ...new Set(
      (Array.isArray(query.tags) ? query.tags : [])
        .filter((tag): tag is string => typeof tag === "string")
        .map(normalizeTag)
        // A tag with no letter or digit is never indexed, so it cannot be checked: it is ignored.
        .filter((tag) => tag.length > 0),
    ),
  ];
  let near: NormalizedQuery["near"] = null;
  if (query.near) {
    const { lat, lng, radiusKm } = query.near;
    const valid =
      Number.isFinite(lat) &&
      Number.isFinite(lng) &&
      (radiusKm === null || (Number.isFinite(radiusKm) && radiusKm > 0)) &&
      Math.abs(lat) <= 90 &&
      Math.abs(lng) <= 180;
    if (!valid) return null;
    near = { lat, lng, radiusKm };
  }
  const instants = (query.openAt ?? []).filter((at) => at instanceof Date && Number.isFinite(at.getTime()));
  if (instants.length !== (query.openAt ?? []).length) return null;
  const opening = instants.map(openingCheck);
  const { terms, identifier, nafCodes } = analyzeQuery(typeof query.text === "string" ? query.text : "");
  return { terms, identifier, nafCodes, tags, near, limit, offset, opening };
}
