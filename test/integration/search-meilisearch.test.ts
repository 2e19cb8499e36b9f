/**
 * The built server with MEILISEARCH_URL set, over HTTP, against a real Meilisearch: it reports
 * the engine in /api/health, is fed by `npm run search -- sync` (the follower the server's
 * background owner runs, which also writes the merchants' vectors of SEARCH_EMBEDDER=hashed),
 * answers a semantic search, follows an operator's change, and degrades to the embedded index,
 * flagged, while Meilisearch is stopped.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let meili: TestMeilisearch;
let server: TestServer;

beforeAll(async () => {
  meili = await startTestMeilisearch();
  server = await startTestServer({
    count: 120,
    env: {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_INDEX: "http_test",
      MEILISEARCH_TIMEOUT_MS: "2000",
      SEARCH_EMBEDDER: "hashed",
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await meili?.close();
});

async function job(script: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [script, ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
  });
  return stdout;
}

/** The health check reads the engine at most once a second. */
async function health(): Promise<JsonObject> {
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const { body } = await server.getJson("/api/health");
  return body.data.search;
}

const search = (query: string) => server.getJson(`/api/registry/search?${query}`);
const ids = (body: JsonObject) => body.results.map((result: JsonObject) => result.merchant.ab_id as string);

describe("search on Meilisearch", () => {
  it("answers from the embedded index, flagged, before Meilisearch was ever built", async () => {
    // Nothing builds it yet (the test server runs no follower): not built, not "building".
    expect(await health()).toEqual({ engine: "meilisearch", state: "not_built", lag: null, fallback: "embedded" });
    // A build under way, by any process, writes its index beside the one searches read.
    const created = await fetch(`${meili.url}/indexes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uid: "http_test_build", primaryKey: "ab_id" }),
    });
    expect(created.status).toBe(202);
    const task = (await created.json()) as { taskUid: number };
    for (let status = ""; status !== "succeeded"; ) {
      status = ((await (await fetch(`${meili.url}/tasks/${task.taskUid}`)).json()) as { status: string }).status;
      if (status === "failed") throw new Error("Meilisearch did not create the build index");
    }
    expect(await health()).toEqual({ engine: "meilisearch", state: "building", lag: null, fallback: "embedded" });
    await fetch(`${meili.url}/indexes/http_test_build`, { method: "DELETE" });
    const { status, body } = await search("q=boulangerie");
    expect(status).toBe(200);
    expect(body.count).toBeGreaterThan(0);
    expect(body.retrieval_degraded).toBe("search_engine_unavailable");
  });

  it("serves searches from Meilisearch once the follower built it, with the embedded index's answers", async () => {
    expect(await job("jobs/search.ts", "sync")).toMatch(/in step with the store at revision \d+/);
    // Meilisearch is retried after its failure delay (5 s, counted from the search above that it
    // failed); until then health says unavailable, however fast the sync was. Then it answers,
    // not flagged.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await health()).toEqual({
      engine: "meilisearch",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
      fallback: "embedded",
    });
    const { body } = await search("q=boulangerie&limit=3");
    expect(body.retrieval_degraded).toBeUndefined();
    expect(body.count).toBe(3);
    for (const result of body.results) expect(result.matched).toContain("trade");
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const byId = await search(`q=${abId}`);
    expect(ids(byId.body)).toEqual([abId]);
  });

  it("answers semantic=true with a hybrid search: the florists for 'fleuristerie', which the words alone do not find", async () => {
    const words = await search("q=fleuristerie");
    expect(words.body.count).toBe(0);
    expect(words.body.retrieval_degraded).toBeUndefined();
    const { status, body } = await search("q=fleuristerie&semantic=true");
    expect(status).toBe(200);
    expect(body.retrieval_degraded).toBeUndefined();
    expect(body.count).toBeGreaterThan(0);
    for (const result of body.results) {
      expect(result.merchant.trade).toBe("Fleuriste");
      expect(result.matched).toEqual(["meaning"]);
    }
  });

  it("follows an operator's change once the follower applied it, and reports the lag until then", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const { body: resolved } = await server.getJson(`/api/registry/resolve/${abId}`);
    const byName = `q=${encodeURIComponent(resolved.merchant.name)}&limit=50`;
    expect(ids((await search(byName)).body)).toContain(abId);

    await job("jobs/merchants.ts", "status", abId, "SUSPENDED", "--reason", "test", "--actor", "operator:test");
    const behind = await health();
    expect(behind.state).toBe("catching_up");
    expect(behind.lag.merchants).toBe(1);

    await job("jobs/search.ts", "sync");
    expect((await health()).lag).toEqual({ merchants: 0, revisions: 0 });
    const after = await search(byName);
    expect(after.body.retrieval_degraded).toBeUndefined();
    expect(ids(after.body)).not.toContain(abId);
  });

  it("answers from the embedded index, flagged, while Meilisearch is stopped", async () => {
    await meili.stop();
    try {
      const { status, body } = await search("q=coiffure");
      expect(status).toBe(200);
      expect(body.count).toBeGreaterThan(0);
      expect(body.retrieval_degraded).toBe("search_engine_unavailable");
      expect((await health()).state).toBe("unavailable");
    } finally {
      await meili.restart();
    }
  });
});
