import { type Embedder, queryEmbeddingText } from "./embedder.ts";
import type { SearchIndex, SearchPage, SearchQuery } from "./search-index.ts";
import { withinTimeout } from "./within-timeout.ts";

/*
 * Semantic search, in front of the engine: a query asking for it (`semantic`) gets its vector
 * from the embedder here, within `timeoutMs`, and the engine (Meilisearch, which holds the
 * merchants' vectors) runs a hybrid search with it. The vector is computed outside the engine's
 * own timeout (resilient-index.ts), so a slow embedder never makes Meilisearch look down.
 * Whatever fails, the words still answer, flagged: no embedder configured -> embedding_disabled;
 * the embedder throws or is too slow -> embedding_unavailable. A page the engine itself flagged
 * (the fallback answered) keeps its own flag.
 */

export interface SemanticSearchOptions {
  engine: SearchIndex;
  embedder: Embedder | null;
  /** A query vector not computed within this is given up (default 500 ms). */
  timeoutMs?: number;
  onFailure?: (error: unknown) => void;
}

export function createSemanticSearchIndex(options: SemanticSearchOptions): SearchIndex {
  const { engine, embedder } = options;
  const timeoutMs = options.timeoutMs ?? 500;

  function flagged(page: SearchPage, degraded: SearchPage["degraded"]): SearchPage {
    return page.degraded ? page : { ...page, degraded };
  }

  async function search(query: SearchQuery): Promise<SearchPage> {
    // The engine reads the words, and a vector when there is one: `semantic` is answered here.
    const { vector: _vector, semantic: _semantic, ...words } = query;
    if (query.semantic !== true) return engine.search(words);
    if (!embedder) return flagged(await engine.search(words), "embedding_disabled");
    const text = queryEmbeddingText(query.text);
    // An identifier, or tags and a point alone: nothing to embed, the filters are the whole answer.
    if (text === null) return engine.search(words);
    let vector: number[];
    try {
      const [embedded] = await withinTimeout(embedder.embed([text]), timeoutMs, `the embedder ${embedder.name}`);
      if (!embedded || embedded.length === 0) throw new Error(`the embedder ${embedder.name} returned no vector`);
      vector = Array.from(embedded);
    } catch (error) {
      options.onFailure?.(error);
      return flagged(await engine.search(words), "embedding_unavailable");
    }
    return engine.search({ ...words, vector });
  }

  return {
    name: engine.name,
    search,
    refresh: (abIds) => engine.refresh(abIds),
    rebuild: (onProgress) => engine.rebuild(onProgress),
  };
}
