import type { SearchFeed } from "../store/search-feed.ts";

/*
 * Keeps a search engine in step with the store, durably, whoever wrote the store (the server, an
 * import, an operator's command): Meilisearch, the embedded index (embedded/follow.ts), the
 * search cards kept in the store. The engine holds the store revision it reflects (its cursor,
 * acknowledged after each batch is applied); the follower applies the merchants touched after it
 * (merchant_touches: a merchant, its products, signals, place), oldest first, and moves the
 * cursor. After the engine was down, a job failed or the server restarted, it resumes from the
 * cursor; an engine with no cursor (new, or its data lost) is rebuilt in full.
 */

export interface FollowedEngine {
  refresh(abIds: string[]): Promise<void>;
  rebuild(onProgress?: (done: number, total: number) => void): Promise<void>;
  readCursor(): Promise<number | null>;
  writeCursor(revision: number): Promise<void>;
  /**
   * Applies these merchants and moves the cursor from `from` to `through` in one step, unless
   * another process following the same feed moved it first (false: nothing done). An engine that
   * can (the embedded index: one transaction) never applies a batch twice nor moves its cursor
   * back; without it, refresh then writeCursor.
   */
  refreshThrough?(abIds: string[], from: number, through: number): Promise<boolean>;
  /**
   * Work the engine does once in step with the feed (cards whose validity ran out, say): true
   * when it did some, and the follower asks again at once.
   */
  sweep?(): Promise<boolean>;
}

export type FollowerState = "starting" | "building" | "catching_up" | "ready" | "unavailable";

export interface FollowerStatus {
  state: FollowerState;
  /** The store revision the engine reflects, as last read or written (null before any build). */
  cursor: number | null;
  /** Progress of a full build under way. */
  build: { done: number; total: number } | null;
  lastError: string | null;
}

export interface SearchFollower {
  /** Applies what is pending until the engine is in step (or fails); resolves with the status. */
  syncOnce(): Promise<FollowerStatus>;
  /** Follows in the background: every `intervalMs`, at once while there is more to apply. */
  start(): void;
  stop(): Promise<void>;
  status(): FollowerStatus;
}

export interface SearchFollowerOptions {
  engine: FollowedEngine;
  feed: SearchFeed;
  /** Merchants applied per batch (one cursor acknowledgement each). */
  batchSize?: number;
  intervalMs?: number;
  /** Longest wait between attempts while the engine fails (the wait doubles from intervalMs). */
  maxBackoffMs?: number;
  onError?: (error: unknown) => void;
  onProgress?: (done: number, total: number) => void;
}

export function createSearchFollower(options: SearchFollowerOptions): SearchFollower {
  const batchSize = options.batchSize ?? 1_000;
  const intervalMs = options.intervalMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const status: FollowerStatus = { state: "starting", cursor: null, build: null, lastError: null };
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let failures = 0;

  /** One step: a full build, or one batch. False when there was nothing to apply (in step). */
  async function step(): Promise<boolean> {
    const cursor = await options.engine.readCursor();
    status.cursor = cursor;
    if (cursor === null) {
      status.state = "building";
      status.build = { done: 0, total: 0 };
      await options.engine.rebuild((done, total) => {
        status.build = { done, total };
        options.onProgress?.(done, total);
      });
      status.build = null;
      status.cursor = await options.engine.readCursor();
      return true;
    }
    const touched = await options.feed.touchedAfter(cursor, batchSize);
    const last = touched.at(-1);
    if (!last) {
      status.state = "ready";
      return (await options.engine.sweep?.()) ?? false;
    }
    status.state = "catching_up";
    const abIds = [...new Set(touched.map((row) => row.abId))];
    if (options.engine.refreshThrough) {
      const applied = await options.engine.refreshThrough(abIds, cursor, last.touch);
      status.cursor = applied ? last.touch : await options.engine.readCursor();
      return true;
    }
    await options.engine.refresh(abIds);
    await options.engine.writeCursor(last.touch);
    status.cursor = last.touch;
    // The next step finds the end of the feed (ready) or the next batch.
    return true;
  }

  async function syncOnce(): Promise<FollowerStatus> {
    // One sync at a time: a caller arriving during the background loop's step waits for it.
    while (running) await running.catch(() => undefined);
    const work = (async () => {
      try {
        while (await step()) {}
        failures = 0;
        status.lastError = null;
      } catch (error) {
        failures += 1;
        status.state = "unavailable";
        status.build = null;
        status.lastError = error instanceof Error ? error.message : String(error);
        options.onError?.(error);
      }
    })();
    running = work;
    try {
      await work;
    } finally {
      running = null;
    }
    return { ...status };
  }

  function schedule(): void {
    if (stopped) return;
    const wait = failures === 0 ? intervalMs : Math.min(maxBackoffMs, intervalMs * 2 ** Math.min(failures, 10));
    timer = setTimeout(() => {
      timer = null;
      void syncOnce().then(schedule);
    }, wait);
    timer.unref();
  }

  return {
    syncOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      void syncOnce().then(schedule);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      while (running) await running.catch(() => undefined);
    },
    status: () => ({ ...status }),
  };
}
