import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent, AgentStore } from "../../src/domain/agents/agent.ts";
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyDisplayPrefix,
  presentedKey,
} from "../../src/domain/agents/api-keys.ts";
import { createAuthenticator } from "../../src/domain/agents/authenticator.ts";
import {
  DEFAULT_HOURLY_LIMITS,
  effectiveLevel,
  hourlyLimitFor,
  initialGrant,
  PERMISSIONS_BY_LEVEL,
} from "../../src/domain/agents/levels.ts";
import { AgentTransitionError, applyAgentCommand, nextState } from "../../src/domain/agents/operator.ts";
import { registerAgent } from "../../src/domain/agents/register-agent.ts";
import { verifyAgentKey } from "../../src/domain/agents/verify-agent.ts";
import { registerAgentBodySchema } from "../../src/schemas/agents.ts";
import { type AgentRepository, createAgentRepository } from "../../src/store/agent-repository.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";

let dir: string;
let db: Db;
let agents: AgentRepository;
const now = () => new Date("2026-11-01T10:00:00.000Z");

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-agents-"));
  db = openDatabase(path.join(dir, "abeille.db"));
  agents = createAgentRepository(db);
});
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const register = (level: 1 | 2 | 3 | 4) =>
  registerAgent(
    { agents, limits: DEFAULT_HOURLY_LIMITS, now },
    { agent_name: `Agent L${level}`, contact_email: "ops@agent.example", requested_level: level },
    { registeredFrom: "registrant-test" },
  );

describe("API keys", () => {
  it("are abk_ and 40 base62 characters, all different", () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const key of keys) expect(key).toMatch(/^abk_[0-9A-Za-z]{40}$/);
  });

  it("use the whole base62 alphabet about evenly", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++)
      for (const char of generateApiKey().slice(4)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2000 * 40) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.2);
  });

  it("hash to SHA-256 hex and display only abk_ and 8 characters", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(4));
    expect(keyDisplayPrefix(key)).toBe(key.slice(0, 12));
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(isWellFormedApiKey("abk_short")).toBe(false);
    expect(isWellFormedApiKey(`xyz_${key.slice(4)}`)).toBe(false);
  });
});

describe("presented keys", () => {
  const key = generateApiKey();
  const read = (headers: Record<string, string>) => presentedKey(new Headers(headers));

  it("reads Authorization: Bearer and X-API-Key", () => {
    expect(read({})).toEqual({ kind: "none" });
    expect(read({ authorization: `Bearer ${key}` })).toEqual({ kind: "key", key });
    expect(read({ authorization: `bearer   ${key}` })).toEqual({ kind: "key", key });
    expect(read({ "x-api-key": key })).toEqual({ kind: "key", key });
    expect(read({ authorization: `Bearer ${key}`, "x-api-key": key })).toEqual({ kind: "key", key });
  });

  it("treats anything unusable as invalid, never as no key", () => {
    expect(read({ authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }).kind).toBe("invalid");
    expect(read({ authorization: "Bearer" }).kind).toBe("invalid");
    expect(read({ "x-api-key": "" }).kind).toBe("invalid");
    expect(read({ "x-api-key": "abk_tooShort" }).kind).toBe("invalid");
    expect(read({ authorization: `Bearer ${key}`, "x-api-key": generateApiKey() }).kind).toBe("invalid");
  });
});

describe("levels", () => {
  it("grow permissions level by level", () => {
    expect(PERMISSIONS_BY_LEVEL[1]).toEqual(["registry:read"]);
    expect(PERMISSIONS_BY_LEVEL[2]).toEqual(["registry:read", "leads:write", "leads:read"]);
    expect(PERMISSIONS_BY_LEVEL[3]).toContain("orders:quote");
    expect(PERMISSIONS_BY_LEVEL[3]).not.toContain("orders:write");
    expect(PERMISSIONS_BY_LEVEL[4]).toContain("orders:write");
  });

  it("approve 1-2 at once and hold 3-4 at level 2 until verified", () => {
    expect(initialGrant(1)).toEqual({ status: "active", certificationLevel: 1 });
    expect(initialGrant(2)).toEqual({ status: "active", certificationLevel: 2 });
    expect(initialGrant(3)).toEqual({ status: "pending_verification", certificationLevel: 2 });
    expect(initialGrant(4)).toEqual({ status: "pending_verification", certificationLevel: 2 });
    expect(effectiveLevel({ status: "pending_verification", certificationLevel: 4 })).toBe(2);
  });

  it("give the hourly budgets of DESIGN.md", () => {
    expect([null, 1, 2, 3, 4].map((level) => hourlyLimitFor(DEFAULT_HOURLY_LIMITS, level as 1))).toEqual([
      600, 2000, 5000, 20000, 50000,
    ]);
  });
});

describe("registration", () => {
  it("stores the key's hash and prefix, never the key", async () => {
    const registration = await register(2);
    expect(registration).toMatchObject({
      certification_level: 2,
      permissions: ["registry:read", "leads:write", "leads:read"],
      rate_limit_hourly: 5000,
      status: "active",
    });
    const raw = db.$client.prepare("SELECT * FROM agents WHERE agent_id = ?").get(registration.agent_id);
    expect(JSON.stringify(raw)).not.toContain(registration.api_key);
    expect(JSON.stringify(raw)).not.toContain(registration.api_key.slice(12));
    expect((await agents.findByKeyHash(hashApiKey(registration.api_key)))?.agentId).toBe(registration.agent_id);
  });

  it("answers a level 4 request as pending with level-2 rights", async () => {
    expect(await register(4)).toMatchObject({
      certification_level: 2,
      requested_level: 4,
      status: "pending_verification",
      permissions: ["registry:read", "leads:write", "leads:read"],
      rate_limit_hourly: 5000,
    });
  });

  it("validates the body strictly", () => {
    const valid = { agent_name: "A", contact_email: "a@b.fr", requested_level: 2 };
    expect(registerAgentBodySchema.safeParse(valid).success).toBe(true);
    for (const invalid of [
      { ...valid, agent_name: "" },
      { ...valid, agent_name: "x".repeat(101) },
      { ...valid, contact_email: "nope" },
      { ...valid, requested_level: 5 },
      { ...valid, requested_level: 2.5 },
      { ...valid, requested_level: "2" },
      { ...valid, agent_url: "ftp://x.example" },
      { ...valid, capabilities: Array.from({ length: 21 }, () => "c") },
      { ...valid, capabilities: ["x".repeat(51)] },
      { ...valid, extra: true },
    ]) {
      expect(registerAgentBodySchema.safeParse(invalid).success).toBe(false);
    }
  });
});

describe("authenticator cache", () => {
  function countingStore(agent: Agent | null) {
    const calls = { count: 0 };
    const store: Pick<AgentStore, "findByKeyHash"> = {
      findByKeyHash: async () => {
        calls.count++;
        return agent;
      },
    };
    return { store, calls };
  }
  const agent = { agentId: "agt_x", status: "active", certificationLevel: 2 } as Agent;

  it("looks a key up once per TTL and again after invalidation", async () => {
    let time = 0;
    const { store, calls } = countingStore(agent);
    const authenticator = createAuthenticator(store, { ttlMs: 5000, clock: () => time });
    const key = generateApiKey();
    for (let i = 0; i < 10; i++) await authenticator.authenticate(key);
    expect(calls.count).toBe(1);
    time += 5000;
    await authenticator.authenticate(key);
    expect(calls.count).toBe(2);
    authenticator.invalidate("agt_x");
    await authenticator.authenticate(key);
    expect(calls.count).toBe(3);
  });

  it("does not cache unknown keys", async () => {
    const { store, calls } = countingStore(null);
    const authenticator = createAuthenticator(store);
    for (let i = 0; i < 3; i++) expect(await authenticator.authenticate(generateApiKey())).toBeNull();
    expect(calls.count).toBe(3);
  });
});

describe("verification and operator commands", () => {
  const deps = () => ({ authenticator: createAuthenticator(agents, { ttlMs: 0 }), limits: DEFAULT_HOURLY_LIMITS });

  it("tells valid, pending, suspended, revoked, unknown and malformed keys apart", async () => {
    const active = await register(1);
    expect(await verifyAgentKey(deps(), active.api_key)).toMatchObject({
      valid: true,
      agent_name: "Agent L1",
      certification_level: 1,
      permissions: ["registry:read"],
      rate_limit_hourly: 2000,
      status: "active",
    });
    const pending = await register(3);
    expect(await verifyAgentKey(deps(), pending.api_key)).toMatchObject({
      valid: true,
      status: "pending_verification",
    });

    await applyAgentCommand({ agents, now }, pending.agent_id, "approve");
    expect(await verifyAgentKey(deps(), pending.api_key)).toMatchObject({
      valid: true,
      certification_level: 3,
      status: "active",
      rate_limit_hourly: 20000,
    });
    await applyAgentCommand({ agents, now }, pending.agent_id, "suspend");
    expect(await verifyAgentKey(deps(), pending.api_key)).toMatchObject({
      valid: false,
      status: "suspended",
      permissions: [],
      rate_limit_hourly: null,
    });
    await applyAgentCommand({ agents, now }, pending.agent_id, "revoke");
    const empty = {
      valid: false,
      agent_id: null,
      agent_name: null,
      certification_level: null,
      requested_level: null,
      permissions: [],
      rate_limit_hourly: null,
      status: null,
    };
    expect(await verifyAgentKey(deps(), pending.api_key)).toEqual(empty);
    expect(await verifyAgentKey(deps(), generateApiKey())).toEqual(empty);
    expect(await verifyAgentKey(deps(), "not-a-key")).toEqual(empty);
  });

  it("refuses transitions that make no sense", async () => {
    const agent = { agentId: "a", status: "revoked", requestedLevel: 4, certificationLevel: 2 } as Agent;
    expect(() => nextState(agent, "approve")).toThrow(AgentTransitionError);
    expect(() => nextState({ ...agent, status: "active" }, "approve")).toThrow(AgentTransitionError);
    expect(nextState({ ...agent, status: "pending_verification" }, "approve")).toEqual({
      status: "active",
      certificationLevel: 4,
    });
    await expect(applyAgentCommand({ agents, now }, "agt_missing", "revoke")).rejects.toThrow(/no agent/);
  });

  it("decides a command again when another operator moved the agent between its read and its write", async () => {
    const registered = await register(1);
    expect(registered.status).toBe("active");
    // A second operator revokes the agent right after this one read it as active.
    const racing = {
      ...agents,
      findById: async (agentId: string) => {
        const read = await agents.findById(agentId);
        if (read?.status === "active") {
          await agents.update(agentId, { from: "active", status: "revoked", certificationLevel: 2, now: now() });
        }
        return read;
      },
    };
    await expect(applyAgentCommand({ agents: racing, now }, registered.agent_id, "suspend")).rejects.toThrow(
      `cannot suspend agent ${registered.agent_id}: it is revoked`,
    );
    expect(await agents.findById(registered.agent_id)).toMatchObject({ status: "revoked" });
  });
});
