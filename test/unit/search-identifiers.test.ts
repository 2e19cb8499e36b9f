/**
 * Issue 35, item 3: an identifier (SIRET, SIREN, ab_id) is found on both engines from the first
 * second after a start, answered from the store by key (src/search/identifier-index.ts) in front
 * of the engine, whatever the engine has caught up with: here an embedded index never built and a
 * Meilisearch never fed. The answer is the one a built engine gives an identifier.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSearchEngine, type SearchEngineSettings, sqliteSearchPorts } from "../../src/search/engine.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");
const now = () => NOW;
const query = (text: string, more: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  tags: [],
  near: null,
  limit: 10,
  ...more,
});
/** The Lyon plumber and, under the same SIREN, the stable (search-index-fixture.ts). */
const PLUMBER_SIRET = "44306184100047";
const SIREN = "443061841";
const LYON = { lat: 45.764, lng: 4.8357, radiusKm: null };

let dataDir: string;
let db: Db;
let meili: TestMeilisearch;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-identifiers-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  insertFixtureMerchants(db, fixtureMerchants);
  meili = await startTestMeilisearch();
});

afterAll(async () => {
  await meili?.close();
  db?.$client.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const embeddedOnly: SearchEngineSettings = { meilisearch: null, searchFallback: "embedded", searchEmbedder: null };
const meilisearchOnly = (): SearchEngineSettings => ({
  meilisearch: { url: meili.url, apiKey: null, index: "never-fed", timeoutMs: 2_000 },
  searchFallback: "none",
  searchEmbedder: null,
});

describe.each([
  ["the embedded index, never built", () => embeddedOnly],
  ["Meilisearch, never fed (no fallback)", meilisearchOnly],
])("an identifier on %s, right after a start", (_name, settings) => {
  const engine = () => createSearchEngine(sqliteSearchPorts(db, { now }), settings(), { now });

  it("finds a merchant by its SIRET, spaced as people write it, and by its ab_id in capitals (not an archived one)", async () => {
    const search = engine().index;
    for (const text of [PLUMBER_SIRET, "SIRET 443 061 841 00047", FIXTURE.plumberLyon.toUpperCase()]) {
      const page = await search.search(query(text));
      expect(
        page.hits.map((hit) => [hit.abId, hit.score, hit.matched, hit.matchedProductIds]),
        text,
      ).toEqual([[FIXTURE.plumberLyon, 100, ["identifier"], []]]);
      expect(page.estimatedTotal).toBe(1);
      expect(page.degraded).toBeUndefined();
    }
    // An archived merchant is no search hit, by its identifier either.
    const archived = await Promise.resolve(search.search(query(FIXTURE.bakeryArchived))).catch(() => null);
    expect(archived?.hits.map((hit) => hit.abId) ?? []).not.toContain(FIXTURE.bakeryArchived);
  });

  it("finds every listed establishment of a SIREN, most trusted first, with the distance to a point", async () => {
    const page = await engine().index.search(query(SIREN, { near: LYON }));
    expect(page.hits.map((hit) => hit.abId).sort()).toEqual([FIXTURE.plumberLyon, FIXTURE.stable].sort());
    expect(page.hits.every((hit) => typeof hit.distanceKm === "number")).toBe(true);
    expect(page.estimatedTotal).toBe(2);
  });
});

describe("the identifier's answer from the store", () => {
  it("is the one the built embedded index gives", async () => {
    const engine = createSearchEngine(sqliteSearchPorts(db, { now }), embeddedOnly, { now });
    const fromStore = await Promise.all(
      [query(PLUMBER_SIRET), query(SIREN, { near: LYON }), query(SIREN, { limit: 1, offset: 1 })].map((asked) =>
        engine.index.search(asked),
      ),
    );
    await engine.embedded.rebuild();
    const fromIndex = [query(PLUMBER_SIRET), query(SIREN, { near: LYON }), query(SIREN, { limit: 1, offset: 1 })].map(
      (asked) => engine.embedded.search(asked),
    );
    expect(fromStore).toEqual(fromIndex);
    engine.embedded.close();
  });
});
