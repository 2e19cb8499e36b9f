import type { Db } from "../store/db.ts";
import { createSearchFeed } from "../store/search-feed.ts";
import { createEmbeddedSearchFollower } from "./embedded/follow.ts";
import { createEmbeddedSearchIndex, type EmbeddedSearchIndex } from "./embedded/index.ts";
import type { Embedder } from "./embedder.ts";
import { createEmbedder, type EmbedderSetting } from "./embedders/setting.ts";
import { createSearchFollower, type SearchFollower } from "./follower.ts";
import { createMeilisearchSearchIndex, type MeilisearchSearchIndex } from "./meilisearch/index.ts";
import { createResilientSearchIndex, type ResilientSearchIndex } from "./resilient-index.ts";
import type { SearchIndex } from "./search-index.ts";
import { createSemanticSearchIndex } from "./semantic-index.ts";

/*
 * The engine choice: the embedded index by default; Meilisearch when MEILISEARCH_URL is set, fed
 * by a follower of the store's changes, behind the resilient index (the embedded index as
 * fallback unless SEARCH_FALLBACK=none). The health check reports the engine, its state and lag.
 * In front of either, the semantic layer (semantic-index.ts): with SEARCH_EMBEDDER (Meilisearch
 * only), the follower writes each merchant's vector and `semantic` queries run a hybrid search;
 * without, they answer from the words, flagged embedding_disabled.
 */

export interface SearchEngineSettings {
  meilisearch: { url: string; apiKey: string | null; index: string; timeoutMs: number } | null;
  searchFallback: "embedded" | "none";
  /** SEARCH_EMBEDDER and its query timeout; null: semantic search is disabled. */
  searchEmbedder: { setting: EmbedderSetting; timeoutMs: number; minSimilarity: number | null } | null;
}

export interface SearchHealth {
  engine: "embedded" | "meilisearch";
  /**
   * ready; building (a full build under way); not_built (no build yet, none under way: the server
   * builds it at its start, or `npm run search -- rebuild`); catching_up (changes pending);
   * unavailable (does not answer).
   */
  state: "ready" | "building" | "not_built" | "catching_up" | "unavailable";
  /** Store changes the engine does not reflect yet: merchants touched since its cursor (counted up to 10,000), revisions. */
  lag: { merchants: number; revisions: number } | null;
  /** What answers while the engine does not (null: the engine is the embedded index). */
  fallback: "embedded" | "none" | null;
}

export interface SearchEngine {
  /** What searches use. */
  index: SearchIndex;
  embedded: EmbeddedSearchIndex;
  meilisearch: MeilisearchSearchIndex | null;
  /**
   * Keeps the engine (the embedded index, or Meilisearch) in step with the store's change feed;
   * started by the process that runs the background work.
   */
  follower: SearchFollower;
  /** With Meilisearch and the embedded index as its fallback: keeps the embedded index in step too. */
  fallbackFollower: SearchFollower | null;
  /** Computes the vectors of semantic search (null: none configured). */
  embedder: Embedder | null;
  health(): Promise<SearchHealth>;
}

const HEALTH_CACHE_MS = 1_000;
const LAG_COUNT_BOUND = 10_000;

export function createSearchEngine(
  db: Db,
  settings: SearchEngineSettings,
  options: {
    now: () => Date;
    onFailure?: (error: unknown) => void;
    /** A follower's step failed (it tries again with its backoff; the lag shows in health); default onFailure. */
    onFollowerFailure?: (error: unknown) => void;
  },
): SearchEngine {
  const embedded = createEmbeddedSearchIndex(db, { now: options.now });
  const meili = settings.meilisearch;
  // The configuration refuses an embedder without Meilisearch (the embedded index holds no vectors).
  const embedder =
    meili && settings.searchEmbedder
      ? createEmbedder(settings.searchEmbedder.setting, { minSimilarity: settings.searchEmbedder.minSimilarity })
      : null;
  const semantic = (engine: SearchIndex) =>
    createSemanticSearchIndex({
      engine,
      embedder,
      timeoutMs: settings.searchEmbedder?.timeoutMs ?? 500,
      ...(options.onFailure ? { onFailure: options.onFailure } : {}),
    });
  const feed = createSearchFeed(db);
  const onFollowerFailure = options.onFollowerFailure ?? options.onFailure;
  const followEmbedded = () =>
    createEmbeddedSearchFollower(db, embedded, onFollowerFailure ? { onError: onFollowerFailure } : {});
  /** What the engine does not reflect yet: the merchants touched after its cursor, and the revisions. */
  const lagAfter = async (cursor: number) => ({
    merchants: await feed.countTouchedAfter(cursor, LAG_COUNT_BOUND),
    revisions: Math.max(0, (await feed.revision()) - cursor),
  });
  if (!meili) {
    return {
      index: semantic(embedded),
      embedded,
      meilisearch: null,
      follower: followEmbedded(),
      fallbackFollower: null,
      embedder: null,
      async health() {
        const cursor = embedded.readCursor();
        // The embedded index is built in one transaction, which holds this process until it ends
        // and which no other process sees before it commits: without a cursor, it is not built.
        if (cursor === null) return { engine: "embedded", state: "not_built", lag: null, fallback: null };
        const lag = await lagAfter(cursor);
        return { engine: "embedded", state: lag.merchants === 0 ? "ready" : "catching_up", lag, fallback: null };
      },
    };
  }
  const meilisearch = createMeilisearchSearchIndex(db, {
    url: meili.url,
    apiKey: meili.apiKey,
    indexUid: meili.index,
    searchTimeoutMs: meili.timeoutMs,
    now: options.now,
    embedder,
  });
  const resilient: ResilientSearchIndex = createResilientSearchIndex({
    primary: meilisearch,
    fallback: settings.searchFallback === "embedded" ? embedded : null,
    timeoutMs: meili.timeoutMs,
    ...(options.onFailure ? { onFailure: options.onFailure } : {}),
  });
  const follower = createSearchFollower({
    engine: meilisearch,
    feed,
    ...(onFollowerFailure ? { onError: onFollowerFailure } : {}),
  });
  let cached: { at: number; health: SearchHealth } | null = null;

  async function readHealth(): Promise<SearchHealth> {
    const base = { engine: "meilisearch", fallback: settings.searchFallback } as const;
    let cursor: number | null;
    try {
      cursor = await meilisearch.readCursor();
    } catch {
      return { ...base, state: "unavailable", lag: null };
    }
    if (cursor === null) {
      const building = follower.status().state === "building" || (await meilisearch.buildUnderWay().catch(() => false));
      return { ...base, state: building ? "building" : "not_built", lag: null };
    }
    const lag = await lagAfter(cursor);
    if (resilient.isDegraded()) return { ...base, state: "unavailable", lag };
    return { ...base, state: lag.merchants === 0 ? "ready" : "catching_up", lag };
  }

  return {
    index: semantic(resilient),
    embedded,
    meilisearch,
    follower,
    fallbackFollower: settings.searchFallback === "embedded" ? followEmbedded() : null,
    embedder,
    async health() {
      const at = Date.now();
      if (cached && at - cached.at < HEALTH_CACHE_MS) return cached.health;
      const health = await readHealth();
      cached = { at, health };
      return health;
    },
  };
}
