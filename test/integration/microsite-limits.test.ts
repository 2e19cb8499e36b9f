/**
 * People's pages (the merchant microsites, the French 404) count on the client address's hourly
 * budget like the API, and a refusal is a French page with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 30, env: { RATE_LIMIT_ANON_HOURLY: "3" } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("the microsite's rate limit", () => {
  it("serves the budget's pages, then refuses in French with the time to wait", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const statuses: number[] = [];
    for (const pathname of [`/m/${abId}`, `/m/${abId}`, "/page-inconnue"]) {
      const response = await server.get(pathname);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 404]);
    const refused = await server.get(`/m/${abId}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("retry-after")).toBe("1200");
    expect(refused.headers.get("ratelimit-policy")).toBe('"hourly";q=3;w=3600');
    expect(await refused.text()).toContain(
      "Cette adresse a consulté beaucoup de pages en peu de temps. Réessayez dans 1200 secondes.",
    );
    // The same address's API calls share the budget: one hourly quota per address.
    expect((await server.getJson("/api/registry/search?q=pain")).status).toBe(429);
  });
});
