/**
 * The built server with MEILISEARCH_URL set and SEARCH_FALLBACK=none, over HTTP: while
 * Meilisearch does not answer, a search is refused with 503 SEARCH_UNAVAILABLE and a Retry-After,
 * in the envelope; never a 500, never a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { freePort } from "../helpers/spawn-start.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  // A loopback port nothing listens on: connections are refused at once.
  const port = await freePort();
  server = await startTestServer({
    count: 20,
    env: { MEILISEARCH_URL: `http://127.0.0.1:${port}`, SEARCH_FALLBACK: "none", MEILISEARCH_TIMEOUT_MS: "500" },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("search with Meilisearch down and no fallback", () => {
  it("refuses with 503 SEARCH_UNAVAILABLE and a Retry-After", async () => {
    const { status, headers, body } = await server.getJson("/api/registry/search?q=boulangerie");
    expect(status).toBe(503);
    expectErrorEnvelope(body, "SEARCH_UNAVAILABLE");
    expect(Number(headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(headers.get("retry-after"))).toBeLessThanOrEqual(5);
  });

  it("reports the engine unavailable in /api/health, which still answers 200", async () => {
    const { status, body } = await server.getJson("/api/health");
    expect(status).toBe(200);
    expect(body.data.search).toEqual({ engine: "meilisearch", state: "unavailable", lag: null, fallback: "none" });
  });
});
