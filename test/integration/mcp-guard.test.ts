/**
 * The kill switch and the rate limits apply to the tool endpoint: 503 and 429 as JSON-RPC error
 * objects (HTTP status kept, the request id echoed, the service's error code in error.data), while
 * the discovery documents keep answering. The SDK client gets an error it can report rather than
 * a hang.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KILL_SWITCH_SETTING } from "../../src/domain/access/kill-switch.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createSettingsRepository } from "../../src/store/settings-repository.ts";
import { fetchAndCheck, OpenApiValidator } from "../helpers/openapi.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

const HOURLY = 8;
let server: TestServer;
let validator: OpenApiValidator;

beforeAll(async () => {
  server = await startTestServer({ count: 40, env: { RATE_LIMIT_ANON_HOURLY: String(HOURLY) } });
  validator = new OpenApiValidator((await server.getJson("/openapi.json")).body);
});
afterAll(async () => {
  await server?.close();
});

async function setKillSwitch(value: "on" | "off"): Promise<void> {
  const db = openDatabase(`${server.dataDir}/abeille.db`);
  try {
    await createSettingsRepository(db).set(KILL_SWITCH_SETTING, value, new Date());
  } finally {
    db.$client.close();
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ping = (id: number) => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
});

describe("kill switch", () => {
  it("answers 503 SERVICE_SUSPENDED without Retry-After; discovery documents keep answering", async () => {
    await setKillSwitch("on");
    await wait(1200);
    try {
      const answer = await fetchAndCheck(validator, server.url, "POST", "/api/mcp", ping(1));
      expect(answer.status).toBe(503);
      expect(answer.check.errors).toEqual([]);
      expect(answer.headers.get("retry-after")).toBeNull();
      expect(answer.body).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32053, data: { code: "SERVICE_SUSPENDED", status: 503 } },
      });
      expect((answer.body as JsonObject).error.message).toMatch(/suspended/i);

      for (const path of ["/.well-known/mcp.json", "/.well-known/agent-card.json", "/openapi.json", "/llms.txt"]) {
        expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
      }

      const client = new Client({ name: "abeille-test", version: "1.0.0" });
      const started = Date.now();
      await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)))).rejects.toThrow(
        /503|suspended/i,
      );
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await setKillSwitch("off");
      await wait(1200);
    }
  });
});

describe("rate limits", () => {
  it("counts each POST and answers 429 with Retry-After and a JSON-RPC error carrying RATE_LIMITED", async () => {
    const first = await fetchAndCheck(validator, server.url, "POST", "/api/mcp", ping(1));
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit")).toBeTruthy();
    let refused: Awaited<ReturnType<typeof fetchAndCheck>> | undefined;
    let refusedId = 0;
    for (let attempt = 0; attempt < HOURLY + 2 && !refused; attempt += 1) {
      const answer = await fetchAndCheck(validator, server.url, "POST", "/api/mcp", ping(attempt + 2));
      expect(answer.check.errors).toEqual([]);
      if (answer.status === 429) {
        refused = answer;
        refusedId = attempt + 2;
      }
    }
    if (!refused) throw new Error("no 429 after the quota");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toMatchObject({
      jsonrpc: "2.0",
      id: refusedId,
      error: { code: -32029, data: { code: "RATE_LIMITED", status: 429 } },
    });
    // Open documents are not counted.
    expect((await fetch(`${server.url}/.well-known/mcp.json`)).status).toBe(200);
  });
});
