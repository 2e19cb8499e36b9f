/**
 * `node bench/limiter.ts`: the rate limiter's own cost, in-process, against the guard's real
 * key shapes, on each store: memory (one process), the SQLite file every server process shares
 * (the default), and Redis when REDIS_URL is set. Compare with the read routes' cost per request
 * (about 200 µs at 5,000 req/s): the limiter must stay a small part of it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  createInMemoryRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from "../src/domain/access/rate-limiter.ts";
import { createSqliteRateLimitStore } from "../src/store/rate-limit-store.ts";
import { createRedisRateLimitStore } from "../src/store/redis-rate-limit-store.ts";

async function run(label: string, store: RateLimitStore, keys: string[], iterations: number, limit: number) {
  const limiter = createRateLimiter(store);
  for (let i = 0; i < Math.min(iterations, 20_000); i++)
    await limiter.consume(keys[i % keys.length] ?? "", limit, 3600);
  await limiter.clear();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  let allowed = 0;
  for (let i = 0; i < iterations; i++) {
    if ((await limiter.consume(keys[i % keys.length] ?? "", limit, 3600)).allowed) allowed++;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const heapAfter = process.memoryUsage().heapUsed;
  process.stdout.write(
    `${label.padEnd(52)} ${Math.round(iterations / seconds)
      .toLocaleString("en")
      .padStart(
        12,
      )} consume/s  ${((seconds / iterations) * 1e9).toFixed(0).padStart(6)} ns/op  heap +${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB  allowed ${allowed}\n`,
  );
}

const addresses = (n: number) =>
  Array.from({ length: n }, (_, i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-limiter-bench-"));
const stores: { name: string; iterations: number; make: () => RateLimitStore }[] = [
  { name: "memory", iterations: 2_000_000, make: () => createInMemoryRateLimitStore() },
  { name: "SQLite file", iterations: 200_000, make: () => createSqliteRateLimitStore(path.join(scratch, "limits.db")) },
];
if (process.env.REDIS_URL) {
  const url = process.env.REDIS_URL;
  stores.push({ name: "Redis", iterations: 50_000, make: () => createRedisRateLimitStore({ url }) });
}

process.stdout.write(`Node ${process.version}\n`);
for (const { name, iterations, make } of stores) {
  const store = make();
  await run(`${name}: one hot agent key (allowed)`, store, ["agent:agt_0123456789abcdefghij"], iterations, 1e9);
  await run(`${name}: one hot key, limited (refused)`, store, ["ip:127.0.0.1"], iterations, 600);
  await run(`${name}: 1,000 client addresses`, store, addresses(1000), iterations, 600);
  await run(`${name}: 100,000 client addresses`, store, addresses(100_000), iterations, 600);
  await store.close?.();
}
rmSync(scratch, { recursive: true, force: true });

// The whole guard (kill switch, key, limiter, headers) as every counted request runs it.
{
  const { createApp } = await import("../src/app.ts");
  const { loadConfig } = await import("../src/config/config.ts");
  const { registerAgent } = await import("../src/domain/agents/register-agent.ts");
  const { guardRequest } = await import("../src/http/guard.ts");
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-guard-bench-"));
  const app = createApp(
    loadConfig({
      DATA_DIR: dir,
      LOG_LEVEL: "silent",
      RATE_LIMIT_ANON_HOURLY: "1000000000",
      RATE_LIMIT_L2_HOURLY: "1000000000",
    }),
  );
  const agent = await registerAgent(
    { agents: app.agents, limits: app.config.rateLimitHourly, now: app.now },
    { agent_name: "bench", contact_email: "b@example.fr", requested_level: 2 },
    { registeredFrom: "bench" },
  );
  const requests = {
    anonymous: new Request("http://bench.test/api/registry/search?q=pain"),
    "with an API key": new Request("http://bench.test/api/registry/search?q=pain", {
      headers: { authorization: `Bearer ${agent.api_key}` },
    }),
  };
  const calls = 300_000;
  for (const [label, request] of Object.entries(requests)) {
    for (let i = 0; i < 20_000; i++) await guardRequest(app, request, "search", "127.0.0.1");
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await guardRequest(app, request, "search", `10.0.${(i >> 8) & 255}.${i & 255}`);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    process.stdout.write(
      `${`guardRequest, ${label}`.padEnd(44)} ${Math.round(calls / seconds)
        .toLocaleString("en")
        .padStart(12)} calls/s    ${((seconds / calls) * 1e9).toFixed(0).padStart(5)} ns/call\n`,
    );
  }
  app.close();
  rmSync(dir, { recursive: true, force: true });
}
