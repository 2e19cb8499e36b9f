/**
 * One address cannot multiply its budget by registering agents: registrations are bounded per
 * address and per day, and the keys the service approved by itself for one address share one
 * hourly budget (operator-approved keys keep their own).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    count: 40,
    env: {
      RATE_LIMIT_ANON_HOURLY: "1000",
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

const register = (index: number) =>
  server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_name: `Copy ${index}`, contact_email: `copy${index}@example.fr`, requested_level: 2 }),
  });

describe("budgets per registering address", () => {
  it("allow five registrations a day, then share one budget among the keys they gave", async () => {
    const keys: string[] = [];
    for (let index = 0; index < 5; index++) {
      const registered = await register(index);
      expect(registered.status).toBe(201);
      keys.push(registered.body.api_key as string);
    }
    const sixth = await register(5);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.message).toBe("Quota exceeded: 5 requests per day (registration); retry in 17280 s");

    // Each key alone could make 3 searches an hour (15 for five keys); together they make 7.
    const statuses: number[] = [];
    for (let index = 0; index < 8; index++) {
      const response = await server.getJson("/api/registry/search?q=pain", {
        headers: { authorization: `Bearer ${keys[index % keys.length]}` },
      });
      statuses.push(response.status);
      if (index === 0) {
        expect(response.headers.get("ratelimit-policy")).toBe('"hourly";q=3;w=3600, "registrant";q=7;w=3600');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
  });
});
