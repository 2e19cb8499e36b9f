import { afterAll } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { describeSearchIndexContract } from "../helpers/search-index-contract.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");

describeSearchIndexContract("embedded (SQLite FTS5 + R*Tree)", (db) =>
  createEmbeddedSearchIndex(db, { now: () => NOW }),
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
