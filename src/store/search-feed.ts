import type { Db } from "./db.ts";
import { storeRevisionReader } from "./store-revision.ts";

/**
 * What a search engine kept apart from the database follows (src/search/follower.ts): the
 * merchants touched after a store revision (merchant_touches: any write to a merchant, its
 * products, signals, place or Q&A), in revision order.
 */
export interface SearchFeed {
  /** The store revision now. */
  revision(): Promise<number>;
  /** Merchants touched after `after`, oldest touch first, at most `limit`. */
  touchedAfter(after: number, limit: number): Promise<{ abId: string; touch: number }[]>;
  /** How many merchants were touched after `after`, counted up to `upTo`. */
  countTouchedAfter(after: number, upTo: number): Promise<number>;
}

export function createSearchFeed(db: Db): SearchFeed {
  const touched = db.$client.prepare<[number, number], { abId: string; touch: number }>(
    "SELECT ab_id AS abId, touch FROM merchant_touches WHERE touch > ? ORDER BY touch LIMIT ?",
  );
  const count = db.$client
    .prepare<[number, number], number>(
      "SELECT count(*) FROM (SELECT 1 FROM merchant_touches WHERE touch > ? ORDER BY touch LIMIT ?)",
    )
    .pluck();
  const revision = storeRevisionReader(db);
  return {
    revision: async () => revision(),
    touchedAfter: async (after, limit) => touched.all(after, limit),
    countTouchedAfter: async (after, upTo) => count.get(after, upTo) ?? 0,
  };
}
