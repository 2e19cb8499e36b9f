/**
 * The search seam. The embedded implementation (SQLite FTS5 + R*Tree) is the default; a
 * Meilisearch implementation can take its place for scale-out. Both answer the same contract
 * (test/unit/search-contract.test.ts).
 */
export interface SearchQuery {
  /** The user's text, as typed (already length-checked, never trusted as query syntax). */
  text: string;
  /** Every listed tag must be carried by at least one product of the merchant. */
  tags: string[];
  near: { lat: number; lng: number; radiusKm: number } | null;
  limit: number;
}

export interface SearchHit {
  abId: string;
  /** Blended relevance, higher is better; only comparable within one answer. */
  score: number;
  /** Distance from the query point, when one was given. */
  distanceKm: number | null;
  /** Products of the merchant that matched the text or tags, best first. */
  matchedProductIds: string[];
}

export interface SearchIndex {
  readonly name: string;
  search(query: SearchQuery): SearchHit[] | Promise<SearchHit[]>;
  /** Re-reads these merchants from the store (new, changed, archived or deleted). */
  refresh(abIds: string[]): void | Promise<void>;
  /** Rebuilds the whole index from the store. */
  rebuild(onProgress?: (done: number, total: number) => void): void | Promise<void>;
}
