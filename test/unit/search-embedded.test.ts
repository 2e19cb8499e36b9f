import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex, type EmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const now = () => new Date("2026-06-01T00:00:00.000Z");
const query = (text: string, more: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  tags: [],
  near: null,
  limit: 50,
  ...more,
});

let dataDir: string;
let file: string;
let db: Db;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-search-embedded-"));
  file = path.join(dataDir, "abeille.db");
  db = openDatabase(file);
  insertFixtureMerchants(db, fixtureMerchants);
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const generationFile = (index: EmbeddedSearchIndex) => {
  const files = readdirSync(index.dir).filter((name) => /^generation-\d+\.db$/.test(name));
  expect(files).toHaveLength(1);
  return path.join(index.dir, files[0] ?? "");
};
/** The current generation's file, read apart (a test's own connection). */
function inGeneration<T>(index: EmbeddedSearchIndex, read: (sqlite: Db["$client"]) => T): T {
  const sqlite = openDatabase(generationFile(index), { readonly: true }).$client;
  try {
    return read(sqlite);
  } finally {
    sqlite.close();
  }
}

describe("embedded search index", () => {
  it("keeps its tables in DATA_DIR/search-index/, outside the store's file and its migrations", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    expect(index.dir).toBe(path.join(dataDir, "search-index"));
    expect(existsSync(path.join(index.dir, "catalog.db"))).toBe(true);
    const inStore = db.$client.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'search_%'").pluck().all();
    expect(inStore).toEqual([]);
    const tables = inGeneration(index, (sqlite) =>
      sqlite.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'search_%' ORDER BY name").pluck().all(),
    );
    expect(tables).toEqual(
      expect.arrayContaining(["search_geo", "search_merchant_fts", "search_merchants", "search_meta", "search_sirets"]),
    );
    const migrated = db.$client.prepare("SELECT id FROM schema_migrations").pluck().all() as string[];
    expect(migrated.some((id) => id.includes("search"))).toBe(false);
    index.close();
  });

  it("needs a build when new: answers nothing, flagged index_building, until it is built", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    expect(index.needsRebuild()).toBe(true);
    expect(index.search(query("boulangerie"))).toEqual({ hits: [], estimatedTotal: 0, degraded: "index_building" });
    await index.rebuild();
    expect(index.needsRebuild()).toBe(false);
    const page = index.search(query("boulangerie"));
    expect(page.degraded).toBeUndefined();
    expect(page.hits.map((hit) => hit.abId)).toContain(FIXTURE.bakeryTrusted);
    index.close();
  });

  it("matches products as they are now after another connection rewrites them, without a refresh", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    const matched = () =>
      index.search(query("gâteaux")).hits.find((hit) => hit.abId === FIXTURE.bakeryTrusted)?.matchedProductIds;
    expect(matched()?.[0]).toBe("pr_bake0001_2");
    const other = openDatabase(file);
    try {
      other.$client
        .prepare("UPDATE products SET name = 'Tarte aux pommes', description = 'Pâte brisée' WHERE product_id = ?")
        .run("pr_bake0001_2");
    } finally {
      other.$client.close();
    }
    expect(matched()).not.toContain("pr_bake0001_2");
    index.close();
  });

  it("answers a query asked again with the page it kept, until the store or the index moves", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    const first = index.search(query("boulangerie"));
    expect(index.search(query("boulangerie"))).toBe(first);
    expect(index.search(query("boulangerie", { limit: 5 }))).not.toBe(first);
    db.$client.prepare("UPDATE merchants SET phone = '0102030405' WHERE ab_id = ?").run(FIXTURE.bakeryTrusted);
    const afterWrite = index.search(query("boulangerie"));
    expect(afterWrite).not.toBe(first);
    expect(afterWrite).toEqual(first);
    await index.refresh([FIXTURE.bakeryTrusted]);
    expect(index.search(query("boulangerie"))).not.toBe(afterWrite);
    index.close();
  });

  it("never matches typed text against the tag and grid-cell tokens of the filters column", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    // The bakery's products carry the tag "sans gluten" (token t_sansgluten) and its point lies in
    // cells such as g_0n...: written with or without the underscore, as words or prefixes, they
    // find nothing, while the tag itself still filters.
    for (const text of ["t_sansgluten", "tsansgluten", "t sansgluten", "t_", "g_0", "g0n", "g_"]) {
      expect(index.search(query(text)).hits.map((hit) => hit.abId)).toEqual([]);
    }
    expect(index.search(query("pain", { tags: ["sans gluten"] })).hits.map((hit) => hit.abId)).toContain(
      FIXTURE.bakeryTrusted,
    );
  });

  it("spells out a prefix with the words another process's refresh indexed since", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    const other = openDatabase(file);
    try {
      other.$client
        .prepare("UPDATE merchants SET business_name = 'Boulangerie Zéphyrine' WHERE ab_id = ?")
        .run(FIXTURE.bakeryTrusted);
      // Asked after the store changed and before the index followed: nothing yet.
      expect(index.search(query("zephyr")).hits).toEqual([]);
      const elsewhere = createEmbeddedSearchIndex(other, { now });
      await elsewhere.refresh([FIXTURE.bakeryTrusted]);
      elsewhere.close();
    } finally {
      other.$client.close();
    }
    expect(index.search(query("zephyr")).hits.map((hit) => hit.abId)).toEqual([FIXTURE.bakeryTrusted]);
    index.close();
  });

  it("reuses a current index from another instance without rebuilding", async () => {
    const first = createEmbeddedSearchIndex(db, { now });
    await first.rebuild();
    first.close();
    const again = createEmbeddedSearchIndex(db, { now });
    expect(again.needsRebuild()).toBe(false);
    expect(again.search(query("coiffure")).hits.length).toBeGreaterThan(0);
    again.close();
  });

  it("builds anew, and deletes the old generation, when the current one is of another format", async () => {
    const first = createEmbeddedSearchIndex(db, { now });
    await first.rebuild();
    const catalog = openDatabase(path.join(first.dir, "catalog.db")).$client;
    catalog.prepare("UPDATE generations SET format = 'an-older-format'").run();
    catalog.close();
    const oldFile = generationFile(first);
    first.close();
    const index = createEmbeddedSearchIndex(db, { now });
    expect(index.needsRebuild()).toBe(true);
    await index.rebuild();
    expect(index.needsRebuild()).toBe(false);
    expect(existsSync(oldFile)).toBe(false);
    expect(generationFile(index)).not.toBe(oldFile);
    expect(index.search(query("coiffure")).hits.length).toBeGreaterThan(0);
    index.close();
  });

  it("indexes only listed merchants: never archived or suspended ones", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    const indexed = inGeneration(index, (sqlite) => sqlite.prepare("SELECT ab_id FROM search_merchants").pluck().all());
    expect(indexed).not.toContain(FIXTURE.bakeryArchived);
    expect(indexed).not.toContain(FIXTURE.plumberSuspended);
    expect(indexed).toContain(FIXTURE.floristPaused);
    expect(indexed).toContain(FIXTURE.garageProbation);
    index.close();
  });

  it("numbers merchants most trusted first, whatever the order of the build's pages (trust bands)", async () => {
    const index = createEmbeddedSearchIndex(db, { now, pageSize: 2 });
    await index.rebuild();
    const trusts = inGeneration(
      index,
      (sqlite) => sqlite.prepare("SELECT trust FROM search_merchants ORDER BY id").pluck().all() as number[],
    );
    expect(trusts.length).toBeGreaterThan(4);
    expect(trusts).toEqual([...trusts].sort((a, b) => b - a));
    index.close();
  });

  it("on a broad query, scores only the most trusted matches (maxRankedMatches)", async () => {
    const index = createEmbeddedSearchIndex(db, { now, maxRankedMatches: 2, candidatePool: 2 });
    await index.rebuild();
    const hits = index.search(query("boulangerie")).hits;
    // Three listed bakeries match; the two kept are the most trusted (ties by ab_id).
    expect(hits.map((hit) => hit.abId)).toEqual([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]);
  });

  it("keeps a point's matches when bounding the work (filters apply before the cut)", async () => {
    const index = createEmbeddedSearchIndex(db, { now, maxRankedMatches: 1, candidatePool: 1 });
    await index.rebuild();
    const hits = index.search(query("coiffure", { near: { lat: 43.2965, lng: 5.3698, radiusKm: 5 } })).hits;
    expect(hits.map((hit) => hit.abId)).toEqual([FIXTURE.hairMarseille]);
  });

  it("answers nothing, without failing, from a read-only connection to an unbuilt index", () => {
    const readonly = openDatabase(file, { readonly: true });
    try {
      const index = createEmbeddedSearchIndex(readonly, { now });
      expect(index.needsRebuild()).toBe(true);
      expect(index.search(query("boulangerie")).hits).toEqual([]);
    } finally {
      readonly.$client.close();
    }
  });

  it("ignores a limit below 1 and an invalid point instead of failing", async () => {
    const index = createEmbeddedSearchIndex(db, { now });
    await index.rebuild();
    expect(index.search(query("boulangerie", { limit: 0 })).hits).toEqual([]);
    expect(index.search(query("boulangerie", { near: { lat: Number.NaN, lng: 4, radiusKm: 10 } })).hits).toEqual([]);
    expect(index.search(query("boulangerie", { near: { lat: 45, lng: 4, radiusKm: -1 } })).hits).toEqual([]);
  });
});
