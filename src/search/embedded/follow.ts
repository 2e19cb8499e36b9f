import type { Db } from "../../store/db.ts";
import type { SearchFeed } from "../../store/search-feed.ts";
import { createSearchFeed } from "../../store/search-feed.ts";
import { writeLock } from "../../store/write-lock.ts";
import { createSearchFollower, type FollowedEngine, type SearchFollower } from "../follower.ts";
import type { EmbeddedSearchIndex, LocalSearchIndex } from "./index.ts";

/*
 * The embedded index follows the store's change feed like Meilisearch does (follower.ts): the
 * server's background process follows it, and every job that writes merchants catches it up when
 * it ends. Whoever wrote a merchant, and whatever failed on the way, the merchants touched after
 * the index's cursor are applied from the store as it is then; a job killed midway, or an index
 * update that failed, leaves the cursor behind them, never past.
 */

/**
 * Merchants applied per step, in one transaction: measured 0.1 ms each for SIRENE merchants (no
 * product), 0.5 ms for demo merchants with their products, so 20-100 ms of the write lock and of
 * the thread.
 */
export const EMBEDDED_FOLLOW_BATCH = 200;

export interface EmbeddedFollowOptions {
  /** How long a step waits for the write lock another process holds (write-lock.ts whenFree; default 30 s). */
  lockPatienceMs?: number;
  onError?: (error: unknown) => void;
  onProgress?: (done: number, total: number) => void;
}

/** The embedded index as the follower drives it: each write waits for the lock without blocking the thread. */
export function embeddedFollowedEngine(
  db: Db,
  index: EmbeddedSearchIndex,
  options: Pick<EmbeddedFollowOptions, "lockPatienceMs"> = {},
): FollowedEngine {
  const lock = writeLock(db.$client);
  const whenFree = <T>(work: () => T) => lock.whenFree(work, options.lockPatienceMs);
  return {
    async refresh(abIds) {
      await whenFree(() => index.refresh(abIds));
    },
    async refreshThrough(abIds, from, through) {
      const applied = await whenFree(() => index.refreshThrough(abIds, from, through));
      // The server's process answers requests between two steps.
      await new Promise((resolve) => setImmediate(resolve));
      return applied;
    },
    async rebuild(onProgress) {
      await whenFree(() => index.rebuild(onProgress));
    },
    async readCursor() {
      return index.readCursor();
    },
    async writeCursor(revision) {
      await whenFree(() => index.writeCursor(revision));
    },
  };
}

export function createEmbeddedSearchFollower(
  db: Db,
  index: EmbeddedSearchIndex,
  { lockPatienceMs, ...options }: EmbeddedFollowOptions = {},
): SearchFollower {
  return createSearchFollower({
    engine: embeddedFollowedEngine(db, index, lockPatienceMs === undefined ? {} : { lockPatienceMs }),
    feed: createSearchFeed(db),
    batchSize: EMBEDDED_FOLLOW_BATCH,
    ...options,
  });
}

/**
 * The embedded index in a file of its own (createLocalSearchIndex), following a store elsewhere
 * (PostgreSQL's feed): each step reads the merchants from the store, then writes them and moves
 * the cursor in one transaction of the local file (the index takes that file's write lock itself).
 */
export function createLocalSearchFollower(
  index: LocalSearchIndex,
  feed: SearchFeed,
  options: Omit<EmbeddedFollowOptions, "lockPatienceMs"> = {},
): SearchFollower {
  return createSearchFollower({
    engine: {
      refresh: (abIds) => index.refresh(abIds),
      async refreshThrough(abIds, from, through) {
        const applied = await index.refreshThrough(abIds, from, through);
        // The server's process answers requests between two steps.
        await new Promise((resolve) => setImmediate(resolve));
        return applied;
      },
      rebuild: (onProgress) => index.rebuild(onProgress),
      readCursor: async () => index.readCursor(),
      writeCursor: async (revision) => index.writeCursor(revision),
    },
    feed,
    batchSize: EMBEDDED_FOLLOW_BATCH,
    ...options,
  });
}
