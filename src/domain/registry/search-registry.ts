import { createHash } from "node:crypto";
import { validationError } from "../../errors/service-error.ts";
import type { Action } from "../../schemas/envelope.ts";
import {
  SEARCH_RADIUS_MAX_KM,
  type SearchAnswer,
  type SearchQueryInput,
  type SearchResult,
} from "../../schemas/registry.ts";
import { analyzeQuery } from "../../search/query.ts";
import { MAX_SEARCH_DEPTH, type SearchIndex } from "../../search/search-index.ts";
import { action } from "../actions.ts";
import { type CardDeps, loadSearchCards } from "./search-cards.ts";

export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_RADIUS_KM = 10;
const PRODUCTS_PER_RESULT = 5;

/** The index, and what result cards are read and built with (search-cards.ts). */
export interface SearchDeps extends CardDeps {
  search: SearchIndex;
}

export async function searchRegistry(deps: SearchDeps, input: SearchQueryInput): Promise<SearchAnswer> {
  const near =
    input.lat !== undefined && input.lng !== undefined
      ? { lat: input.lat, lng: input.lng, radiusKm: input.radius ?? DEFAULT_RADIUS_KM }
      : null;
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const fingerprint = queryFingerprint(input, near);
  const offset = input.cursor === undefined ? 0 : offsetOf(input.cursor, fingerprint, limit);
  const page = await deps.search.search({
    text: input.q,
    tags: input.tags ?? [],
    near,
    limit,
    offset,
    ...(input.semantic === true ? { semantic: true } : {}),
  });
  const hits = page.hits;
  const cards = await loadSearchCards(
    deps,
    hits.map((hit) => hit.abId),
  );

  const results: SearchResult[] = [];
  for (const hit of hits) {
    const card = cards.get(hit.abId);
    // The index may briefly lag the store (a merchant archived since): never list what resolve would refuse.
    if (!card || card.status === "ARCHIVED") continue;
    results.push({
      merchant: hit.distanceKm !== null ? { ...card.merchant, distance_km: hit.distanceKm } : card.merchant,
      products: orderProducts(card.products, hit.matchedProductIds).slice(0, PRODUCTS_PER_RESULT),
      score: hit.score,
      matched: hit.matched,
      _actions: card.actions,
      _state: card.state,
    });
  }

  const next = offset + limit;
  const more = hits.length === limit && next < Math.min(page.estimatedTotal, MAX_SEARCH_DEPTH);
  const answer: SearchAnswer = {
    query: input.q,
    results,
    count: results.length,
    estimated_total: Math.max(page.estimatedTotal, offset + results.length),
    next_cursor: more ? cursorOf(next, fingerprint) : null,
  };
  if (results.length === 0 && offset === 0) answer.recovery = recoveryActions(deps.baseUrl, input, near);
  // Not all that was asked answered (the configured engine, or the vectors of a semantic search):
  // say so, so that an empty answer is not read as "no merchant matches".
  if (page.degraded) answer.retrieval_degraded = page.degraded;
  return answer;
}

/*
 * Paging: a cursor is the offset of the next page and a fingerprint of the query it belongs to,
 * base64url-encoded; a cursor of another query, or past the deepest page, is a validation error.
 */
function queryFingerprint(input: SearchQueryInput, near: { lat: number; lng: number; radiusKm: number } | null) {
  const parts = [input.q, (input.tags ?? []).join(","), near ? `${near.lat},${near.lng},${near.radiusKm}` : ""];
  return createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 12);
}

function cursorOf(offset: number, fingerprint: string): string {
  return Buffer.from(`${offset}.${fingerprint}`).toString("base64url");
}

function offsetOf(cursor: string, fingerprint: string, limit: number): number {
  const [offsetText, of] = Buffer.from(cursor, "base64url").toString().split(".");
  const offset = Number(offsetText);
  if (of !== fingerprint || !Number.isInteger(offset) || offset < 0) {
    throw validationError([
      { path: "cursor", message: "is not a next_cursor of this query (same q, tags, lat, lng and radius)" },
    ]);
  }
  if (offset + limit > MAX_SEARCH_DEPTH) {
    throw validationError([{ path: "cursor", message: `pages stop at the ${MAX_SEARCH_DEPTH}th result` }]);
  }
  return offset;
}

/**
 * What an agent can try when nothing matched: widen the radius, drop the tags, search without the
 * town; for a SIRET, the company's other establishments.
 */
function recoveryActions(
  baseUrl: string,
  input: SearchQueryInput,
  near: { lat: number; lng: number; radiusKm: number } | null,
): Action[] {
  const href = (changes: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    const all: Record<string, string | undefined> = {
      q: input.q,
      tags: input.tags?.join(","),
      lat: near ? String(near.lat) : undefined,
      lng: near ? String(near.lng) : undefined,
      radius: near ? String(near.radiusKm) : undefined,
      limit: input.limit === undefined ? undefined : String(input.limit),
      ...changes,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined && value !== "") params.set(key, value);
    return `${baseUrl}/api/registry/search?${params}`;
  };
  const actions: Action[] = [];
  if (near && near.radiusKm < SEARCH_RADIUS_MAX_KM) {
    const radius = String(Math.min(SEARCH_RADIUS_MAX_KM, Math.max(near.radiusKm * 5, 50)));
    actions.push(action("widen_radius", "GET", href({ radius }), `Search again within ${radius} km`));
  }
  if ((input.tags ?? []).length > 0) {
    actions.push(action("drop_tags", "GET", href({ tags: undefined }), "Search again without the tags"));
  }
  const { terms, identifier } = analyzeQuery(input.q);
  if (identifier) {
    // A number, not words: there is no town in it to leave out, and no point to search around.
    // A SIRET the registry does not hold may be another establishment of a company it holds.
    if (identifier.kind === "siret") {
      const siren = identifier.value.slice(0, 9);
      actions.push(
        action("search_by_siren", "GET", href({ q: siren }), `Search the company's establishments (SIREN ${siren})`),
      );
    }
    return actions;
  }
  // "Without the town": the trade words alone, or all but the last word (where a town usually goes).
  const trade = terms.filter((term) => term.trade).map((term) => term.term);
  const fewer =
    trade.length > 0 && trade.length < terms.length
      ? trade.join(" ")
      : terms.length > 1
        ? terms
            .slice(0, -1)
            .map((term) => term.term)
            .join(" ")
        : null;
  if (fewer) {
    actions.push(action("search_without_town", "GET", href({ q: fewer }), `Search for "${fewer}" alone`));
  }
  if (!near) {
    actions.push(
      action("search_near", "GET", `${href({})}&lat={lat}&lng={lng}&radius=50`, "Search around a point instead", [
        { name: "lat", type: "number", required: true },
        { name: "lng", type: "number", required: true },
      ]),
    );
  }
  return actions;
}

/** Matching products first, in the index's order, then the rest in catalogue order. */
function orderProducts(products: SearchResult["products"], matchedIds: string[]): SearchResult["products"] {
  if (matchedIds.length === 0) return products;
  const rank = new Map(matchedIds.map((id, position) => [id, position]));
  return [...products].sort(
    (a, b) => (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER),
  );
}
