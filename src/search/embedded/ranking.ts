import { type BoundingBox, boundingBox, EARTH_RADIUS_KM, type GeoPoint, haversineKm } from "../../domain/geo.ts";
import type { QueryTerm } from "../normalize.ts";
import { TEXT_COLUMNS } from "./tables.ts";

/*
 * Query building and ranking for the embedded index, as pure functions.
 *
 * Query safety: the user's text never reaches FTS5 as query syntax. It is reduced to normalised
 * terms (letters and digits only, see normalize.ts) and each term is written as an FTS5 string
 * ("term" or "term"*), so operators (OR, NOT, NEAR, ^, :, -, *, parentheses, braces) typed by a
 * user are at worst searched as words.
 */

// Terms hold letters and digits only; doubling quotes is belt and braces.
const phraseOf = (word: string) => `"${word.replaceAll('"', '""')}"`;

function quote(term: QueryTerm): string {
  if (term.alternatives && term.alternatives.length > 0) {
    return `(${term.alternatives.map(phraseOf).join(" OR ")})`;
  }
  const phrase = phraseOf(term.term);
  return term.prefix ? `${phrase}*` : phrase;
}

/**
 * The columns a query of one trade word must match in: not the place, nor the description (which
 * names the town too), so a town never makes a merchant a match for a trade.
 */
const TRADE_FILTER = `{${TEXT_COLUMNS.filter((column) => column !== "place" && column !== "about").join(" ")}}`;

/**
 * Every term must match somewhere in the merchant's text (no column filter needed: no query word
 * can reach the `filters` column's tokens, see filter-tokens.ts); a query of one trade word, in
 * the name, trade, products or tags (TRADE_FILTER): "maçon" alone is not a merchant of Mâcon. With
 * more words, the others narrow the answer (checking the rule for them too doubled the cost).
 */
export function allTermsMatch(terms: readonly QueryTerm[]): string {
  return terms
    .map((term) => (terms.length === 1 && term.trade ? `${TRADE_FILTER} : ${quote(term)}` : quote(term)))
    .join(" AND ");
}

/**
 * The whole MATCH of a merchant search: every term in the text, every tag token and, when a point
 * is given, one of the cells covering it (tokens only the `filters` column holds). Tokens are
 * quoted like terms (letters, digits and the filter mark). `cells` null: no cell constraint.
 */
export function matchExpression(
  terms: readonly QueryTerm[],
  tagTokens: readonly string[],
  cells: readonly string[] | null,
  anyOf: readonly (readonly string[])[] = [],
): string {
  const parts: string[] = [];
  if (terms.length > 0) parts.push(`(${allTermsMatch(terms)})`);
  const exact = (token: string): QueryTerm => ({ term: token, prefix: false });
  const oneOf = (tokens: readonly string[]) => `(${tokens.map((token) => quote(exact(token))).join(" OR ")})`;
  if (tagTokens.length > 0) parts.push(`(${tagTokens.map((token) => quote(exact(token))).join(" AND ")})`);
  if (cells && cells.length > 0) parts.push(oneOf(cells));
  // Each group: one of its tokens (the opening filters, opening-filter.ts).
  for (const tokens of anyOf) if (tokens.length > 0) parts.push(oneOf(tokens));
  return parts.join(" AND ");
}

export { type BoundingBox, boundingBox, type GeoPoint, haversineKm };

/** The same distance in SQL (bundled SQLite has math functions), for filtering before LIMIT. */
export function haversineSql(latColumn: string, lngColumn: string): string {
  return `(2 * ${EARTH_RADIUS_KM} * asin(min(1, sqrt(
    power(sin(radians(${latColumn} - @lat) / 2), 2) +
    cos(radians(@lat)) * cos(radians(${latColumn})) * power(sin(radians(${lngColumn} - @lng) / 2), 2)
  ))))`;
}

/*
 * Ranking blends three signals, each brought to [0, 1]:
 * - text: bm25 relevance (FTS5 gives it negated) divided by the best relevance of the answer;
 * - trust: the trust total (0-100) / 100;
 * - proximity: 1 - distance / radius, when a point is given.
 * Text leads when there is text; without text (tags or a point alone) trust and proximity decide.
 */
export const WEIGHTS = {
  textAndNear: { text: 0.55, trust: 0.25, proximity: 0.2 },
  textOnly: { text: 0.7, trust: 0.3, proximity: 0 },
  nearOnly: { text: 0, trust: 0.5, proximity: 0.5 },
  neither: { text: 0, trust: 1, proximity: 0 },
} as const;

export type Weights = (typeof WEIGHTS)[keyof typeof WEIGHTS];

export function weightsFor(hasText: boolean, hasPoint: boolean): Weights {
  if (hasText) return hasPoint ? WEIGHTS.textAndNear : WEIGHTS.textOnly;
  return hasPoint ? WEIGHTS.nearOnly : WEIGHTS.neither;
}

export interface RankInput {
  /** Text relevance already in [0, 1] (1 when there is no text). */
  text: number;
  trust: number;
  distanceKm: number | null;
  radiusKm: number | null;
}

export function blendedScore(input: RankInput, weights: Weights): number {
  const trust = Math.min(100, Math.max(0, input.trust)) / 100;
  const proximity =
    input.distanceKm !== null && input.radiusKm !== null && input.radiusKm > 0
      ? Math.max(0, 1 - input.distanceKm / input.radiusKm)
      : 0;
  const score = weights.text * input.text + weights.trust * trust + weights.proximity * proximity;
  return Math.round(score * 1e6) / 1e4; // 0-100, six significant decimals
}

/** The same blend as SQL over trust and a distance column, for queries without text. */
export function blendSql(weights: Weights, trustColumn: string, distanceColumn: string | null): string {
  const trust = `${weights.trust} * ${trustColumn} / 100.0`;
  if (distanceColumn === null || weights.proximity === 0) return `(${trust})`;
  return `(${trust} + ${weights.proximity} * max(0, 1 - ${distanceColumn} / @radius))`;
}

/**
 * Without a radius (a point to rank by, no distance cut): how fast nearness fades. A match this
 * far away is worth half a match at the point; ten times as far, a tenth.
 */
export const NEARNESS_HALF_KM = 5;

export function nearness(distanceKm: number): number {
  return 1 / (1 + Math.max(0, distanceKm) / NEARNESS_HALF_KM);
}

/**
 * The score of a match without a radius: its text relevance (in [0, 1]) times its nearness, so
 * that of two equally relevant matches the nearer comes first, and a match twice as relevant
 * outranks a nearer one up to NEARNESS_HALF_KM further (plus twice the nearer one's distance).
 * Trust does not weigh: it breaks exact ties (engines sort by it after the score).
 */
export function nearestScore(text: number, distanceKm: number): number {
  return Math.round(Math.min(1, Math.max(0, text)) * nearness(distanceKm) * 1e6) / 1e4;
}

/**
 * Distances a search without a radius looks within, nearest first, until one holds enough matches
 * to rank (the page's depth, at least the candidate pool); null: anywhere.
 */
export const NEAREST_RINGS_KM: readonly (number | null)[] = [2, 5, 10, 20, 50, 100, 200, 500, 1000, null];

export function roundKm(distanceKm: number): number {
  return Math.round(distanceKm * 100) / 100;
}

/**
 * Points a query word earns by the best field it occurs in (the weights bm25 had: name 10, trade
 * 8, place 4, tags 3); a word found in none of them matched the products or the description.
 */
export const FIELD_POINTS = { name: 10, trade: 8, place: 4, tags: 3, elsewhere: 1.5 } as const;
/** Extra points, scaled by how much of the name the words cover, when every word is in the name. */
const WHOLE_NAME_POINTS = 5;

export interface ScoredFields {
  /** Normalised words joined by single spaces. */
  name: string;
  trade: ReadonlySet<string>;
  place: string;
  tags: string;
}

const SPACE = 0x20;

/**
 * Whether `word` is one of `words` (normalised words joined by spaces), or begins one when
 * `prefix`. No split and no padded copy: this runs for each term and field of up to 200
 * candidates a search, and the strings it made were most of a search's garbage.
 */
export function hasWord(words: string, word: string, prefix: boolean): boolean {
  if (word.length === 0) return false;
  for (let at = words.indexOf(word); at >= 0; at = words.indexOf(word, at + 1)) {
    const end = at + word.length;
    const starts = at === 0 || words.charCodeAt(at - 1) === SPACE;
    if (starts && (prefix || end === words.length || words.charCodeAt(end) === SPACE)) return true;
  }
  return false;
}

/** Whether a query word occurs among words joined by single spaces (no split: this runs per candidate). */
export function occursIn(term: QueryTerm, words: string): boolean {
  if (term.alternatives && term.alternatives.length > 0) {
    return term.alternatives.some((word) => hasWord(words, word, false));
  }
  return hasWord(words, term.term, term.prefix);
}

function occursInSet(term: QueryTerm, words: ReadonlySet<string>): boolean {
  if (term.alternatives && term.alternatives.length > 0) return term.alternatives.some((word) => words.has(word));
  if (!term.prefix) return words.has(term.term);
  for (const word of words) if (word.startsWith(term.term)) return true;
  return false;
}

/** Text relevance of a merchant that matched every word: field points, and a bonus for a whole name. */
export function textScore(terms: readonly QueryTerm[], fields: ScoredFields): number {
  let points = 0;
  let inName = 0;
  for (const term of terms) {
    if (occursIn(term, fields.name)) {
      points += FIELD_POINTS.name;
      inName += 1;
    } else if (occursInSet(term, fields.trade)) points += FIELD_POINTS.trade;
    else if (occursIn(term, fields.place)) points += FIELD_POINTS.place;
    else if (occursIn(term, fields.tags)) points += FIELD_POINTS.tags;
    else points += FIELD_POINTS.elsewhere;
  }
  if (inName === terms.length && fields.name.length > 0) {
    let nameWords = 1; // words of the name: its spaces, plus one
    for (let at = fields.name.indexOf(" "); at >= 0; at = fields.name.indexOf(" ", at + 1)) nameWords += 1;
    points += (WHOLE_NAME_POINTS * inName) / Math.max(inName, nameWords);
  }
  return points;
}
