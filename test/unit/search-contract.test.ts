import path from "node:path";
import { afterAll } from "vitest";
import { createEmbeddedSearchIndex, createLocalSearchIndex } from "../../src/search/embedded/index.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { describeSearchIndexContract } from "../helpers/search-index-contract.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");

describeSearchIndexContract("embedded (SQLite FTS5 + R*Tree)", (db) =>
  createEmbeddedSearchIndex(db, { now: () => NOW }),
);

// The index of a store elsewhere (PostgreSQL on a deployment): no store beside it, every result
// from what it applied; read here from the SQLite store through the same asynchronous SearchSource.
describeSearchIndexContract("embedded with no store beside it (PostgreSQL's layout)", (db) =>
  createLocalSearchIndex(path.join(path.dirname(db.$client.name), "own-search-index"), createSearchSource(db), {
    now: () => NOW,
  }),
);

let meilisearch: TestMeilisearch | undefined;
afterAll(async () => {
  await meilisearch?.close();
});

describeSearchIndexContract("Meilisearch 1.21 (community binary on loopback)", async (db) => {
  meilisearch = await startTestMeilisearch();
  return createMeilisearchSearchIndex(createSearchSource(db), {
    url: meilisearch.url,
    indexUid: "contract",
    now: () => NOW,
  });
});
