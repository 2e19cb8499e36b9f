import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRegistrationSchema, agentVerificationSchema } from "../../src/schemas/agents.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

const root = path.resolve(import.meta.dirname, "../..");
/** `npm run agents -- ...` against the running server's DATA_DIR, in its own process. */
function agentsCommand(...args: string[]): string {
  return execFileSync(process.execPath, ["jobs/agents.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function register(body: JsonObject) {
  return server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const agentBody = (level: number, name = `Agent ${level}`) => ({
  agent_name: name,
  agent_url: "https://agent.example/about",
  contact_email: "ops@agent.example",
  requested_level: level,
  capabilities: ["search", "leads"],
});

/** How long after now `check` first held, counted when that check began (not when a busy machine answered it). */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const sent = Date.now();
    if (await check()) return sent - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not within ${timeoutMs} ms`);
}

describe("POST /api/agents/register", () => {
  it("registers a level 1-2 agent as active and shows its key once", async () => {
    const { status, body, headers } = await register(agentBody(2));
    expect(status).toBe(201);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body).toMatchObject({
      success: true,
      certification_level: 2,
      requested_level: 2,
      permissions: ["registry:read", "leads:write", "leads:read"],
      rate_limit_hourly: 5000,
      status: "active",
      data: null,
    });
    expect(body.agent_id).toMatch(/^agt_[0-9a-z]{20}$/);
    expect(body.api_key).toMatch(/^abk_[0-9A-Za-z]{40}$/);
    expectMeta(body);
    expect(agentRegistrationSchema.safeParse(body).error).toBeUndefined();
    expect(body._actions.map((action: JsonObject) => action.rel)).toContain("verify_key");

    const verified = await server.getJson(`/api/agents/verify?token=${body.api_key}`);
    expect(agentVerificationSchema.safeParse(verified.body).error).toBeUndefined();
    expect(verified.body._links.self).toBe(`${TEST_BASE_URL}/api/agents/verify?token=REDACTED`);
    expect(JSON.stringify(verified.body)).not.toContain(body.api_key);
    const listed = agentsCommand("list", "--json");
    expect(listed).toContain(body.agent_id);
    expect(listed).not.toContain(body.api_key);
    expect(listed).toContain(`${body.api_key.slice(0, 12)}…`);
  });

  it("registers a level 3-4 agent as pending, held at level 2", async () => {
    const { status, body } = await register(agentBody(4));
    expect(status).toBe(201);
    expect(body).toMatchObject({
      certification_level: 2,
      requested_level: 4,
      status: "pending_verification",
      permissions: ["registry:read", "leads:write", "leads:read"],
      rate_limit_hourly: 5000,
    });
  });

  it("keeps only a hash of the key at rest", async () => {
    const { body } = await register(agentBody(1, "Hash check"));
    const files = readdirSync(server.dataDir).filter((file) => file.startsWith("abeille.db"));
    expect(files).toContain("abeille.db");
    // Read the bytes from another process: opening and closing the database file in this process
    // (which hosts the server) would drop SQLite's POSIX locks on it.
    const grep = (needle: string) =>
      spawnSync("grep", ["-c", "-a", "-F", needle, ...files.map((file) => path.join(server.dataDir, file))]);
    expect(grep(body.api_key.slice(12)).status).toBe(1);
    expect(grep(body.agent_id).status).toBe(0);
  });

  it("refuses invalid bodies with VALIDATION_ERROR", async () => {
    for (const invalid of [
      {},
      { ...agentBody(2), requested_level: 0 },
      { ...agentBody(2), requested_level: 5 },
      { ...agentBody(2), contact_email: "not-an-email" },
      { ...agentBody(2), agent_name: "" },
      { ...agentBody(2), agent_name: "x".repeat(101) },
      { ...agentBody(2), agent_url: "not a url" },
      { ...agentBody(2), capabilities: Array.from({ length: 21 }, (_, i) => `c${i}`) },
      { ...agentBody(2), api_key: "abk_mine" },
    ]) {
      const { status, body } = await register(invalid);
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
    }
    const malformed = await server.getJson("/api/agents/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(malformed.status).toBe(400);
    const wrongMethod = await server.getJson("/api/agents/register");
    expect(wrongMethod.status).toBe(405);
  });
});

describe("GET /api/agents/verify", () => {
  it("answers valid with the agent's grant", async () => {
    const { body: agent } = await register(agentBody(1, "Verifier"));
    const { status, body } = await server.getJson(`/api/agents/verify?token=${agent.api_key}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      valid: true,
      agent_name: "Verifier",
      certification_level: 1,
      permissions: ["registry:read"],
      rate_limit_hourly: 2000,
      status: "active",
    });
  });

  it("answers valid: false with nulls for unknown and malformed keys, 400 without a token", async () => {
    for (const token of [`abk_${"Z".repeat(40)}`, "hello"]) {
      const { status, body } = await server.getJson(`/api/agents/verify?token=${token}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        valid: false,
        agent_name: null,
        certification_level: null,
        permissions: [],
        rate_limit_hourly: null,
        status: null,
      });
    }
    const missing = await server.getJson("/api/agents/verify");
    expect(missing.status).toBe(400);
    expectErrorEnvelope(missing.body, "VALIDATION_ERROR");
  });
});

describe("GET /api/agents/verify with the key in a header", () => {
  const verify = (headers: Record<string, string>, query = "") =>
    server.getJson(`/api/agents/verify${query}`, { headers });

  it("reads the key from Authorization: Bearer or X-API-Key, and the answer never repeats it", async () => {
    const { body: agent } = await register(agentBody(2, "Header verifier"));
    const sent: Record<string, string>[] = [
      { authorization: `Bearer ${agent.api_key}` },
      { "x-api-key": agent.api_key },
    ];
    for (const headers of sent) {
      const { status, body } = await verify(headers);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        valid: true,
        agent_id: agent.agent_id,
        agent_name: "Header verifier",
        certification_level: 2,
        permissions: ["registry:read", "leads:write", "leads:read"],
        status: "active",
      });
      expect(body._links.self).toBe(`${TEST_BASE_URL}/api/agents/verify`);
      expect(JSON.stringify(body)).not.toContain(agent.api_key);
    }
    // The same key in the header and the query is the same key.
    expect((await verify({ authorization: `Bearer ${agent.api_key}` }, `?token=${agent.api_key}`)).body.valid).toBe(
      true,
    );
  });

  it("answers 200 valid: false for unknown, malformed and suspended keys in the header, never 401 or 403", async () => {
    for (const key of [`abk_${"Z".repeat(40)}`, "hello"]) {
      const { status, body } = await verify({ authorization: `Bearer ${key}` });
      expect({ key, status }).toEqual({ key, status: 200 });
      expect(body).toMatchObject({ valid: false, agent_id: null, permissions: [], status: null });
    }
    const { body: toSuspend } = await register(agentBody(2, "Suspended verifier"));
    agentsCommand("suspend", toSuspend.agent_id);
    const suspended = await verify({ authorization: `Bearer ${toSuspend.api_key}` });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ valid: false, status: "suspended", agent_name: "Suspended verifier" });
  });

  it("is 400 saying where the key goes when none is sent, the scheme is not Bearer, or two keys differ", async () => {
    const missing = await verify({});
    expect(missing.status).toBe(400);
    expectErrorEnvelope(missing.body, "VALIDATION_ERROR");
    expect(missing.body.data.issues).toEqual([
      {
        path: "authorization",
        message: "is missing: send the API key to check in the Authorization header (Bearer <api key>) or in X-API-Key",
      },
    ]);
    const basic = await verify({ authorization: "Basic dXNlcjpwYXNz" });
    expect(basic.status).toBe(400);
    expect(basic.body.data.issues).toEqual([
      { path: "authorization", message: "the Authorization header must be `Bearer <api key>`" },
    ]);
    const { body: agent } = await register(agentBody(1, "Two keys"));
    const twoKeys = await verify({ authorization: `Bearer ${agent.api_key}` }, `?token=abk_${"Y".repeat(40)}`);
    expect(twoKeys.status).toBe(400);
    expect(twoKeys.body.data.issues[0].path).toBe("token");
  });
});

describe("API keys on other routes", () => {
  it("accepts Authorization: Bearer and X-API-Key, counting on the agent's own budget", async () => {
    const { body: agent } = await register(agentBody(1, "Searcher"));
    const variants: Record<string, string>[] = [
      { authorization: `Bearer ${agent.api_key}` },
      { "x-api-key": agent.api_key },
    ];
    for (const headers of variants) {
      const response = await server.getJson("/api/registry/search?q=boulangerie", { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"hourly";q=2000;w=3600, "registrant";q=100000000;w=3600');
    }
    const anonymous = await server.getJson("/api/registry/search?q=boulangerie");
    expect(anonymous.headers.get("ratelimit-policy")).toBe('"hourly";q=600;w=3600');
  });

  it("answers 401 for an unknown, malformed or differently-schemed key, never a silent downgrade", async () => {
    const variants: Record<string, string>[] = [
      { authorization: `Bearer abk_${"Q".repeat(40)}` },
      { "x-api-key": "abk_short" },
      { authorization: "Basic dXNlcjpwYXNz" },
      { "x-api-key": "" },
    ];
    for (const headers of variants) {
      const { status, body, headers: answer } = await server.getJson("/api/registry/search?q=boulangerie", { headers });
      expect(status).toBe(401);
      expectErrorEnvelope(body, "UNAUTHORIZED");
      expect(answer.get("www-authenticate")).toContain("Bearer");
      expect(body._actions[0].href).toBe(`${TEST_BASE_URL}/api/agents/register`);
    }
  });

  it("refuses a Reader key on lead creation (403) while anonymous leads stay allowed past the guard", async () => {
    const { body: reader } = await register(agentBody(1, "Reader"));
    const lead = {
      ab_id: server.roster.cases.active_contactable?.[0],
      contact_name: "A",
      contact_email: "a@b.fr",
      lead_type: "contact",
    };
    const refused = await server.getJson("/api/contact/brick", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": reader.api_key },
      body: JSON.stringify(lead),
    });
    expect(refused.status).toBe(403);
    expectErrorEnvelope(refused.body, "FORBIDDEN");
    expect(refused.body.error.message).toContain("leads:write");
  });

  it("applies approve, suspend and revoke from the operator command", async () => {
    const { body: pending } = await register(agentBody(3, "Commercial"));
    agentsCommand("approve", pending.agent_id);
    const approved = await server.getJson(`/api/agents/verify?token=${pending.api_key}`);
    expect(approved.body).toMatchObject({
      valid: true,
      certification_level: 3,
      status: "active",
      rate_limit_hourly: 20000,
    });

    // Suspended: the key is known but refused (403), and verify says why.
    const { body: toSuspend, status: suspendStatus } = await register(agentBody(2, "To suspend"));
    expect(suspendStatus).toBe(201);
    agentsCommand("suspend", toSuspend.agent_id);
    const suspended = await server.getJson("/api/registry/search?q=pain", {
      headers: { "x-api-key": toSuspend.api_key },
    });
    expect(suspended.status).toBe(403);
    expectErrorEnvelope(suspended.body, "FORBIDDEN");
    const verifySuspended = await server.getJson(`/api/agents/verify?token=${toSuspend.api_key}`);
    expect(verifySuspended.body).toMatchObject({ valid: false, status: "suspended", agent_name: "To suspend" });

    // Revoked while in use: the server's key cache lets it go within 5 s.
    const { body: toRevoke } = await register(agentBody(2, "To revoke"));
    const inUse = await server.getJson("/api/registry/search?q=pain", { headers: { "x-api-key": toRevoke.api_key } });
    expect(inUse.status).toBe(200);
    agentsCommand("revoke", toRevoke.agent_id);
    const waited = await eventually(async () => {
      const response = await server.get("/api/registry/search?q=pain", { headers: { "x-api-key": toRevoke.api_key } });
      await response.arrayBuffer();
      return response.status === 401;
    }, 7000);
    expect(waited).toBeLessThan(6000);
    expect(() => agentsCommand("approve", toRevoke.agent_id)).toThrow();
  });
});
