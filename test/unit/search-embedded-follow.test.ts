/**
 * The embedded index follows the store's change feed (src/search/embedded/follow.ts): whoever
 * wrote a merchant (here another connection, as an import or an operator's command in another
 * process would), it is found by its SIRET and its ab_id once the follower caught up; the health
 * check counts it until then; a step that fails moves nothing, and the next applies everything
 * since; an index built before it had a cursor is built again.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import {
  createEmbeddedSearchFollower,
  EMBEDDED_FOLLOW_BATCH,
  embeddedFollowedEngine,
} from "../../src/search/embedded/follow.ts";
import { createEmbeddedSearchIndex, type EmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { createSearchEngine, type SearchEngine, sqliteSearchPorts } from "../../src/search/engine.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { storeRevisionReader } from "../../src/store/store-revision.ts";
import {
  FIXTURE,
  type FixtureMerchant,
  fixtureMerchants,
  insertFixtureMerchants,
} from "../helpers/search-index-fixture.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");
const now = () => NOW;

let dataDir: string;
let file: string;
let db: Db;
/** Another process's connection: an import, an operator's command. */
let other: Db;
let engine: SearchEngine;

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-embedded-follow-"));
  file = path.join(dataDir, "abeille.db");
  db = openDatabase(file);
  other = openDatabase(file);
  insertFixtureMerchants(db, fixtureMerchants);
  engine = createSearchEngine(
    sqliteSearchPorts(db, { now }),
    { meilisearch: null, searchFallback: "embedded", searchEmbedder: null },
    { now },
  );
  const embedded: EmbeddedSearchIndex = engine.embedded;
  await embedded.rebuild();
});

afterEach(() => {
  engine.embedded.close();
  other.$client.close();
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `count` bakeries of their own SIRET, as a SIRENE import writes them (no product). */
function bakeries(count: number, first = 0): FixtureMerchant[] {
  const template = fixtureMerchants.find((merchant) => merchant.abId === FIXTURE.bakeryTrusted) as FixtureMerchant;
  return Array.from({ length: count }, (_, offset) => {
    const number = first + offset;
    return {
      ...template,
      abId: `ab_fol${String(number).padStart(5, "0")}`,
      siret: makeSiret(makeSiren(`6${String(number).padStart(7, "0")}`), "0001"),
      name: `Boulangerie Numéro ${number}`,
      products: [],
    };
  });
}

const query = (text: string): SearchQuery => ({ text, tags: [], near: null, limit: 10 });
/** What a search by the merchant's SIRET and by its ab_id find (the ab_ids), as one list each. */
const foundBy = (index: EmbeddedSearchIndex, merchant: FixtureMerchant) => [
  index.search(query(merchant.siret ?? "")).hits.map((hit) => hit.abId),
  index.search(query(merchant.abId)).hits.map((hit) => hit.abId),
];
const missingFrom = (index: EmbeddedSearchIndex, merchants: readonly FixtureMerchant[]) =>
  merchants.filter((merchant) => foundBy(index, merchant).some((ids) => ids.join() !== merchant.abId));

describe("the embedded index following the change feed", () => {
  it("finds merchants another process wrote by SIRET and ab_id once the follower caught up, and health counts them until then", async () => {
    expect(await engine.health()).toEqual({
      engine: "embedded",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
      fallback: null,
    });
    const revision = storeRevisionReader(db);
    const before = revision();
    const written = bakeries(3);
    insertFixtureMerchants(other, written);
    other.$client.prepare("UPDATE merchants SET status = 'SUSPENDED' WHERE ab_id = ?").run(FIXTURE.plumberLyon);

    expect(await engine.health()).toEqual({
      engine: "embedded",
      state: "catching_up",
      lag: { merchants: 4, revisions: revision() - before },
      fallback: null,
    });
    expect(missingFrom(engine.embedded, written)).toEqual(written);
    expect(engine.embedded.search(query("plombier")).hits.map((hit) => hit.abId)).toContain(FIXTURE.plumberLyon);

    const status = await engine.follower.syncOnce();
    expect(status).toMatchObject({ state: "ready", cursor: revision(), lastError: null });
    expect(engine.embedded.readCursor()).toBe(revision());
    expect(await engine.health()).toEqual({
      engine: "embedded",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
      fallback: null,
    });
    expect(missingFrom(engine.embedded, written)).toEqual([]);
    const bySiret = engine.embedded.search(query(written[0]?.siret ?? "")).hits;
    expect(bySiret.map((hit) => [hit.abId, hit.matched])).toEqual([[written[0]?.abId, ["identifier"]]]);
    expect(engine.embedded.search(query("plombier")).hits.map((hit) => hit.abId)).not.toContain(FIXTURE.plumberLyon);
  });

  it("moves nothing when a step fails, and the next run applies every merchant since, those of the failed step included", async () => {
    const written = bakeries(EMBEDDED_FOLLOW_BATCH + 50);
    insertFixtureMerchants(other, written);
    const cursor = engine.embedded.readCursor() as number;
    // The second step dies, as a job killed in its middle would.
    let steps = 0;
    const dying: EmbeddedSearchIndex = {
      ...engine.embedded,
      refreshThrough(abIds, from, through) {
        steps += 1;
        if (steps === 2) throw new Error("killed");
        return engine.embedded.refreshThrough(abIds, from, through);
      },
    };
    const interrupted = await createSearchFollower({
      engine: embeddedFollowedEngine(dying),
      feed: createSearchFeed(db),
      batchSize: EMBEDDED_FOLLOW_BATCH,
    }).syncOnce();
    expect(interrupted).toMatchObject({ state: "unavailable", lastError: "killed" });
    // The first step's merchants are in, with the cursor past them only.
    const afterFirst = engine.embedded.readCursor() as number;
    expect(afterFirst).toBeGreaterThan(cursor);
    expect(missingFrom(engine.embedded, written).length).toBe(50);
    expect((await engine.health()).lag?.merchants).toBe(50);

    // The next run (a job's catch-up, or the server's follower) takes it from there.
    const next = await createEmbeddedSearchFollower(db, engine.embedded).syncOnce();
    expect(next).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)(), lastError: null });
    expect(missingFrom(engine.embedded, written)).toEqual([]);
  });

  it("follows while another process holds the store's write lock: the index never takes it", async () => {
    const written = bakeries(5);
    insertFixtureMerchants(other, written);
    other.$client.exec("BEGIN IMMEDIATE");
    try {
      const follower = createEmbeddedSearchFollower(db, engine.embedded);
      expect(await follower.syncOnce()).toMatchObject({ state: "ready", lastError: null });
    } finally {
      other.$client.exec("ROLLBACK");
    }
    expect(missingFrom(engine.embedded, written)).toEqual([]);
  });

  it("says it could not follow while another process holds the index's lock past its patience, without waiting on the thread or losing anything", async () => {
    const written = bakeries(5);
    insertFixtureMerchants(other, written);
    const cursor = engine.embedded.readCursor();
    const impatient = createEmbeddedSearchIndex(db, { now, lockPatienceMs: 50 });
    const catalog = openDatabase(path.join(engine.embedded.dir, "catalog.db"));
    try {
      const follower = createEmbeddedSearchFollower(db, impatient);
      catalog.$client.exec("BEGIN IMMEDIATE");
      let turns = 0;
      const ticking = setInterval(() => {
        turns += 1;
      }, 5);
      const blocked = await follower.syncOnce();
      clearInterval(ticking);
      catalog.$client.exec("ROLLBACK");
      expect(blocked).toMatchObject({ state: "unavailable", lastError: "database is locked" });
      expect(turns).toBeGreaterThanOrEqual(3);
      expect(engine.embedded.readCursor()).toBe(cursor);
      expect(missingFrom(engine.embedded, written)).toEqual(written);
      expect(await follower.syncOnce()).toMatchObject({ state: "ready", lastError: null });
      expect(missingFrom(engine.embedded, written)).toEqual([]);
    } finally {
      catalog.$client.close();
      impatient.close();
    }
  });

  it("builds again an index that has no cursor (built by an earlier version), with the merchants it was missing", async () => {
    // The state issue 23 found: merchants in the store and the feed, not in the index, and no cursor.
    const written = bakeries(4);
    insertFixtureMerchants(other, written);
    const generation = readdirSync(engine.embedded.dir).find((name) => /^generation-\d+\.db$/.test(name)) ?? "";
    const lost = openDatabase(path.join(engine.embedded.dir, generation));
    lost.$client.prepare("DELETE FROM search_meta WHERE key = 'cursor'").run();
    lost.$client.close();
    expect(engine.embedded.readCursor()).toBeNull();
    expect(await engine.health()).toEqual({ engine: "embedded", state: "not_built", lag: null, fallback: null });

    expect(await engine.follower.syncOnce()).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)() });
    expect(missingFrom(engine.embedded, written)).toEqual([]);
    expect((await engine.health()).lag).toEqual({ merchants: 0, revisions: 0 });
  });

  it("applies each batch once when two processes follow at the same time (the server's follower and a job's catch-up)", async () => {
    const written = bakeries(2 * EMBEDDED_FOLLOW_BATCH + 30);
    insertFixtureMerchants(other, written);
    const applied: string[] = [];
    const counting = (index: EmbeddedSearchIndex): EmbeddedSearchIndex => ({
      ...index,
      async refreshThrough(abIds, from, through) {
        const done = await index.refreshThrough(abIds, from, through);
        if (done) applied.push(...abIds);
        return done;
      },
    });
    const follower = (connection: Db) =>
      createSearchFollower({
        engine: embeddedFollowedEngine(counting(createEmbeddedSearchIndex(connection, { now }))),
        feed: createSearchFeed(connection),
        batchSize: EMBEDDED_FOLLOW_BATCH,
      });
    const [one, two] = await Promise.all([follower(db).syncOnce(), follower(other).syncOnce()]);
    expect([one.state, two.state]).toEqual(["ready", "ready"]);
    expect(applied.length).toBe(written.length);
    expect(new Set(applied).size).toBe(written.length);
    expect(engine.embedded.readCursor()).toBe(storeRevisionReader(db)());
    expect(missingFrom(engine.embedded, written)).toEqual([]);
  });
});
