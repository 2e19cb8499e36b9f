/**
 * The rate limiter on PostgreSQL (src/store/postgres/rate-limit-store.ts): the same answers as
 * every other store (the shared contract), one budget for two machines (two pools on one
 * database), and budgets whole again forgotten.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "../../src/domain/access/rate-limiter.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresRateLimitStore } from "../../src/store/postgres/rate-limit-store.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { testClock as clock, rateLimiterContract } from "../helpers/rate-limiter-contract.ts";

const HOUR = 3600;
let server: TestPostgres;
let url: string;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
}, 60_000);
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

function pool(): pg.Pool {
  const opened = openPostgresPool({ url, poolMax: 4, poolTimeoutMs: 5_000 });
  pools.push(opened);
  return opened;
}

rateLimiterContract("PostgreSQL", () => createPostgresRateLimitStore(pool()));

describe("PostgreSQL rate limit store", () => {
  it("is one budget for every machine on the database", async () => {
    const time = clock();
    const store = createPostgresRateLimitStore(pool());
    await store.clear();
    const first = createRateLimiter(store, { clock: time.now });
    const second = createRateLimiter(createPostgresRateLimitStore(pool()), { clock: time.now });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await (i % 2 ? second : first).consume("ip:9.9.9.9", 4, HOUR)).allowed);
    expect(answers).toEqual([true, true, true, true, false, false]);
    expect((await second.consume("ip:9.9.9.9", 4, HOUR)).retryAfterSeconds).toBe(900);
  });

  it("counts concurrent calls exactly: 20 at once on a budget of 8 allow 8", async () => {
    const time = clock();
    const store = createPostgresRateLimitStore(pool());
    await store.clear();
    const limiter = createRateLimiter(store, { clock: time.now });
    const answers = await Promise.all(Array.from({ length: 20 }, () => limiter.consume("ip:8.8.8.8", 8, HOUR)));
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(8);
  });

  it("forgets budgets that are whole again", async () => {
    const time = clock();
    const database = pool();
    const store = createPostgresRateLimitStore(database);
    await store.clear();
    const limiter = createRateLimiter(store, { clock: time.now });
    for (let i = 0; i < 50; i++) await limiter.consume(`ip:10.0.0.${i}`, 10, 60);
    time.advance(61_000);
    await limiter.consume("late", 10, 60);
    expect((await database.query<{ key: string }>("SELECT key FROM rate_limits")).rows.map((row) => row.key)).toEqual([
      "late",
    ]);
  });
});
