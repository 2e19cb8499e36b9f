import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
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

const tableNames = () =>
  db.$client.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'search_%' ORDER BY name").pluck().all();

describe("embedded search index", () => {
  it("creates its own derived tables, outside the migrations", () => {
    createEmbeddedSearchIndex(db, { now });
    expect(tableNames()).toEqual(
      expect.arrayContaining(["search_geo", "search_merchant_fts", "search_merchants", "search_meta"]),
    );
    const migrated = db.$client.prepare("SELECT id FROM schema_migrations").pluck().all() as string[];
    expect(migrated.some((id) => id.includes("search"))).toBe(false);
  });

  it("needs a rebuild when new, and rebuilds by itself on the first search", () => {
    const index = createEmbeddedSearchIndex(db, { now });
    expect(index.needsRebuild()).toBe(true);
    expect(index.search(query("boulangerie")).hits.map((hit) => hit.abId)).toContain(FIXTURE.bakeryTrusted);
    expect(index.needsRebuild()).toBe(false);
  });

  it("matches products as they are now after another connection rewrites them, without a refresh", () => {
    const index = createEmbeddedSearchIndex(db, { now });
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
  });

  it("answers a query asked again with the page it kept, until the store or the index moves", () => {
    const index = createEmbeddedSearchIndex(db, { now });
    const first = index.search(query("boulangerie"));
    expect(index.search(query("boulangerie"))).toBe(first);
    expect(index.search(query("boulangerie", { limit: 5 }))).not.toBe(first);
    db.$client.prepare("UPDATE merchants SET phone = '0102030405' WHERE ab_id = ?").run(FIXTURE.bakeryTrusted);
    const afterWrite = index.search(query("boulangerie"));
    expect(afterWrite).not.toBe(first);
    expect(afterWrite).toEqual(first);
    index.refresh([FIXTURE.bakeryTrusted]);
    expect(index.search(query("boulangerie"))).not.toBe(afterWrite);
  });

  it("never matches typed text against the tag and grid-cell tokens of the filters column", () => {
    const index = createEmbeddedSearchIndex(db, { now });
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

  it("spells out a prefix with the words another connection's refresh indexed since", () => {
    const index = createEmbeddedSearchIndex(db, { now });
    index.rebuild();
    const other = openDatabase(file);
    try {
      other.$client
        .prepare("UPDATE merchants SET business_name = 'Boulangerie Zéphyrine' WHERE ab_id = ?")
        .run(FIXTURE.bakeryTrusted);
      // Asked after the store changed and before the index followed: nothing yet.
      expect(index.search(query("zephyr")).hits).toEqual([]);
      createEmbeddedSearchIndex(other, { now }).refresh([FIXTURE.bakeryTrusted]);
    } finally {
      other.$client.close();
    }
    expect(index.search(query("zephyr")).hits.map((hit) => hit.abId)).toEqual([FIXTURE.bakeryTrusted]);
  });

  it("reuses a current index from another instance without rebuilding", () => {
    createEmbeddedSearchIndex(db, { now }).rebuild();
    const again = createEmbeddedSearchIndex(db, { now });
    expect(again.needsRebuild()).toBe(false);
    expect(again.search(query("coiffure")).hits.length).toBeGreaterThan(0);
  });

  it("drops and rebuilds an index written by another format", () => {
    createEmbeddedSearchIndex(db, { now }).rebuild();
    db.$client.prepare("UPDATE search_meta SET value = 'an-older-format' WHERE key = 'format'").run();
    const index = createEmbeddedSearchIndex(db, { now });
    expect(index.needsRebuild()).toBe(true);
    expect(index.search(query("coiffure")).hits.length).toBeGreaterThan(0);
    expect(index.needsRebuild()).toBe(false);
  });

  it("indexes only listed merchants: never archived or suspended ones", () => {
    createEmbeddedSearchIndex(db, { now }).rebuild();
    const indexed = db.$client.prepare("SELECT ab_id FROM search_merchants").pluck().all();
    expect(indexed).not.toContain(FIXTURE.bakeryArchived);
    expect(indexed).not.toContain(FIXTURE.plumberSuspended);
    expect(indexed).toContain(FIXTURE.floristPaused);
    expect(indexed).toContain(FIXTURE.garageProbation);
  });

  it("numbers merchants most trusted first at rebuild", () => {
    createEmbeddedSearchIndex(db, { now }).rebuild();
    const trusts = db.$client.prepare("SELECT trust FROM search_merchants ORDER BY id").pluck().all() as number[];
    expect(trusts).toEqual([...trusts].sort((a, b) => b - a));
  });

  it("on a broad query, scores only the most trusted matches (maxRankedMatches)", () => {
    const index = createEmbeddedSearchIndex(db, { now, maxRankedMatches: 2, candidatePool: 2 });
    const hits = index.search(query("boulangerie")).hits;
    // Three listed bakeries match; the two kept are the most trusted (ties by ab_id).
    expect(hits.map((hit) => hit.abId)).toEqual([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]);
  });

  it("keeps a point's matches when bounding the work (filters apply before the cut)", () => {
    const index = createEmbeddedSearchIndex(db, { now, maxRankedMatches: 1, candidatePool: 1 });
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

  it("ignores a limit below 1 and an invalid point instead of failing", () => {
    const index = createEmbeddedSearchIndex(db, { now });
    expect(index.search(query("boulangerie", { limit: 0 })).hits).toEqual([]);
    expect(index.search(query("boulangerie", { near: { lat: Number.NaN, lng: 4, radiusKm: 10 } })).hits).toEqual([]);
    expect(index.search(query("boulangerie", { near: { lat: 45, lng: 4, radiusKm: -1 } })).hits).toEqual([]);
  });
});
