/**
 * Search on a PostgreSQL deployment. A demo registry seeded on SQLite is copied to PostgreSQL
 * (copySqliteToPostgres), then:
 * - the search reads (SearchSource) answer the same rows in the same order on both engines
 *   (src/search/source.ts, src/store/postgres/search-source.ts), deep-equal;
 * - the embedded index in a folder of its own (ownFileSearchPorts: DATA_DIR/search-index/),
 *   following PostgreSQL's feed, answers text, tags, geo and identifier searches as the SQLite
 *   store's own embedded index does; a merchant changed in PostgreSQL is in it after the
 *   follower's step; two such files following one PostgreSQL agree;
 * - Meilisearch fed from PostgreSQL (its source and feed) answers as Meilisearch fed from SQLite;
 * - while PostgreSQL is away, an instance's own index keeps answering and its follower says
 *   unavailable, then catches up once PostgreSQL is back.
 * The tests run in this order: the comparisons first, the changes made in PostgreSQL after.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalSearchIndex } from "../../src/search/embedded/index.ts";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import {
  createSearchEngine,
  ownFileSearchPorts,
  postgresSearchPorts,
  type SearchEngine,
} from "../../src/search/engine.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { createSearchSource, type ListedPage, listedPageSql, type SearchSource } from "../../src/search/source.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresSearchFeed } from "../../src/store/postgres/registry-feeds.ts";
import { createPostgresSearchSource } from "../../src/store/postgres/search-source.ts";
import { numbered } from "../../src/store/postgres/transaction.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

const NOW = new Date("2026-11-26T10:00:00.000Z");
const now = () => NOW;
const SETTINGS = { meilisearch: null, searchFallback: "embedded", searchEmbedder: null } as const;

let dataDir: string;
let sqlite: Db;
let server: TestPostgres;
let pool: pg.Pool;
let abIds: string[];
/** Queries of every kind, built from the registry itself (so that each finds something). */
let queries: [label: string, query: SearchQuery][];

const instances: { dir: string; engine: SearchEngine<LocalSearchIndex> }[] = [];

/** An instance's search engine over PostgreSQL, its index in its own DATA_DIR. */
function instance(): SearchEngine<LocalSearchIndex> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-search-instance-"));
  const engine = createSearchEngine(postgresSearchPorts(pool, { dataDir: dir, now }), SETTINGS, { now });
  instances.push({ dir, engine });
  return engine;
}

const query = (text: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  tags: [],
  near: null,
  limit: 10,
  ...extra,
});

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-search-postgres-"));
  sqlite = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(sqlite, {
    count: 80,
    seed: 21,
    now: new Date("2026-11-01T00:00:00Z"),
    dataDir,
    searchIndex: null,
  });
  server = await startTestPostgres();
  pool = openPostgresPool({ url: await server.createDatabase(), poolMax: 4, poolTimeoutMs: 10_000 });
  await copySqliteToPostgres(sqlite.$client, pool, { batchRows: 500 });
  abIds = sqlite.$client.prepare("SELECT ab_id FROM merchants ORDER BY ab_id").pluck().all() as string[];
  const placed = sqlite.$client
    .prepare(
      `SELECT m.ab_id, m.siret, m.business_name, m.city, tp.latitude, tp.longitude FROM merchants m
       JOIN territorial_proofs tp ON tp.ab_id = m.ab_id WHERE m.status = 'ACTIVE' AND tp.latitude IS NOT NULL
       ORDER BY m.ab_id LIMIT 1`,
    )
    .get() as {
    ab_id: string;
    siret: string;
    business_name: string;
    city: string;
    latitude: number;
    longitude: number;
  };
  const tag = sqlite.$client
    .prepare("SELECT value FROM products, json_each(products.tags) ORDER BY value LIMIT 1")
    .pluck()
    .get() as string;
  const near = { lat: placed.latitude, lng: placed.longitude, radiusKm: 30 };
  queries = [
    ["a name", query(placed.business_name)],
    ["a trade", query("boulangerie")],
    ["a town", query(placed.city)],
    ["a prefix", query("plomb")],
    ["a typo", query("boulangrie")],
    ["a tag", query("", { tags: [tag] })],
    ["a point", query("", { near })],
    ["a trade near a point", query("restaurant", { near })],
    ["a SIRET", query(placed.siret)],
    ["a SIREN", query(placed.siret.slice(0, 9))],
    ["an ab_id", query(placed.ab_id.toUpperCase())],
    ["a second page", query("", { near: { ...near, radiusKm: 300 }, limit: 5, offset: 5 })],
  ];
}, 180_000);

afterAll(async () => {
  for (const { dir, engine } of instances) {
    await engine.follower.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  await pool?.end();
  await server?.stop();
  sqlite?.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the search reads on SQLite and on PostgreSQL", () => {
  it("answer the same rows, in the same order", async () => {
    const onSqlite = createSearchSource(sqlite);
    const onPostgres = createPostgresSearchSource(pool);
    expect(abIds).toHaveLength(80);
    // Asked out of order, with an id that does not exist: both answer by ab_id, without it.
    const asked = [...abIds.slice(40, 60).reverse(), "ab_nothing0", ...abIds.slice(0, 10)];
    expect(await onPostgres.revision()).toBe(await onSqlite.revision());
    const merchants = await onSqlite.readMerchants(asked);
    expect(merchants.merchants.length).toBe(30);
    expect(merchants.products.size).toBeGreaterThan(0);
    expect(await onPostgres.readMerchants(asked)).toEqual(merchants);
    expect(await onPostgres.readProducts(asked)).toEqual(await onSqlite.readProducts(asked));
    const signals = await onSqlite.readSignals(asked);
    expect(signals.size).toBeGreaterThan(0);
    expect(await onPostgres.readSignals(asked)).toEqual(signals);
    const order = await onSqlite.listedByTrust(NOW);
    expect(order.length).toBeGreaterThan(50);
    expect(await onPostgres.listedByTrust(NOW)).toEqual(order);
    const listed = await onSqlite.listedDocuments(asked, NOW);
    expect(listed.unlisted).toContain("ab_nothing0");
    expect(await onPostgres.listedDocuments(asked, NOW)).toEqual(listed);
    expect(await onPostgres.listedDocumentsAt(asked, NOW)).toEqual(await onSqlite.listedDocumentsAt(asked, NOW));
    const snapshot = await onSqlite.registrySnapshot(NOW);
    expect(snapshot.order).toEqual(order);
    expect(await onPostgres.registrySnapshot(NOW)).toEqual(snapshot);
  });

  it("read a full build's keyset pages, its total and identifiers alike, along the primary key", async () => {
    const onSqlite = createSearchSource(sqlite);
    const onPostgres = createPostgresSearchSource(pool);
    const pages = async (source: SearchSource) => {
      const read: ListedPage[] = [];
      for (let after = ""; ; ) {
        const page = await source.listedPage(after, 7, NOW);
        if (page.last === null) return read;
        read.push(page);
        after = page.last;
      }
    };
    const onBoth = await pages(onSqlite);
    expect(onBoth.length).toBeGreaterThan(5);
    expect(await pages(onPostgres)).toEqual(onBoth);
    expect(onBoth.reduce((sum, page) => sum + page.scanned, 0)).toBe(await onSqlite.countListed());
    expect(await onPostgres.countListed()).toBe(await onSqlite.countListed());
    const doc = onBoth[1]?.documents[0];
    if (!doc) throw new Error("a listed merchant");
    for (const identifier of [
      { kind: "siret", value: doc.siret },
      { kind: "siren", value: doc.siret.slice(0, 9) },
      { kind: "ab_id", value: doc.abId },
    ] as const) {
      const found = await onSqlite.identifierMatches(identifier);
      expect(found).toContain(doc.abId);
      expect(await onPostgres.identifierMatches(identifier)).toEqual(found);
    }
    // The plans: each page walks the primary key from where the last one stopped, never a sort
    // of every listed merchant.
    const client = await pool.connect();
    try {
      // A tiny table is cheaper to read whole and sort: the planner is told not to, and has to
      // find the key's order (which a collation other than the key's would not give it).
      await client.query("SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off");
      const { text, values } = numbered(listedPageSql("postgres"), { after: "ab_m", limit: 100 });
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values)).rows
        .map((row) => row["QUERY PLAN"])
        .join("\n");
      expect(plan).toMatch(/Index Scan using merchants_pkey on merchants/);
      expect(plan).not.toMatch(/Sort/);
    } finally {
      await client.query("RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort");
      client.release();
    }
    const sqlitePlan = sqlite.$client
      .prepare(`EXPLAIN QUERY PLAN ${listedPageSql("sqlite")}`)
      .all({ after: "ab_m", limit: 100 })
      .map((row) => (row as { detail: string }).detail)
      .join("\n");
    expect(sqlitePlan).toMatch(/SEARCH m USING INDEX sqlite_autoindex_merchants_1 \(ab_id>\?\)/);
    expect(sqlitePlan).not.toMatch(/TEMP B-TREE/);
  });
});

describe("Meilisearch fed from PostgreSQL", () => {
  let meilisearch: TestMeilisearch;
  beforeAll(async () => {
    meilisearch = await startTestMeilisearch();
  }, 60_000);
  afterAll(async () => {
    await meilisearch?.close();
  });

  it("answers as Meilisearch fed from the SQLite store", async () => {
    const fromPostgres = createMeilisearchSearchIndex(createPostgresSearchSource(pool), {
      url: meilisearch.url,
      indexUid: "from_postgres",
      now,
    });
    const fromSqlite = createMeilisearchSearchIndex(createSearchSource(sqlite), {
      url: meilisearch.url,
      indexUid: "from_sqlite",
      now,
    });
    const onPostgres = await createSearchFollower({
      engine: fromPostgres,
      feed: createPostgresSearchFeed(pool),
    }).syncOnce();
    const onSqlite = await createSearchFollower({ engine: fromSqlite, feed: createSearchFeed(sqlite) }).syncOnce();
    expect(onPostgres.state).toBe("ready");
    expect(onPostgres.cursor).toBe(await createPostgresSearchSource(pool).revision());
    expect(onSqlite.state).toBe("ready");
    for (const [label, asked] of queries) {
      const expected = await fromSqlite.search(asked);
      expect(expected.hits.length, label).toBeGreaterThan(0);
      expect(await fromPostgres.search(asked), label).toEqual(expected);
    }
  });

  it("is what createSearchEngine follows and searches over PostgreSQL's ports, the own file as its fallback", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-search-instance-"));
    const ports = ownFileSearchPorts({
      source: createPostgresSearchSource(pool),
      feed: createPostgresSearchFeed(pool),
      dataDir: dir,
      now,
    });
    const engine = createSearchEngine(
      ports,
      {
        meilisearch: { url: meilisearch.url, apiKey: null, index: "engine_postgres", timeoutMs: 5_000 },
        searchFallback: "embedded",
        searchEmbedder: null,
      },
      { now },
    );
    try {
      expect((await engine.follower.syncOnce()).state).toBe("ready");
      expect((await engine.fallbackFollower?.syncOnce())?.state).toBe("ready");
      expect(await engine.health()).toEqual({
        engine: "meilisearch",
        state: "ready",
        lag: { merchants: 0, revisions: 0 },
        fallback: "embedded",
      });
      const asked = query("boulangerie");
      const answer = await engine.index.search(asked);
      expect(answer.hits.length).toBeGreaterThan(0);
      expect(answer.hits.map((hit) => hit.abId)).toEqual(
        (await (engine.meilisearch as NonNullable<typeof engine.meilisearch>).search(asked)).hits.map(
          (hit) => hit.abId,
        ),
      );
      expect(engine.embedded.readCursor()).toBe(await createPostgresSearchSource(pool).revision());
      expect(engine.embedded.search(asked).hits.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the embedded index in its own file, following PostgreSQL", () => {
  it("is built by its follower and answers as the SQLite store's own index", async () => {
    const engine = instance();
    expect(engine.embedded.needsRebuild()).toBe(true);
    expect((await engine.health()).state).toBe("not_built");
    // Not built yet: a search answers nothing (the follower builds it, never a search).
    expect(engine.embedded.search(query("boulangerie")).hits).toEqual([]);
    const status = await engine.follower.syncOnce();
    expect(status.state).toBe("ready");
    expect(status.cursor).toBe(await createPostgresSearchSource(pool).revision());
    expect(existsSync(path.join(instances[0]?.dir ?? "", "search-index", "catalog.db"))).toBe(true);
    expect(await engine.health()).toEqual({
      engine: "embedded",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
      fallback: null,
    });

    const inStore = createEmbeddedSearchIndex(sqlite, { now });
    await inStore.rebuild();
    for (const [label, asked] of queries) {
      const expected = inStore.search(asked);
      expect(expected.hits.length, label).toBeGreaterThan(0);
      expect(engine.embedded.search(asked), label).toEqual(expected);
    }
  });

  it("applies a merchant changed in PostgreSQL at the follower's next step", async () => {
    const engine = instance();
    await engine.follower.syncOnce();
    const [first, second] = engine.embedded.search(query("boulangerie")).hits;
    if (!first || !second) throw new Error("the demo registry has two bakeries");
    await pool.query("UPDATE merchants SET business_name = 'Fournil Zéphyrin' WHERE ab_id = $1", [first.abId]);
    await pool.query("UPDATE merchants SET status = 'ARCHIVED' WHERE ab_id = $1", [second.abId]);
    const renamed = query("zephyrin");
    expect(engine.embedded.search(renamed).hits).toEqual([]);
    expect((await engine.health()).lag?.merchants).toBe(2);

    const status = await engine.follower.syncOnce();
    expect(status.cursor).toBe(await createPostgresSearchSource(pool).revision());
    const found = engine.embedded.search(renamed).hits;
    expect(found.map((hit) => hit.abId)).toEqual([first.abId]);
    expect(found[0]?.matched).toEqual(["name"]);
    const bakeries = engine.embedded.search(query("boulangerie", { limit: 50 })).hits.map((hit) => hit.abId);
    expect(bakeries).toContain(first.abId);
    expect(bakeries).not.toContain(second.abId);
    expect((await engine.health()).state).toBe("ready");
  });

  it("two instances' files following one PostgreSQL answer the same", async () => {
    const [one, two] = [instance(), instance()];
    await one.follower.syncOnce();
    const listed = one.embedded.search(query("boulangerie")).hits[0]?.abId;
    await pool.query(
      "UPDATE merchants SET description = 'Pain au levain naturel cuit au feu de bois' WHERE ab_id = $1",
      [listed],
    );
    // The second builds after the change, the first applies it as a change: the same index.
    await two.follower.syncOnce();
    await one.follower.syncOnce();
    expect(one.embedded.readCursor()).toBe(two.embedded.readCursor());
    for (const [label, asked] of [...queries, ["the changed description", query("levain feu de bois")] as const]) {
      const answer = one.embedded.search(asked);
      expect(answer.hits.length, label).toBeGreaterThan(0);
      expect(two.embedded.search(asked), label).toEqual(answer);
    }
  });
});

describe("an instance's own index while PostgreSQL is away", () => {
  it("keeps answering from its file, says unavailable, and catches up once PostgreSQL is back", async () => {
    const engine = instance();
    await engine.follower.syncOnce();
    const asked = query("boulangerie");
    const before = engine.embedded.search(asked);
    expect(before.hits.length).toBeGreaterThan(0);
    await server.pause();
    try {
      const status = await engine.follower.syncOnce();
      expect(status.state).toBe("unavailable");
      expect(status.lastError).not.toBeNull();
      expect(engine.embedded.search(asked)).toEqual(before);
    } finally {
      await server.resume();
    }
    await pool.query("UPDATE merchants SET business_name = 'Boulangerie Revenue' WHERE ab_id = $1", [
      before.hits[0]?.abId,
    ]);
    const status = await engine.follower.syncOnce();
    expect(status.state).toBe("ready");
    expect(engine.embedded.search(query("revenue")).hits.map((hit) => hit.abId)).toEqual([before.hits[0]?.abId]);
  });
});
