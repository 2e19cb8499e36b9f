import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { KILL_SWITCH_SETTING } from "../../src/domain/access/kill-switch.ts";
import { applyAgentCommand } from "../../src/domain/agents/operator.ts";
import { registerAgent } from "../../src/domain/agents/register-agent.ts";
import { isServiceError, type ServiceError } from "../../src/errors/service-error.ts";
import { guardRequest, type Operation } from "../../src/http/guard.ts";

let dir: string;
const apps: App[] = [];

function makeApp(env: Record<string, string> = {}): App {
  const app = createApp(loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", ...env }));
  apps.push(app);
  return app;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-guard-"));
});
afterAll(() => {
  for (const app of apps) app.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (headers: Record<string, string> = {}) => new Request("http://abeille.test/api/x", { headers });

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

function register(app: App, level: 1 | 2 | 3 | 4) {
  return registerAgent(
    { agents: app.agents, limits: app.config.rateLimitHourly, now: app.now },
    { agent_name: "Guard test", contact_email: "g@example.fr", requested_level: level },
    { registeredFrom: `guard-test-${level}-${Math.random()}` },
  );
}

describe("guard", () => {
  it("lets open operations through uncounted, even when suspended", async () => {
    const app = makeApp({ AGENT_ACCESS_SUSPENDED: "true", RATE_LIMIT_ANON_HOURLY: "1" });
    for (let i = 0; i < 5; i++) {
      const result = await guardRequest(app, request({ authorization: "Bearer nonsense" }), "open", "1.1.1.1");
      expect(result.headers).toEqual({});
    }
  });

  it("answers 503 on every other operation while suspended, without Retry-After", async () => {
    const app = makeApp({ AGENT_ACCESS_SUSPENDED: "true" });
    for (const operation of [
      "search",
      "resolve",
      "read",
      "lead",
      "order",
      "agent_registration",
      "attribution",
      "platform_contact",
      "tool",
    ]) {
      const error = await refusal(guardRequest(app, request(), operation as Operation, "1.1.1.1"));
      expect(error.code).toBe("SERVICE_SUSPENDED");
      expect(error.details.retryAfterSeconds).toBeUndefined();
    }
  });

  it("follows the operator setting within a second", async () => {
    const app = makeApp();
    await app.settings.set(KILL_SWITCH_SETTING, "on", new Date());
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect((await refusal(guardRequest(app, request(), "search", "1.1.1.2"))).code).toBe("SERVICE_SUSPENDED");
    await app.settings.set(KILL_SWITCH_SETTING, "off", new Date());
    await new Promise((resolve) => setTimeout(resolve, 1050));
    await expect(guardRequest(app, request(), "search", "1.1.1.2")).resolves.toBeDefined();
  });

  it("counts anonymous callers per address and refuses with Retry-After and RateLimit fields", async () => {
    const app = makeApp({ RATE_LIMIT_ANON_HOURLY: "2" });
    const first = await guardRequest(app, request(), "search", "10.0.0.1");
    expect(first.headers).toEqual({ "RateLimit-Policy": '"hourly";q=2;w=3600', RateLimit: '"hourly";r=1;t=1800' });
    await guardRequest(app, request(), "resolve", "10.0.0.1");
    const error = await refusal(guardRequest(app, request(), "lead", "10.0.0.1"));
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.details.retryAfterSeconds).toBe(1800);
    expect(error.details.headers?.RateLimit).toBe('"hourly";r=0;t=3600');
    await expect(guardRequest(app, request(), "search", "10.0.0.2")).resolves.toBeDefined();
  });

  it("ignores X-Forwarded-For without trusted proxies and reads it with one", async () => {
    const untrusted = makeApp({ RATE_LIMIT_ANON_HOURLY: "1" });
    await guardRequest(untrusted, request({ "x-forwarded-for": "7.7.7.1" }), "search", "10.1.0.1");
    const spoofed = await refusal(
      guardRequest(untrusted, request({ "x-forwarded-for": "7.7.7.2" }), "search", "10.1.0.1"),
    );
    expect(spoofed.code).toBe("RATE_LIMITED");

    const behindProxy = makeApp({ RATE_LIMIT_ANON_HOURLY: "1", TRUST_PROXY: "1" });
    const viaProxy = (xff: string) =>
      guardRequest(behindProxy, request({ "x-forwarded-for": xff }), "search", "10.9.9.9");
    const caller = await viaProxy("6.6.6.6, 203.0.113.1");
    expect(caller.caller.clientAddress).toBe("203.0.113.1");
    await viaProxy("203.0.113.2");
    expect((await refusal(viaProxy("1.2.3.4, 203.0.113.1"))).code).toBe("RATE_LIMITED");
  });

  it("counts IPv6 callers per /64", async () => {
    const app = makeApp({ RATE_LIMIT_ANON_HOURLY: "1" });
    await guardRequest(app, request(), "search", "2001:db8:aa:bb::1");
    expect((await refusal(guardRequest(app, request(), "search", "2001:db8:aa:bb::2"))).code).toBe("RATE_LIMITED");
  });

  it("gives agents their own budget by level and their permissions", async () => {
    const app = makeApp({ RATE_LIMIT_ANON_HOURLY: "1", RATE_LIMIT_L1_HOURLY: "3", RATE_LIMIT_L2_HOURLY: "7" });
    const reader = await register(app, 1);
    const result = await guardRequest(app, request({ "x-api-key": reader.api_key }), "search", "10.2.0.1");
    expect(result.caller).toMatchObject({ agentId: reader.agent_id, level: 1, permissions: ["registry:read"] });
    expect(result.headers["RateLimit-Policy"]).toBe('"hourly";q=3;w=3600, "registrant";q=7;w=3600');
    const pending = await register(app, 4);
    const held = await guardRequest(app, request({ authorization: `Bearer ${pending.api_key}` }), "lead", "10.2.0.1");
    expect(held.caller.level).toBe(2);
    expect(held.headers["RateLimit-Policy"]).toBe('"hourly";q=7;w=3600, "registrant";q=7;w=3600');
  });

  it("refuses a Reader key on lead creation, and orders:write only while the rail is open", async () => {
    const closed = makeApp();
    const reader = await register(closed, 1);
    const headers = { "x-api-key": reader.api_key };
    expect((await refusal(guardRequest(closed, request(headers), "lead", "10.3.0.1"))).code).toBe("FORBIDDEN");
    await expect(guardRequest(closed, request(headers), "platform_contact", "10.3.0.1")).resolves.toBeDefined();
    await expect(guardRequest(closed, request(headers), "attribution", "10.3.0.1")).resolves.toBeDefined();
    await expect(guardRequest(closed, request(headers), "order", "10.3.0.1")).resolves.toBeDefined();
    await expect(guardRequest(closed, request(), "order", "10.3.0.1")).resolves.toBeDefined();

    const open = makeApp({ PUBLIC_ORDER_RAIL_ENABLED: "true" });
    expect((await refusal(guardRequest(open, request(), "order", "10.3.0.2"))).code).toBe("FORBIDDEN");
    const inquirer = await register(open, 2);
    const forbidden = await refusal(
      guardRequest(open, request({ "x-api-key": inquirer.api_key }), "order", "10.3.0.2"),
    );
    expect(forbidden.code).toBe("FORBIDDEN");
    expect(forbidden.details.headers?.RateLimit).toBeDefined();
    const transactional = await register(open, 4);
    await applyAgentCommand({ agents: open.agents, now: open.now }, transactional.agent_id, "approve");
    const allowed = await guardRequest(open, request({ "x-api-key": transactional.api_key }), "order", "10.3.0.2");
    expect(allowed.caller.permissions).toContain("orders:write");
  });

  it("answers 401 for bad keys (counted on the address) and 403 for suspended agents", async () => {
    const app = makeApp({ RATE_LIMIT_ANON_HOURLY: "3" });
    const unknown = await refusal(
      guardRequest(app, request({ "x-api-key": `abk_${"a".repeat(40)}` }), "search", "10.4.0.1"),
    );
    expect(unknown.code).toBe("UNAUTHORIZED");
    expect(unknown.details.headers?.["WWW-Authenticate"]).toContain("Bearer");
    expect(
      (await refusal(guardRequest(app, request({ authorization: "Basic eDp5" }), "search", "10.4.0.1"))).code,
    ).toBe("UNAUTHORIZED");
    const agent = await register(app, 2);
    await applyAgentCommand({ agents: app.agents, now: app.now }, agent.agent_id, "suspend");
    const suspended = await refusal(guardRequest(app, request({ "x-api-key": agent.api_key }), "search", "10.4.0.1"));
    expect(suspended.code).toBe("FORBIDDEN");
    // The address's budget (3) is spent by the three refused attempts: key guessing is throttled.
    const throttled = await refusal(
      guardRequest(app, request({ "x-api-key": `abk_${"b".repeat(40)}` }), "search", "10.4.0.1"),
    );
    expect(throttled.code).toBe("RATE_LIMITED");
  });

  it("limits agent registration per address on top of the hourly budget", async () => {
    const app = makeApp({ RATE_LIMIT_ANON_HOURLY: "1000" });
    for (let i = 0; i < 5; i++) {
      const result = await guardRequest(app, request(), "agent_registration", "10.5.0.1");
      if (i === 0) {
        expect(result.headers["RateLimit-Policy"]).toBe('"hourly";q=1000;w=3600, "registration";q=5;w=86400');
      }
    }
    const error = await refusal(guardRequest(app, request(), "agent_registration", "10.5.0.1"));
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.message).toContain("registration");
    await expect(guardRequest(app, request(), "search", "10.5.0.1")).resolves.toBeDefined();
  });
});
