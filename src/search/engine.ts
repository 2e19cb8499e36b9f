import path from "node:path";
import type { Db } from "../store/db.ts";
import { createPostgresSearchFeed } from "../store/postgres/registry-feeds.ts";
import { createPostgresSearchSource } from "../store/postgres/search-source.ts";
import { createSearchFeed, type SearchFeed } from "../store/search-feed.ts";
import { createEmbeddedSearchFollower, createLocalSearchFollower } from "./embedded/follow.ts";
import {
  type BuildProgress,
  createEmbeddedSearchIndex,
  createLocalSearchIndex,
  type EmbeddedSearchIndex,
  type LocalSearchIndex,
  SEARCH_INDEX_DIR,
} from "./embedded/index.ts";
import type { Embedder } from "./embedder.ts";
import { createEmbedder, type EmbedderSetting } from "./embedders/setting.ts";
import { createSearchFollower, type SearchFollower } from "./follower.ts";
import { createIdentifierIndex } from "./identifier-index.ts";
import { createMeilisearchSearchIndex, type MeilisearchSearchIndex } from "./meilisearch/index.ts";
import { createResilientSearchIndex, type ResilientSearchIndex } from "./resilient-index.ts";
import type { SearchIndex, SearchPage, SearchQuery } from "./search-index.ts";
import { createSemanticSearchIndex } from "./semantic-index.ts";
import { createSearchSource, type SearchSource } from "./source.ts";

/*
 * The engine choice: the embedded index by default; Meilisearch when MEILISEARCH_URL is set, fed
 * by a follower of the store's changes, behind the resilient index (the embedded index as
 * fallback unless SEARCH_FALLBACK=none). The health check reports the engine, its state and lag.
 * In front of either, the semantic layer (semantic-index.ts): with SEARCH_EMBEDDER (Meilisearch
 * only), the follower writes each merchant's vector and `semantic` queries run a hybrid search;
 * without, they answer from the words, flagged embedding_disabled. In front of all, an identifier
 * (SIRET, SIREN, ab_id) is answered from the store by key (identifier-index.ts), whatever the
 * engine has caught up with.
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
  /** A full build under way: merchants read so far, of about `total` (only while building). */
  build?: BuildProgress;
}

/** The embedded index as the engine uses it, wherever it lives (the store's file, or a file of its own). */
export interface EmbeddedIndex extends SearchIndex {
  search(query: SearchQuery): SearchPage;
  readCursor(): number | null;
  building(): BuildProgress | null;
}

/**
 * What the search engine reads the store through, on either engine of the store: the search
 * reads (Meilisearch's documents), the change feed and the store revision (followers, lag), the
 * embedded index and the follower that keeps it in step. Built by sqliteSearchPorts (the store's
 * SQLite file) or ownFileSearchPorts (a store elsewhere, PostgreSQL: an index file per instance).
 */
export interface SearchPorts<Embedded extends EmbeddedIndex> {
  source: SearchSource;
  feed: SearchFeed;
  embedded: Embedded;
  followEmbedded(options: { onError?: (error: unknown) => void }): SearchFollower;
}

/** The one-machine default: the store in its SQLite file, the embedded index in DATA_DIR/search-index/ beside it. */
export function sqliteSearchPorts(db: Db, options: { now: () => Date }): SearchPorts<EmbeddedSearchIndex> {
  const embedded = createEmbeddedSearchIndex(db, { now: options.now });
  return {
    source: createSearchSource(db),
    feed: createSearchFeed(db),
    embedded,
    followEmbedded: (follow) => createEmbeddedSearchFollower(db, embedded, follow),
  };
}

/**
 * A store that is not a SQLite file beside the index (PostgreSQL: createPostgresSearchSource and
 * createPostgresSearchFeed of src/store/postgres/): the embedded index lives in
 * DATA_DIR/search-index/, one per instance, and its follower reads the shared feed.
 */
export function ownFileSearchPorts(options: {
  source: SearchSource;
  feed: SearchFeed;
  dataDir: string;
  now: () => Date;
}): SearchPorts<LocalSearchIndex> {
  const embedded = createLocalSearchIndex(path.join(options.dataDir, SEARCH_INDEX_DIR), options.source, {
    now: options.now,
  });
  return {
    source: options.source,
    feed: options.feed,
    embedded,
    followEmbedded: (follow) => createLocalSearchFollower(embedded, options.feed, follow),
  };
}

/**
 * The store on PostgreSQL (its pool, src/store/postgres/pool.ts): ownFileSearchPorts over
 * PostgreSQL's search reads and feed, the index in DATA_DIR/search-index/.
 */
export function postgresSearchPorts(
  pool: Parameters<typeof createPostgresSearchSource>[0],
  options: { dataDir: string; now: () => Date },
): SearchPorts<LocalSearchIndex> {
  return ownFileSearchPorts({
    source: createPostgresSearchSource(pool),
    feed: createPostgresSearchFeed(pool),
    ...options,
  });
}

export interface SearchEngine<Embedded extends EmbeddedIndex = EmbeddedSearchIndex> {
  /** What searches use. */
  index: SearchIndex;
  embedded: Embedded;
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
  /** The engine's state and lag, read now (the health check keeps it a second: app.ts). */
  health(): Promise<SearchHealth>;
}

const LAG_COUNT_BOUND = 10_000;

export function createSearchEngine<Embedded extends EmbeddedIndex>(
  ports: SearchPorts<Embedded>,
  settings: SearchEngineSettings,
  options: {
    now: () => Date;
    onFailure?: (error: unknown) => void;
    /** A follower's step failed (it tries again with its backoff; the lag shows in health); default onFailure. */
    onFollowerFailure?: (error: unknown) => void;
    /** What Meilisearch's writes go through (MeilisearchIndexOptions.writeGate: the leader's fence). */
    meilisearchWriteGate?: <T>(write: () => Promise<T>) => Promise<T>;
  },
): SearchEngine<Embedded> {
  const { embedded, feed } = ports;
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
  const onFollowerFailure = options.onFollowerFailure ?? options.onFailure;
  const followEmbedded = () => ports.followEmbedded(onFollowerFailure ? { onError: onFollowerFailure } : {});
  /** What the engine does not reflect yet: the merchants touched after its cursor, and the revisions. */
  const lagAfter = async (cursor: number) => ({
    merchants: await feed.countTouchedAfter(cursor, LAG_COUNT_BOUND),
    revisions: Math.max(0, (await feed.revision()) - cursor),
  });
  const identifiersFirst = (engine: SearchIndex) =>
    createIdentifierIndex({ engine, source: ports.source, now: options.now });
  if (!meili) {
    return {
      index: identifiersFirst(semantic(embedded)),
      embedded,
      meilisearch: null,
      follower: followEmbedded(),
      fallbackFollower: null,
      embedder: null,
      async health() {
        const cursor = embedded.readCursor();
        // Without a cursor there is no whole generation: a build is under way (in any process,
        // its progress in the catalog), or none is.
        if (cursor === null) {
          const build = embedded.building();
          return build
            ? { engine: "embedded", state: "building", lag: null, fallback: null, build }
            : { engine: "embedded", state: "not_built", lag: null, fallback: null };
        }
        const lag = await lagAfter(cursor);
        return { engine: "embedded", state: lag.merchants === 0 ? "ready" : "catching_up", lag, fallback: null };
      },
    };
  }
  const meilisearch = createMeilisearchSearchIndex(ports.source, {
    url: meili.url,
    apiKey: meili.apiKey,
    indexUid: meili.index,
    searchTimeoutMs: meili.timeoutMs,
    now: options.now,
    embedder,
    ...(options.meilisearchWriteGate ? { writeGate: options.meilisearchWriteGate } : {}),
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
    index: identifiersFirst(semantic(resilient)),
    embedded,
    meilisearch,
    follower,
    fallbackFollower: settings.searchFallback === "embedded" ? followEmbedded() : null,
    embedder,
    health: readHealth,
  };
}
