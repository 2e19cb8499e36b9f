/**
 * What every rate limit store must give the GCRA limiter, whichever it is (memory, the SQLite
 * file, Redis): the same answers to the same calls at the same instants.
 */
import { describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimitStore } from "../../src/domain/access/rate-limiter.ts";

const HOUR = 3600;

export function testClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

export function rateLimiterContract(name: string, makeStore: () => RateLimitStore | Promise<RateLimitStore>): void {
  describe(`GCRA rate limiter on ${name}`, () => {
    const limiterAt = async (time: { now: () => number }) => {
      const store = await makeStore();
      await store.clear();
      return createRateLimiter(store, { clock: time.now });
    };

    it("allows the whole budget at once, then refuses with the time to the next unit", async () => {
      const limiter = await limiterAt(testClock());
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await limiter.consume("ip:1.2.3.4", 3, HOUR));
      expect(answers.map((a) => a.allowed)).toEqual([true, true, true]);
      expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0]);
      expect(answers[2]?.resetSeconds).toBe(3600);
      expect(await limiter.consume("ip:1.2.3.4", 3, HOUR)).toEqual({
        allowed: false,
        remaining: 0,
        resetSeconds: 3600,
        retryAfterSeconds: 1200,
      });
    });

    it("gives a unit back every window/limit seconds and the whole budget after a window", async () => {
      const time = testClock();
      const limiter = await limiterAt(time);
      for (let i = 0; i < 3; i++) await limiter.consume("k", 3, HOUR);
      time.advance(1_199_000);
      expect(await limiter.consume("k", 3, HOUR)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      time.advance(1000);
      expect(await limiter.consume("k", 3, HOUR)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await limiter.consume("k", 3, HOUR)).allowed).toBe(false);
      time.advance(3600_000);
      expect(await limiter.consume("k", 3, HOUR)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 1200 });
    });

    it("refusals do not consume: a client hammering while limited is not pushed further back", async () => {
      const time = testClock();
      const limiter = await limiterAt(time);
      await limiter.consume("k", 1, 60);
      for (let i = 0; i < 100; i++) await limiter.consume("k", 1, 60);
      time.advance(60_000);
      expect((await limiter.consume("k", 1, 60)).allowed).toBe(true);
    });

    it("keeps budgets apart per key", async () => {
      const limiter = await limiterAt(testClock());
      expect((await limiter.consume("a", 1, HOUR)).allowed).toBe(true);
      expect((await limiter.consume("a", 1, HOUR)).allowed).toBe(false);
      expect((await limiter.consume("b", 1, HOUR)).allowed).toBe(true);
    });

    it("counts calls made at once (one turn of the event loop) one by one, in the order made", async () => {
      const limiter = await limiterAt(testClock());
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => limiter.consume("burst", 3, HOUR)),
        limiter.consume("other", 1, HOUR),
      ]);
      expect(answers.map((a) => [a.allowed, a.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
        [true, 0],
      ]);
    });
  });
}
