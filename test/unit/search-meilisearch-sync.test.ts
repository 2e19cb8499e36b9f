import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import { createMeilisearchSearchIndex, type MeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import { createResilientSearchIndex } from "../../src/search/resilient-index.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { storeRevisionReader } from "../../src/store/store-revision.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const NOW = new Date("2026-06-01T00:00:00.000Z");
const query = (text: string): SearchQuery => ({ text, tags: [], near: null, limit: 10 });

let dataDir: string;
let db: Db;
let meili: TestMeilisearch;
let index: MeilisearchSearchIndex;
let rebuilds = 0;

const counted = (target: MeilisearchSearchIndex) => ({
  ...target,
  rebuild: async (onProgress?: (done: number, total: number) => void) => {
    rebuilds += 1;
    await target.rebuild(onProgress);
  },
});
const ids = async (text: string) => (await index.search(query(text))).hits.map((hit) => hit.abId);
const exec = (sql: string, ...params: unknown[]) => db.$client.prepare(sql).run(...params);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-meili-sync-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  insertFixtureMerchants(db, fixtureMerchants);
  meili = await startTestMeilisearch();
  index = createMeilisearchSearchIndex(createSearchSource(db), { url: meili.url, indexUid: "sync", now: () => NOW });
});

afterAll(async () => {
  await meili?.close();
  db?.$client.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the Meilisearch follower", () => {
  it("builds an empty Meilisearch in full and acknowledges the store revision it read", async () => {
    const follower = createSearchFollower({ engine: counted(index), feed: createSearchFeed(db) });
    const progress: number[] = [];
    const status = await createSearchFollower({
      engine: counted(index),
      feed: createSearchFeed(db),
      onProgress: (done) => progress.push(done),
    }).syncOnce();
    expect(status).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)(), lastError: null });
    expect(rebuilds).toBe(1);
    expect(progress.at(-1)).toBe(fixtureMerchants.filter((m) => !["ARCHIVED", "SUSPENDED"].includes(m.status)).length);
    expect(await ids("Martin Dépannage")).toEqual([FIXTURE.plumberLyon]);
    // In step: a second sync has nothing to do.
    expect((await follower.syncOnce()).state).toBe("ready");
    expect(rebuilds).toBe(1);
  });

  it("applies the merchants changed since its cursor (name, products, status) and moves the cursor", async () => {
    const follower = createSearchFollower({ engine: counted(index), feed: createSearchFeed(db), batchSize: 2 });
    exec("UPDATE merchants SET business_name = 'Martin Hydraulique' WHERE ab_id = ?", FIXTURE.plumberLyon);
    exec("UPDATE products SET name = 'Brioche tressée' WHERE product_id = 'pr_bake0001_3'");
    exec("UPDATE merchants SET status = 'ARCHIVED' WHERE ab_id = ?", FIXTURE.floristNear);
    const status = await follower.syncOnce();
    expect(status).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)() });
    expect(await ids("Martin Hydraulique")).toEqual([FIXTURE.plumberLyon]);
    expect(await ids("brioche")).toEqual([FIXTURE.bakeryTrusted]);
    expect(await ids("fleuriste gauche")).toEqual([]);
    expect(await index.readCursor()).toBe(storeRevisionReader(db)());
    expect(rebuilds).toBe(1);
  });

  it("says it is unavailable while Meilisearch is down, then resumes from its cursor without a rebuild", async () => {
    const follower = createSearchFollower({ engine: counted(index), feed: createSearchFeed(db) });
    await meili.stop();
    exec("UPDATE merchants SET status = 'ACTIVE' WHERE ab_id = ?", FIXTURE.floristNear);
    exec("UPDATE merchants SET business_name = 'Fleuriste du Quai' WHERE ab_id = ?", FIXTURE.floristFar);
    const down = await follower.syncOnce();
    expect(down.state).toBe("unavailable");
    expect(down.lastError).toEqual(expect.any(String));

    await meili.restart();
    const up = await follower.syncOnce();
    expect(up).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)(), lastError: null });
    expect(await ids("fleuriste gauche")).toEqual([FIXTURE.floristNear]);
    expect(await ids("fleuriste du quai")).toEqual([FIXTURE.floristFar]);
    expect(rebuilds).toBe(1);
  });

  it("builds again in full when Meilisearch lost its data", async () => {
    const fresh = await startTestMeilisearch();
    try {
      const other = createMeilisearchSearchIndex(createSearchSource(db), {
        url: fresh.url,
        indexUid: "sync",
        now: () => NOW,
      });
      expect(await other.readCursor()).toBeNull();
      const status = await createSearchFollower({ engine: counted(other), feed: createSearchFeed(db) }).syncOnce();
      expect(status.state).toBe("ready");
      expect(rebuilds).toBe(2);
      expect((await other.search(query("Martin Hydraulique"))).hits.map((hit) => hit.abId)).toEqual([
        FIXTURE.plumberLyon,
      ]);
    } finally {
      await fresh.close();
    }
  });

  it("serves the previous index until a rebuild swaps the new one in", async () => {
    const searches: Promise<string[]>[] = [];
    const rebuilt = index.rebuild(() => {
      searches.push(ids("Martin Hydraulique"));
    });
    await rebuilt;
    for (const answer of await Promise.all(searches)) expect(answer).toEqual([FIXTURE.plumberLyon]);
  });
});

describe("an index built with another layout", () => {
  it("reads as having no cursor, so the follower builds it again", async () => {
    const task = (await (
      await fetch(`${meili.url}/indexes/sync_meta/documents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([{ id: "sync", cursor: storeRevisionReader(db)(), format: "an-older-layout" }]),
      })
    ).json()) as { taskUid: number };
    // Meilisearch applies the write in its own time (seconds when the suite loads both cores).
    let written = "enqueued";
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      ({ status: written } = (await (await fetch(`${meili.url}/tasks/${task.taskUid}`)).json()) as {
        status: string;
      });
      if (written !== "enqueued" && written !== "processing") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(written).toBe("succeeded");
    expect(await index.readCursor()).toBeNull();
    const before = rebuilds;
    const status = await createSearchFollower({ engine: counted(index), feed: createSearchFeed(db) }).syncOnce();
    expect(status).toMatchObject({ state: "ready", cursor: storeRevisionReader(db)() });
    expect(rebuilds).toBe(before + 1);
  });
});

describe("search when Meilisearch fails", () => {
  const embedded = async () => {
    const index = createEmbeddedSearchIndex(db, { now: () => NOW });
    await index.rebuild();
    return index;
  };

  it("answers from the embedded index, flagged, while Meilisearch is stopped; then from Meilisearch again", async () => {
    let clock = 0;
    const resilient = createResilientSearchIndex({
      primary: index,
      fallback: await embedded(),
      timeoutMs: 2_000,
      retryAfterMs: 5_000,
      now: () => clock,
    });
    expect((await resilient.search(query("Martin Hydraulique"))).degraded).toBeUndefined();
    await meili.stop();
    try {
      const page = await resilient.search(query("Martin Hydraulique"));
      expect(page.degraded).toBe("search_engine_unavailable");
      expect(page.hits.map((hit) => hit.abId)).toEqual([FIXTURE.plumberLyon]);
      expect(resilient.isDegraded()).toBe(true);
    } finally {
      await meili.restart();
    }
    // Within the retry delay, the fallback answers without trying Meilisearch.
    expect((await resilient.search(query("plombier"))).degraded).toBe("search_engine_unavailable");
    clock += 5_000;
    expect((await resilient.search(query("plombier"))).degraded).toBeUndefined();
    expect(resilient.isDegraded()).toBe(false);
  });

  it("refuses with SEARCH_UNAVAILABLE and a Retry-After when there is no fallback", async () => {
    const resilient = createResilientSearchIndex({
      primary: createMeilisearchSearchIndex(createSearchSource(db), { url: "http://127.0.0.1:9", indexUid: "sync" }),
      fallback: null,
      timeoutMs: 2_000,
      retryAfterMs: 3_000,
    });
    const failure = await resilient.search(query("plombier")).catch((error: unknown) => error);
    expect(isServiceError(failure) && failure.code).toBe("SEARCH_UNAVAILABLE");
    expect(isServiceError(failure) && failure.details.retryAfterSeconds).toBe(3);
  });

  describe("a Meilisearch that accepts connections and never answers", () => {
    let silent: Server;
    let url: string;
    beforeAll(async () => {
      silent = createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const address = silent.address();
      url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    });
    afterAll(() => {
      silent.close();
    });

    it("is given up after the timeout, and the fallback answers", async () => {
      const resilient = createResilientSearchIndex({
        primary: createMeilisearchSearchIndex(createSearchSource(db), {
          url,
          indexUid: "sync",
          searchTimeoutMs: 10_000,
        }),
        fallback: await embedded(),
        timeoutMs: 150,
      });
      const started = Date.now();
      const page = await resilient.search(query("Martin Hydraulique"));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(page).toMatchObject({ degraded: "search_engine_unavailable" });
      expect(page.hits.map((hit) => hit.abId)).toEqual([FIXTURE.plumberLyon]);
    });
  });
});
