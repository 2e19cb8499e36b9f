/**
 * The search seam. The embedded implementation (SQLite FTS5 + R*Tree) is the default; the
 * Meilisearch implementation (src/search/meilisearch/) takes its place when MEILISEARCH_URL is
 * set. Both answer the same contract (test/helpers/search-index-contract.ts, run against each).
 */
export interface SearchQuery {
  /** The user's text, as typed (already length-checked, never trusted as query syntax). */
  text: string;
  /** Every listed tag must be carried by at least one product of the merchant. */
  tags: string[];
  /**
   * A point: with a radius, only the merchants within it, ranked with trust and distance; without
   * one (null), every match, nearer first among comparable ones (no distance cut).
   */
  near: { lat: number; lng: number; radiusKm: number | null } | null;
  /** Instants the merchant must be open at (open_now, open_at), each one; none or empty: no filter (opening-filter.ts). */
  openAt?: readonly Date[];
  limit: number;
  /** Hits of the same query to skip (the pages before this one); default 0. */
  offset?: number;
  /** Vector (semantic) retrieval asked for, beside the words (src/search/semantic-index.ts). */
  semantic?: boolean;
  /**
   * The query's vector, computed by the semantic layer from `text` with the engine's embedder:
   * an engine that holds vectors runs a hybrid search with it; the others never receive one.
   */
  vector?: readonly number[];
}

/** Where a hit matched the query; `meaning`: found by vector similarity, not by its words. */
export const MATCHED_FIELDS = [
  "identifier",
  "name",
  "trade",
  "product",
  "tag",
  "place",
  "description",
  "meaning",
] as const;
export type MatchedField = (typeof MATCHED_FIELDS)[number];

/** The deepest hit a query can page to (offset + limit), on every engine. */
export const MAX_SEARCH_DEPTH = 1_000;

export interface SearchHit {
  abId: string;
  /** Blended relevance (text, trust, distance), 0-100, higher is better; only comparable within one answer. */
  score: number;
  /** Distance from the query point, when one was given. */
  distanceKm: number | null;
  /** Products of the merchant that matched the text or tags, best first. */
  matchedProductIds: string[];
  /** What matched: the identifier, or the fields the words were found in (tags when tags were asked). */
  matched: MatchedField[];
}

export interface SearchPage {
  hits: SearchHit[];
  /** How many merchants match in all (exact below the engine's counting bound, at most MAX_SEARCH_DEPTH). */
  estimatedTotal: number;
  /**
   * Set when the page is not all that was asked: it did not come from the configured engine
   * (search_engine_unavailable: resilient-index.ts), or it came from the words alone although a
   * semantic search was asked (embedding_disabled: no embedder; embedding_unavailable: the
   * embedder or the vectors failed: semantic-index.ts), or it came from an embedded index whose
   * first build is under way (index_building: what is indexed so far, embedded/index.ts).
   */
  degraded?: SearchDegradation;
}

export const SEARCH_DEGRADATIONS = [
  "embedding_unavailable",
  "embedding_disabled",
  "search_engine_unavailable",
  "index_building",
] as const;
export type SearchDegradation = (typeof SEARCH_DEGRADATIONS)[number];

export interface SearchIndex {
  readonly name: string;
  search(query: SearchQuery): SearchPage | Promise<SearchPage>;
  /** Re-reads these merchants from the store (new, changed, archived or deleted). */
  refresh(abIds: string[]): void | Promise<void>;
  /** Rebuilds the whole index from the store. */
  rebuild(onProgress?: (done: number, total: number) => void): void | Promise<void>;
}
