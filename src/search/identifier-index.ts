import { haversineKm, roundKm } from "./embedded/ranking.ts";
import { passesOpening, scheduleFromStore } from "./opening-filter.ts";
import { normalizeSearchQuery } from "./query.ts";
import {
  MAX_SEARCH_DEPTH,
  type SearchHit,
  type SearchIndex,
  type SearchPage,
  type SearchQuery,
} from "./search-index.ts";
import type { SearchSource } from "./source.ts";

/*
 * An identifier (a SIRET, a SIREN: each of its establishments, an ab_id) is answered from the
 * store by key, in front of whichever engine answers the rest (the embedded index, Meilisearch):
 * from the first second after a start, whatever the engine has caught up with (an index still
 * being built, a Meilisearch behind the feed). The answer is the one every engine gives an
 * identifier: the listed merchants it names, open when asked, most trusted first (ties by ab_id),
 * score 100, matched `identifier`, a distance when a point was given (no radius cut). An
 * identifier no listed merchant carries goes on to the engine, as text.
 */

export interface IdentifierIndexOptions {
  engine: SearchIndex;
  source: SearchSource;
  /** The clock trust totals are computed at (signals expire). */
  now: () => Date;
}

/** Score of a merchant found by its identifier: above any blend (as in each engine). */
const IDENTIFIER_SCORE = 100;

export function createIdentifierIndex({ engine, source, now }: IdentifierIndexOptions): SearchIndex {
  async function search(query: SearchQuery): Promise<SearchPage> {
    const normalized = normalizeSearchQuery(query);
    const identifier = normalized?.identifier;
    if (!normalized || !identifier) return engine.search(query);
    const abIds = await source.identifierMatches(identifier);
    if (abIds.length === 0) return engine.search(query);
    const { documents } = await source.listedDocuments(abIds, now());
    const found = documents
      .filter((doc) => passesOpening(scheduleFromStore(doc.schedule), normalized.opening))
      .sort((a, b) => b.trust - a.trust || (a.abId < b.abId ? -1 : a.abId > b.abId ? 1 : 0));
    if (found.length === 0) return engine.search(query);
    const { near, offset, limit } = normalized;
    const hits = found.slice(offset, offset + limit).map(
      (doc): SearchHit => ({
        abId: doc.abId,
        score: IDENTIFIER_SCORE,
        distanceKm:
          near && doc.lat !== null && doc.lng !== null
            ? roundKm(haversineKm(near, { lat: doc.lat, lng: doc.lng }))
            : null,
        matchedProductIds: [],
        matched: ["identifier"],
      }),
    );
    return { hits, estimatedTotal: Math.min(MAX_SEARCH_DEPTH, found.length) };
  }

  return {
    name: engine.name,
    search,
    refresh: (abIds) => engine.refresh(abIds),
    rebuild: (onProgress) => engine.rebuild(onProgress),
  };
}
