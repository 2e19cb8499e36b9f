import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { addressBucket, clientAddress } from "../../src/domain/access/client-address.ts";
import { createKillSwitch, KILL_SWITCH_SETTING } from "../../src/domain/access/kill-switch.ts";
import { rateLimitHeaders } from "../../src/domain/access/rate-limit-policy.ts";
import {
  createInMemoryRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from "../../src/domain/access/rate-limiter.ts";
import { createSqliteRateLimitStore } from "../../src/store/rate-limit-store.ts";
import { testClock as clock, rateLimiterContract } from "../helpers/rate-limiter-contract.ts";

const HOUR = 3600;
const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-limits-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

rateLimiterContract("memory", () => createInMemoryRateLimitStore());
rateLimiterContract("a SQLite file", () => createSqliteRateLimitStore(path.join(scratch, `limits-${files++}.db`)));

describe("SQLite rate limit store", () => {
  it("is one budget for every connection to the file, as for every server process", async () => {
    const file = path.join(scratch, "shared.db");
    const time = clock();
    const first = createRateLimiter(createSqliteRateLimitStore(file), { clock: time.now });
    const second = createRateLimiter(createSqliteRateLimitStore(file), { clock: time.now });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await (i % 2 ? second : first).consume("ip:9.9.9.9", 4, HOUR)).allowed);
    expect(answers).toEqual([true, true, true, true, false, false]);
    expect((await second.consume("ip:9.9.9.9", 4, HOUR)).retryAfterSeconds).toBe(900);
  });

  it("forgets budgets that are whole again", async () => {
    const file = path.join(scratch, "sweep.db");
    const time = clock();
    const limiter = createRateLimiter(createSqliteRateLimitStore(file), { clock: time.now });
    for (let i = 0; i < 50; i++) await limiter.consume(`ip:10.0.0.${i}`, 10, 60);
    time.advance(61_000);
    await limiter.consume("late", 10, 60);
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare("SELECT key FROM rate_limits").pluck().all()).toEqual(["late"]);
    raw.close();
  });
});

describe("a rate limit store that fails", () => {
  it("lets the request through and reports the failure", async () => {
    const failures: unknown[] = [];
    const broken: RateLimitStore = {
      advance: () => {
        throw new Error("store down");
      },
      clear: () => {},
    };
    const limiter = createRateLimiter(broken, { onStoreFailure: (error) => failures.push(error) });
    expect(await limiter.consume("k", 5, HOUR)).toEqual({
      allowed: true,
      remaining: 4,
      resetSeconds: 0,
      retryAfterSeconds: 0,
    });
    expect(failures.map((error) => (error as Error).message)).toEqual(["store down"]);
  });
});

describe("in-memory rate limit store", () => {
  it("bounds its memory: stale keys are swept and a flood of keys evicts the least recently used", async () => {
    const time = clock();
    const store = createInMemoryRateLimitStore({ maxKeys: 1000, sweepIntervalMs: 10_000 });
    const limiter = createRateLimiter(store, { clock: time.now });
    for (let i = 0; i < 5000; i++) await limiter.consume(`flood:${i}`, 10, 60);
    expect(store.size).toBeLessThanOrEqual(1000);
    time.advance(61_000);
    await limiter.consume("late", 10, 60);
    expect(store.size).toBe(1);
  });

  it("keeps a heavy user tracked through a flood of new keys", async () => {
    const time = clock();
    const limiter = createRateLimiter(createInMemoryRateLimitStore({ maxKeys: 100 }), { clock: time.now });
    for (let i = 0; i < 5; i++) await limiter.consume("heavy", 5, HOUR);
    for (let i = 0; i < 500; i++) {
      await limiter.consume(`new:${i}`, 5, HOUR);
      if (i % 50 === 0) await limiter.consume("heavy", 5, HOUR);
    }
    expect((await limiter.consume("heavy", 5, HOUR)).allowed).toBe(false);
  });

  it("formats the IETF RateLimit fields in their structured-field form", () => {
    const decision = { allowed: true, remaining: 599, resetSeconds: 6, retryAfterSeconds: 0 };
    expect(rateLimitHeaders([{ name: "hourly", limit: 600, windowSeconds: 3600, decision }])).toEqual({
      "RateLimit-Policy": '"hourly";q=600;w=3600',
      RateLimit: '"hourly";r=599;t=6',
    });
  });
});

describe("client addresses", () => {
  const headers = (xff?: string) => new Headers(xff ? { "x-forwarded-for": xff } : {});

  it("ignores X-Forwarded-For unless proxies are trusted", () => {
    expect(clientAddress(0, headers("6.6.6.6"), "10.0.0.1")).toBe("10.0.0.1");
  });

  it("takes the entry the trusted proxy appended, not the one the client wrote", () => {
    expect(clientAddress(1, headers("6.6.6.6, 203.0.113.7"), "10.0.0.1")).toBe("203.0.113.7");
    expect(clientAddress(2, headers("6.6.6.6, 203.0.113.7, 10.0.0.2"), "10.0.0.1")).toBe("203.0.113.7");
    expect(clientAddress(1, headers("not-an-ip"), "10.0.0.1")).toBe("10.0.0.1");
  });

  it("counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4", () => {
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("kill switch", () => {
  it("reads the operator setting at most once per cache period", async () => {
    const time = clock();
    let stored: string | null = null;
    let reads = 0;
    const killSwitch = createKillSwitch({
      environmentSuspended: false,
      settings: {
        get: async (key) => {
          reads++;
          return key === KILL_SWITCH_SETTING ? stored : null;
        },
      },
      clock: time.now,
    });
    expect(await killSwitch.isSuspended()).toBe(false);
    stored = "on";
    expect(await killSwitch.isSuspended()).toBe(false);
    time.advance(1000);
    expect(await killSwitch.isSuspended()).toBe(true);
    for (let i = 0; i < 100; i++) await killSwitch.isSuspended();
    expect(reads).toBe(2);
    stored = "off";
    time.advance(1000);
    // Requests that find the value stale at once share one read.
    expect(await Promise.all([killSwitch.isSuspended(), killSwitch.isSuspended(), killSwitch.status()])).toEqual([
      false,
      false,
      { suspended: false, environment: false, operator: false },
    ]);
    expect(reads).toBe(3);
  });

  it("answers without waiting only from a fresh read, and starts one when it has none", async () => {
    const time = clock();
    let stored: string | null = "on";
    let reads = 0;
    const killSwitch = createKillSwitch({
      environmentSuspended: false,
      settings: {
        get: async () => {
          reads++;
          return stored;
        },
      },
      clock: time.now,
    });
    expect(killSwitch.knownSuspended()).toBeNull();
    expect(reads).toBe(1);
    await killSwitch.isSuspended();
    expect(reads).toBe(1);
    expect(killSwitch.knownSuspended()).toBe(true);
    stored = null;
    time.advance(1000);
    expect(killSwitch.knownSuspended()).toBeNull();
    await killSwitch.isSuspended();
    expect(killSwitch.knownSuspended()).toBe(false);
    expect(reads).toBe(2);
    // refresh reads within the cache period too: a caller calling it more often than the period
    // always finds a fresh answer.
    stored = "on";
    time.advance(600);
    expect(await killSwitch.refresh()).toBe(true);
    time.advance(600);
    expect(killSwitch.knownSuspended()).toBe(true);
    expect(reads).toBe(3);
    const environment = createKillSwitch({ environmentSuspended: true, settings: { get: async () => null } });
    expect(environment.knownSuspended()).toBe(true);
  });

  it("stays on while the environment says so, whatever the operator setting", async () => {
    const killSwitch = createKillSwitch({ environmentSuspended: true, settings: { get: async () => "off" } });
    expect(await killSwitch.isSuspended()).toBe(true);
    expect(await killSwitch.status()).toEqual({ suspended: true, environment: true, operator: false });
  });
});
