import { ServiceError } from "../errors/service-error.ts";
import type { SearchIndex, SearchPage, SearchQuery } from "./search-index.ts";
import { withinTimeout } from "./within-timeout.ts";

/*
 * Failure made explicit: a search the configured engine (Meilisearch) does not answer within its
 * timeout, or answers with an error, is answered by the fallback (the embedded index) and flagged
 * `search_engine_unavailable`, or, without a fallback, refused with 503 SEARCH_UNAVAILABLE and a
 * Retry-After. Never a 500, never a hang. After a failure the engine is left alone for
 * `retryAfterMs`: the requests in between go straight to the fallback instead of each waiting for
 * the timeout; the first one after it tries the engine again.
 */

export interface ResilientSearchOptions {
  primary: SearchIndex;
  fallback: SearchIndex | null;
  timeoutMs: number;
  retryAfterMs?: number;
  now?: () => number;
  onFailure?: (error: unknown) => void;
}

export interface ResilientSearchIndex extends SearchIndex {
  search(query: SearchQuery): Promise<SearchPage>;
  /** True while searches go to the fallback (or are refused) after a failure. */
  isDegraded(): boolean;
}

export function createResilientSearchIndex(options: ResilientSearchOptions): ResilientSearchIndex {
  const retryAfterMs = options.retryAfterMs ?? 5_000;
  const clock = options.now ?? Date.now;
  let downUntil = Number.NEGATIVE_INFINITY;

  async function fromFallback(query: SearchQuery): Promise<SearchPage> {
    if (!options.fallback) {
      throw new ServiceError("SEARCH_UNAVAILABLE", undefined, {
        retryAfterSeconds: Math.max(1, Math.ceil((downUntil - clock()) / 1000)),
      });
    }
    const page = await options.fallback.search(query);
    return { ...page, degraded: "search_engine_unavailable" };
  }

  async function search(query: SearchQuery): Promise<SearchPage> {
    if (clock() < downUntil) return fromFallback(query);
    try {
      return await withinTimeout(
        Promise.resolve(options.primary.search(query)),
        options.timeoutMs,
        options.primary.name,
      );
    } catch (error) {
      downUntil = clock() + retryAfterMs;
      options.onFailure?.(error);
      return fromFallback(query);
    }
  }

  return {
    name: options.primary.name,
    search,
    refresh: (abIds) => options.primary.refresh(abIds),
    rebuild: (onProgress) => options.primary.rebuild(onProgress),
    isDegraded: () => clock() < downUntil,
  };
}
