import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 30, env: { AGENT_ACCESS_SUSPENDED: "true" } });
});
afterAll(async () => {
  await server?.close();
});

describe("AGENT_ACCESS_SUSPENDED=true", () => {
  const json = { "content-type": "application/json" };

  it("answers 503 SERVICE_SUSPENDED without Retry-After on every agent-facing route", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const calls: [string, RequestInit?][] = [
      ["/api/registry/search?q=pain"],
      [`/api/registry/resolve/${abId}`],
      [`/api/merchants/${abId}/decision-card`],
      [`/api/agents/verify?token=abk_${"a".repeat(40)}`],
      ["/api/agents/register", { method: "POST", headers: json, body: "{}" }],
      ["/api/contact/brick", { method: "POST", headers: json, body: "{}" }],
      ["/api/orders/create", { method: "POST", headers: json, body: "{}" }],
      ["/api/attribution/session", { method: "POST", headers: json, body: "{}" }],
      ["/api/attribution/convert", { method: "POST", headers: json, body: "{}" }],
      // A bad key changes nothing: the switch answers first.
      ["/api/registry/search?q=pain", { headers: { authorization: "Bearer nonsense" } }],
    ];
    for (const [pathname, init] of calls) {
      const { status, body, headers } = await server.getJson(pathname, init);
      expect(status, pathname).toBe(503);
      expectErrorEnvelope(body, "SERVICE_SUSPENDED");
      expect(headers.get("retry-after")).toBeNull();
      expect(headers.get("ratelimit")).toBeNull();
    }
  });

  it("keeps the health check and discovery documents answering", async () => {
    expect((await server.getJson("/api/health")).status).toBe(200);
    for (const pathname of ["/openapi.json", "/.well-known/mcp.json", "/.well-known/ab-public-keys.json"]) {
      const response = await server.get(pathname);
      await response.arrayBuffer();
      expect(response.status, pathname).not.toBe(503);
    }
  });
});
