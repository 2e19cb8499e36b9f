import type { Db } from "../../store/db.ts";
import type { SearchFeed } from "../../store/search-feed.ts";
import { createSearchFeed } from "../../store/search-feed.ts";
import { createSearchFollower, type FollowedEngine, type SearchFollower } from "../follower.ts";
import type { EmbeddedSearchIndex } from "./index.ts";

/*
 * The embedded index follows the store's change feed like Meilisearch does (follower.ts): the
 * server's background process follows it, and every job that writes merchants catches it up when
 * it ends. Whoever wrote a merchant, and whatever failed on the way, the merchants touched after
 * the index's cursor are applied from the store as it is then; a job killed midway, or an index
 * update that failed, leaves the cursor behind them, never past. Each step reads the store, then
 * writes the index's own files under their catalog's lock (index.ts): never the store's lock.
 */

/**
 * Merchants applied per step, in one transaction: measured 0.1 ms each for SIRENE merchants (no
 * product), 0.5 ms for demo merchants with their products, so 20-100 ms of the thread.
 */
export const EMBEDDED_FOLLOW_BATCH = 200;

export interface EmbeddedFollowOptions {
  onError?: (error: unknown) => void;
  onProgress?: (done: number, total: number) => void;
}

/** The embedded index as the follower drives it. */
export function embeddedFollowedEngine(index: EmbeddedSearchIndex): FollowedEngine {
  return {
    refresh: (abIds) => index.refresh(abIds),
    async refreshThrough(abIds, from, through) {
      const applied = await index.refreshThrough(abIds, from, through);
      // The server's process answers requests between two steps.
      await new Promise((resolve) => setImmediate(resolve));
      return applied;
    },
    rebuild: (onProgress) => index.rebuild(onProgress),
    readCursor: async () => index.readCursor(),
    writeCursor: (revision) => index.writeCursor(revision),
  };
}

/** The index of the SQLite store, following its feed. */
export function createEmbeddedSearchFollower(
  db: Db,
  index: EmbeddedSearchIndex,
  options: EmbeddedFollowOptions = {},
): SearchFollower {
  return createLocalSearchFollower(index, createSearchFeed(db), options);
}

/** The index following a store's feed (PostgreSQL's, or SQLite's). */
export function createLocalSearchFollower(
  index: EmbeddedSearchIndex,
  feed: SearchFeed,
  options: EmbeddedFollowOptions = {},
): SearchFollower {
  return createSearchFollower({
    engine: embeddedFollowedEngine(index),
    feed,
    batchSize: EMBEDDED_FOLLOW_BATCH,
    ...options,
  });
}
