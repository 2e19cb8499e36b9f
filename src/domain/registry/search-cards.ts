import type { Action, MerchantState } from "../../schemas/envelope.ts";
import type { SearchResult } from "../../schemas/registry.ts";
import { createRevisionCache, type RevisionCache } from "../revision-cache.ts";

/**
 * The part of a search result that does not depend on the query: the merchant's summary, its
 * products (catalogue order), trust total, state and actions. Building one reads three tables and
 * scores the merchant's signals; the same merchants come back in search after search (the most
 * trusted match most queries), so cards are kept in memory between searches.
 */
export interface SearchCard {
  status: string;
  merchant: Omit<SearchResult["merchant"], "distance_km">;
  products: SearchResult["products"];
  actions: Action[];
  state: MerchantState;
  /** When the card's trust stops being right by itself: the earliest expiry among its counted signals. */
  validUntil: string | null;
}

/** Cards of recently returned merchants (see revision-cache.ts), each valid until its `validUntil`. */
export type SearchCardCache = RevisionCache<SearchCard>;

export const DEFAULT_SEARCH_CARD_ENTRIES = 5_000;

export function createSearchCardCache(maxEntries = DEFAULT_SEARCH_CARD_ENTRIES): SearchCardCache {
  return createRevisionCache<SearchCard>({ maxEntries, validUntilOf: (card) => card.validUntil });
}
