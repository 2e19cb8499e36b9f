import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimitStore } from "../../src/domain/access/rate-limiter.ts";
import { createRedisRateLimitStore } from "../../src/store/redis-rate-limit-store.ts";
import { rateLimiterContract, testClock } from "../helpers/rate-limiter-contract.ts";
import { type RunningRedis, startRedis } from "../helpers/redis-server.ts";

let redis: RunningRedis;
const stores: RateLimitStore[] = [];
const storeOn = (url: string, onError?: (error: Error) => void) => {
  const store = createRedisRateLimitStore({ url, ...(onError ? { onError } : {}) });
  stores.push(store);
  return store;
};

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close?.()));
  // Undefined when redis-server could not start: its error is the one to read.
  await redis?.stop();
});

rateLimiterContract("Redis", () => storeOn(redis.url));

describe("Redis rate limit store", () => {
  it("is one budget for every client of the same Redis, as for servers on several machines", async () => {
    const time = testClock();
    const first = createRateLimiter(storeOn(redis.url), { clock: time.now });
    const second = createRateLimiter(storeOn(redis.url), { clock: time.now });
    await first.clear();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await (i % 2 ? second : first).consume("agent:shared", 3, 3600)).allowed);
    expect(answers).toEqual([true, true, true, false, false]);
  });

  it("lets requests through while Redis is down, reports it, and limits again once it is back", async () => {
    const own = await startRedis();
    const faults: string[] = [];
    const time = testClock();
    const limiter = createRateLimiter(
      storeOn(own.url, (error) => faults.push(error.message)),
      {
        clock: time.now,
        onStoreFailure: (error) => faults.push(`failure: ${(error as Error).message}`),
      },
    );
    expect((await limiter.consume("ip:1.1.1.1", 1, 3600)).allowed).toBe(true);
    expect((await limiter.consume("ip:1.1.1.1", 1, 3600)).allowed).toBe(false);

    await own.stop();
    const whileDown = await limiter.consume("ip:1.1.1.1", 1, 3600);
    expect(whileDown).toEqual({ allowed: true, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 });
    expect(faults.some((fault) => fault.startsWith("failure: "))).toBe(true);

    const back = await startRedis(own.port);
    const deadline = Date.now() + 10_000;
    let answer = await limiter.consume("ip:1.1.1.1", 1, 3600);
    while (answer.resetSeconds === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await limiter.consume("ip:1.1.1.1", 1, 3600);
    }
    // A fresh Redis has no budgets: the first call after the outage is counted, the next refused.
    expect(answer).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume("ip:1.1.1.1", 1, 3600)).allowed).toBe(false);
    await back.stop();
  });
});
