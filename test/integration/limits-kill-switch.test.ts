import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

const root = path.resolve(import.meta.dirname, "../..");
/** `npm run kill-switch -- <command>` in its own process, on the running server's DATA_DIR. */
function killSwitch(command: "on" | "off" | "status"): string {
  return execFileSync(process.execPath, ["jobs/kill-switch.ts", command], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn", AGENT_ACCESS_SUSPENDED: "" },
    encoding: "utf8",
  });
}

/**
 * How long after now the server first answered `expected`, counted when that request was sent:
 * the server's own delay, not the time a busy machine took to carry the answer back.
 */
async function statusWithin(pathname: string, expected: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const sent = Date.now();
    const response = await server.get(pathname);
    await response.arrayBuffer();
    if (response.status === expected) return sent - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${pathname} still ${response.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("operator kill switch, without restart", () => {
  it("suspends agent access within a second and lifts it again", async () => {
    expect((await server.getJson("/api/registry/search?q=pain")).status).toBe(200);
    expect(killSwitch("status")).toContain("off");

    expect(killSwitch("on")).toContain("ON");
    const tookOn = await statusWithin("/api/registry/search?q=pain", 503, 3000);
    expect(tookOn).toBeLessThan(1600);

    const suspended = await server.getJson("/api/registry/search?q=pain");
    expectErrorEnvelope(suspended.body, "SERVICE_SUSPENDED");
    expect(suspended.headers.get("retry-after")).toBeNull();
    const register = await server.getJson("/api/agents/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(register.status).toBe(503);
    expect((await server.getJson("/api/health")).status).toBe(200);
    // People's pages are suspended too, with a French page rather than the JSON envelope.
    const page = await server.get(`/m/${server.roster.cases.active_contactable?.[0]}`);
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("<h1>Service momentanément suspendu</h1>");
    expect(killSwitch("status")).toContain("ON");

    killSwitch("off");
    const tookOff = await statusWithin("/api/registry/search?q=pain", 200, 3000);
    expect(tookOff).toBeLessThan(1600);
  });
});
