import { createHash } from "node:crypto";
import { type ValidationIssue, validationError } from "../../errors/service-error.ts";
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
import { openingAt } from "../availability/opening.ts";
import type { Place, PlaceFinder } from "./place-finder.ts";
import { type CardDeps, loadSearchCards } from "./search-cards.ts";

export const DEFAULT_SEARCH_LIMIT = 10;
const PRODUCTS_PER_RESULT = 5;

/** The index, what result cards are read and built with (search-cards.ts), and the places `near` names. */
export interface SearchDeps extends CardDeps {
  search: SearchIndex;
  places: PlaceFinder;
}

/** The point a search is made around: lat/lng, or the commune `near` names; with or without a radius. */
interface SearchPoint {
  lat: number;
  lng: number;
  radiusKm: number | null;
  place: Place | null;
}

export async function searchRegistry(deps: SearchDeps, input: SearchQueryInput): Promise<SearchAnswer> {
  const point = searchPoint(deps.places, input);
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const fingerprint = queryFingerprint(input, point);
  const cursor = input.cursor === undefined ? null : readCursor(input.cursor, fingerprint, limit);
  const offset = cursor?.offset ?? 0;
  // The instant the opening is read at: `at`, else the first page's (open_now pins it in the
  // cursor, so that the pages of one answer filter alike), else now.
  const at = input.at !== undefined ? new Date(input.at) : (cursor?.at ?? deps.now());
  const openAt = [
    ...(input.open_now === true ? [at] : []),
    ...(input.open_at !== undefined ? [new Date(input.open_at)] : []),
  ];
  const page = await deps.search.search({
    text: input.q,
    tags: input.tags ?? [],
    near: point ? { lat: point.lat, lng: point.lng, radiusKm: point.radiusKm } : null,
    limit,
    offset,
    ...(openAt.length > 0 ? { openAt } : {}),
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
      merchant: {
        ...card.merchant,
        ...(hit.distanceKm !== null ? { distance_km: hit.distanceKm } : {}),
        opening: openingAt(card.schedule, at),
      },
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
    ...(point?.place ? { place: placeAnswer(point.place) } : {}),
    results,
    count: results.length,
    estimated_total: Math.max(page.estimatedTotal, offset + results.length),
    next_cursor: more
      ? cursorOf(next, fingerprint, input.open_now === true && input.at === undefined ? at : null)
      : null,
  };
  if (results.length === 0 && offset === 0) answer.recovery = recoveryActions(deps.baseUrl, input, point);
  // Not all that was asked answered (the configured engine, or the vectors of a semantic search):
  // say so, so that an empty answer is not read as "no merchant matches".
  if (page.degraded) answer.retrieval_degraded = page.degraded;
  return answer;
}

/** lat/lng, or the commune `near` names (an unknown one is a validation error on `near`, with the closest names). */
function searchPoint(places: PlaceFinder, input: SearchQueryInput): SearchPoint | null {
  const radiusKm = input.radius ?? null;
  if (input.near !== undefined) {
    const found = places.find(input.near);
    if (found.place === null) {
      const issue: ValidationIssue = {
        path: "near",
        message:
          found.suggestions.length > 0
            ? `${found.reason}; did you mean ${found.suggestions.map((name) => `"${name}"`).join(", ")}?`
            : found.reason,
        ...(found.suggestions.length > 0 ? { suggestions: found.suggestions } : {}),
      };
      throw validationError([issue]);
    }
    return { lat: found.place.lat, lng: found.place.lng, radiusKm, place: found.place };
  }
  if (input.lat !== undefined && input.lng !== undefined)
    return { lat: input.lat, lng: input.lng, radiusKm, place: null };
  return null;
}

function placeAnswer(place: Place): NonNullable<SearchAnswer["place"]> {
  return {
    name: place.name,
    department: place.department,
    postal_code: place.postalCode,
    lat: place.lat,
    lng: place.lng,
  };
}

/*
 * Paging: a cursor is the offset of the next page, a fingerprint of the query it belongs to and,
 * when open_now filters at the request's time, that instant (the next pages filter at it),
 * base64url-encoded; a cursor of another query, or past the deepest page, is a validation error.
 */
function queryFingerprint(input: SearchQueryInput, point: SearchPoint | null) {
  const parts = [
    input.q,
    (input.tags ?? []).join(","),
    point ? `${point.lat},${point.lng},${point.radiusKm ?? ""}` : "",
    input.open_now === true ? "open" : "",
    input.open_at ?? "",
    input.at ?? "",
  ];
  return createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 12);
}

function cursorOf(offset: number, fingerprint: string, at: Date | null): string {
  return Buffer.from(`${offset}.${fingerprint}${at ? `.${at.getTime()}` : ""}`).toString("base64url");
}

function readCursor(cursor: string, fingerprint: string, limit: number): { offset: number; at: Date | null } {
  const [offsetText, of, atText] = Buffer.from(cursor, "base64url").toString().split(".");
  const offset = Number(offsetText);
  const at = atText === undefined ? null : new Date(Number(atText));
  if (of !== fingerprint || !Number.isInteger(offset) || offset < 0 || (at !== null && Number.isNaN(at.getTime()))) {
    throw validationError([
      {
        path: "cursor",
        message: "is not a next_cursor of this query (same q, tags, point, radius and opening filters)",
      },
    ]);
  }
  if (offset + limit > MAX_SEARCH_DEPTH) {
    throw validationError([{ path: "cursor", message: `pages stop at the ${MAX_SEARCH_DEPTH}th result` }]);
  }
  return { offset, at };
}

/**
 * What an agent can try when nothing matched: widen the radius, drop the tags, drop the opening
 * filters, search without the town; for a SIRET, the company's other establishments.
 */
function recoveryActions(baseUrl: string, input: SearchQueryInput, point: SearchPoint | null): Action[] {
  const href = (changes: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    const all: Record<string, string | undefined> = {
      q: input.q,
      tags: input.tags?.join(","),
      near: input.near,
      lat: input.lat === undefined ? undefined : String(input.lat),
      lng: input.lng === undefined ? undefined : String(input.lng),
      radius: input.radius === undefined ? undefined : String(input.radius),
      open_now: input.open_now === true ? "true" : undefined,
      open_at: input.open_at,
      at: input.at,
      limit: input.limit === undefined ? undefined : String(input.limit),
      ...changes,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined && value !== "") params.set(key, value);
    return `${baseUrl}/api/registry/search?${params}`;
  };
  const actions: Action[] = [];
  if (point && point.radiusKm !== null && point.radiusKm < SEARCH_RADIUS_MAX_KM) {
    const radius = String(Math.min(SEARCH_RADIUS_MAX_KM, Math.max(point.radiusKm * 5, 50)));
    actions.push(action("widen_radius", "GET", href({ radius }), `Search again within ${radius} km`));
  }
  if ((input.tags ?? []).length > 0) {
    actions.push(action("drop_tags", "GET", href({ tags: undefined }), "Search again without the tags"));
  }
  if (input.open_now === true || input.open_at !== undefined) {
    actions.push(
      action(
        "drop_opening_filter",
        "GET",
        href({ open_now: undefined, open_at: undefined }),
        "Search again whatever the opening hours (each result says when it opens)",
      ),
    );
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
  if (!point) {
    actions.push(
      action("search_near", "GET", `${href({})}&near={near}`, "Search around a town or a postal code instead", [
        { name: "near", type: "string", required: true },
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
