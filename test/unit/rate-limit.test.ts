import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress } from "../../src/domain/access/client-address.ts";
import { createKillSwitch, KILL_SWITCH_SETTING } from "../../src/domain/access/kill-switch.ts";
import { rateLimitHeaders } from "../../src/domain/access/rate-limit-policy.ts";
import { createInMemoryRateLimiter } from "../../src/domain/access/rate-limiter.ts";

const HOUR = 3600;

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("in-memory GCRA rate limiter", () => {
  it("allows the whole budget at once, then refuses with the time to the next unit", () => {
    const time = clock();
    const limiter = createInMemoryRateLimiter({ clock: time.now });
    const answers = Array.from({ length: 3 }, () => limiter.consume("ip:1.2.3.4", 3, HOUR));
    expect(answers.map((a) => a.allowed)).toEqual([true, true, true]);
    expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0]);
    expect(answers[2]?.resetSeconds).toBe(3600);
    const refused = limiter.consume("ip:1.2.3.4", 3, HOUR);
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 3600, retryAfterSeconds: 1200 });
  });

  it("gives a unit back every window/limit seconds and the whole budget after a window", () => {
    const time = clock();
    const limiter = createInMemoryRateLimiter({ clock: time.now });
    for (let i = 0; i < 3; i++) limiter.consume("k", 3, HOUR);
    time.advance(1_199_000);
    expect(limiter.consume("k", 3, HOUR)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    time.advance(1000);
    expect(limiter.consume("k", 3, HOUR)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.consume("k", 3, HOUR).allowed).toBe(false);
    time.advance(3600_000);
    const fresh = limiter.consume("k", 3, HOUR);
    expect(fresh).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 1200 });
  });

  it("refusals do not consume: a client hammering while limited is not pushed further back", () => {
    const time = clock();
    const limiter = createInMemoryRateLimiter({ clock: time.now });
    limiter.consume("k", 1, 60);
    for (let i = 0; i < 100; i++) limiter.consume("k", 1, 60);
    time.advance(60_000);
    expect(limiter.consume("k", 1, 60).allowed).toBe(true);
  });

  it("keeps budgets apart per key", () => {
    const limiter = createInMemoryRateLimiter({ clock: clock().now });
    expect(limiter.consume("a", 1, HOUR).allowed).toBe(true);
    expect(limiter.consume("a", 1, HOUR).allowed).toBe(false);
    expect(limiter.consume("b", 1, HOUR).allowed).toBe(true);
  });

  it("bounds its memory: stale keys are swept and a flood of keys evicts the least recently used", () => {
    const time = clock();
    const limiter = createInMemoryRateLimiter({ clock: time.now, maxKeys: 1000, sweepIntervalMs: 10_000 });
    for (let i = 0; i < 5000; i++) limiter.consume(`flood:${i}`, 10, 60);
    expect(limiter.size).toBeLessThanOrEqual(1000);
    time.advance(61_000);
    limiter.consume("late", 10, 60);
    expect(limiter.size).toBe(1);
  });

  it("keeps a heavy user tracked through a flood of new keys", () => {
    const time = clock();
    const limiter = createInMemoryRateLimiter({ clock: time.now, maxKeys: 100 });
    for (let i = 0; i < 5; i++) limiter.consume("heavy", 5, HOUR);
    for (let i = 0; i < 500; i++) {
      limiter.consume(`new:${i}`, 5, HOUR);
      if (i % 50 === 0) limiter.consume("heavy", 5, HOUR);
    }
    expect(limiter.consume("heavy", 5, HOUR).allowed).toBe(false);
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
  it("reads the operator setting at most once per cache period", () => {
    const time = clock();
    let stored: string | null = null;
    let reads = 0;
    const killSwitch = createKillSwitch({
      environmentSuspended: false,
      settings: {
        get: (key) => {
          reads++;
          return key === KILL_SWITCH_SETTING ? stored : null;
        },
      },
      clock: time.now,
    });
    expect(killSwitch.isSuspended()).toBe(false);
    stored = "on";
    expect(killSwitch.isSuspended()).toBe(false);
    time.advance(1000);
    expect(killSwitch.isSuspended()).toBe(true);
    for (let i = 0; i < 100; i++) killSwitch.isSuspended();
    expect(reads).toBe(2);
    stored = "off";
    time.advance(1000);
    expect(killSwitch.isSuspended()).toBe(false);
  });

  it("stays on while the environment says so, whatever the operator setting", () => {
    const killSwitch = createKillSwitch({ environmentSuspended: true, settings: { get: () => "off" } });
    expect(killSwitch.isSuspended()).toBe(true);
    expect(killSwitch.status()).toEqual({ suspended: true, environment: true, operator: false });
  });
});
