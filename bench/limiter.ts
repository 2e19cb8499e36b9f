/**
 * `node bench/limiter.ts`: the rate limiter's own cost, in-process, against the guard's real
 * key shapes. Compare with the read routes' cost per request (about 200 µs at 5,000 req/s):
 * the limiter must stay a rounding error.
 */
import { createInMemoryRateLimiter } from "../src/domain/access/rate-limiter.ts";

function run(label: string, keys: string[], iterations: number, limit: number, maxKeys?: number): void {
  const limiter = createInMemoryRateLimiter(maxKeys ? { maxKeys } : {});
  for (let i = 0; i < Math.min(iterations, 100_000); i++) limiter.consume(keys[i % keys.length] ?? "", limit, 3600);
  limiter.clear();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  let allowed = 0;
  for (let i = 0; i < iterations; i++) {
    if (limiter.consume(keys[i % keys.length] ?? "", limit, 3600).allowed) allowed++;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const heapAfter = process.memoryUsage().heapUsed;
  process.stdout.write(
    `${label.padEnd(44)} ${Math.round(iterations / seconds)
      .toLocaleString("en")
      .padStart(
        12,
      )} consume/s  ${((seconds / iterations) * 1e9).toFixed(0).padStart(5)} ns/op  keys ${String(limiter.size).padStart(7)}  heap +${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB  allowed ${allowed}\n`,
  );
}

const ITERATIONS = 2_000_000;
const addresses = (n: number) =>
  Array.from({ length: n }, (_, i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

process.stdout.write(`Node ${process.version}, ${ITERATIONS.toLocaleString("en")} calls per line\n`);
run("one hot agent key (allowed)", ["agent:agt_0123456789abcdefghij"], ITERATIONS, 1e9);
run("one hot key, limited (refused)", ["ip:127.0.0.1"], ITERATIONS, 600);
run("1,000 client addresses", addresses(1000), ITERATIONS, 600);
run("100,000 client addresses", addresses(100_000), ITERATIONS, 600);
run("1,000,000 addresses, 100,000-key cap (evicts)", addresses(1_000_000), ITERATIONS, 600, 100_000);

// The whole guard (kill switch, key, limiter, headers) as every counted request runs it.
{
  const { mkdtempSync, rmSync } = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
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
  const agent = registerAgent(
    { agents: app.agents, limits: app.config.rateLimitHourly, now: app.now },
    { agent_name: "bench", contact_email: "b@example.fr", requested_level: 2 },
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
