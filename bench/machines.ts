/**
 * `npm run bench:machines`: the several-machine shape (docs/deployment.md) beside the embedded
 * default, in the same run: one instance on SQLite, and two instances on PostgreSQL sharing Redis,
 * each `npm start` with its own DATA_DIR and port. The same registry on both (seeded on SQLite
 * through the imports, then `npm run db -- copy` into PostgreSQL). Figures: the read routes
 * (health, text search, resolve) and leads accepted per second (distinct leads, every one a row,
 * a duplicate-window row and an outbox row), the two PostgreSQL instances driven at once (the sum
 * of both) as a ratio to the one SQLite instance; p50/p99 and each server's memory.
 *
 *   npm run bench:machines -- [--merchants 2000] [--duration 10] [--connections 10] [--processes 1]
 *
 * `--processes`: SERVER_PROCESSES of every instance (default 1: three instances already share
 * this machine's cores with PostgreSQL, Redis and the load generator).
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startTestPostgres } from "../test/helpers/postgres.ts";
import { startRedis } from "../test/helpers/redis-server.ts";
import { freePort } from "../test/helpers/spawn-start.ts";
import {
  type LoadFigure,
  load,
  loadFigureOf,
  machineLine,
  round,
  serverMemory,
  spawnNode,
  waitForHealth,
  writeReport,
} from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    merchants: { type: "string", default: "2000" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    processes: { type: "string", default: "1" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);

if (!existsSync(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

const scratch = mkdtempSync(path.join(process.env.BENCH_TMPDIR ?? os.tmpdir(), "abeille-bench-machines-"));
const dirs = {
  sqlite: path.join(scratch, "sqlite"),
  first: path.join(scratch, "pg-a"),
  second: path.join(scratch, "pg-b"),
};
const common = {
  LOG_LEVEL: "warn",
  DEMO_SEED_COUNT: "0",
  RATE_LIMIT_ANON_HOURLY: "1000000000",
  OUTBOX_POLL_MS: "500",
  REFRESH_ON_START: "false",
  REFRESH_CRON: "off",
  SERVER_PROCESSES: values.processes,
};

process.stdout.write(`seeding ${values.merchants} merchants...\n`);
execFileSync(process.execPath, ["jobs/seed.ts", "--count", values.merchants], {
  cwd: root,
  env: { ...process.env, ...common, DATA_DIR: dirs.sqlite },
  stdio: ["ignore", "inherit", "inherit"],
});
const roster = JSON.parse(readFileSync(path.join(dirs.sqlite, "demo-roster.json"), "utf8")) as {
  cases: Record<string, string[]>;
};
const contactable = (roster.cases.active_contactable ?? []).slice(0, 200);

const postgres = await startTestPostgres();
const redis = await startRedis();
const databaseUrl = await postgres.createEmptyDatabase("bench");
process.stdout.write("copying the registry into PostgreSQL...\n");
execFileSync(process.execPath, ["jobs/db.ts", "copy", "--to", databaseUrl], {
  cwd: root,
  env: { ...process.env, ...common, DATA_DIR: dirs.sqlite },
  stdio: ["ignore", "inherit", "inherit"],
});
const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

async function startInstance(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const port = String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawnNode(["jobs/start.ts"], {
    ...common,
    ...env,
    DATA_DIR: dataDir,
    PORT: port,
    HOST: "127.0.0.1",
    BASE_URL: url,
  });
  child.stdout?.resume();
  children.push(child);
  await waitForHealth(url, child, 180_000);
  return { url, child };
}

const sqlite = await startInstance(dirs.sqlite, {});
const shared = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url };
const first = await startInstance(dirs.first, shared);
// The operator's secret store: the first machine's secrets and signing keys on the second.
for (const folder of ["secrets", "keys"]) {
  cpSync(path.join(dirs.first, folder), path.join(dirs.second, folder), { recursive: true });
}
const second = await startInstance(dirs.second, shared);

const abIds = contactable.slice(0, 50);
const readPaths: Record<string, string[]> = {
  health: ["/api/health"],
  search_text: ["boulangerie", "plombier", "coiffure", "garage", "fleuriste"].map(
    (q) => `/api/registry/search?q=${q}&limit=10`,
  ),
  resolve: abIds.map((abId) => `/api/registry/resolve/${abId}`),
};

/** The same load split over several instances at once (connections shared out): the sum of their figures. */
async function loadSpread(urls: string[], paths: string[]): Promise<LoadFigure> {
  const each = await Promise.all(
    urls.map((url) =>
      load(url, paths, { connections: Math.max(1, Math.round(connections / urls.length)), durationSeconds }),
    ),
  );
  return combine(each);
}

function combine(figures: LoadFigure[]): LoadFigure {
  return {
    requestsPerSecond: figures.reduce((sum, figure) => sum + figure.requestsPerSecond, 0),
    p50Ms: Math.max(...figures.map((figure) => figure.p50Ms)),
    p99Ms: Math.max(...figures.map((figure) => figure.p99Ms)),
    errors: figures.reduce((sum, figure) => sum + figure.errors, 0),
    non2xx: figures.reduce((sum, figure) => sum + figure.non2xx, 0),
  };
}

let sequence = 0;
async function leads(url: string, seconds: number, share: number): Promise<LoadFigure & { accepted: number }> {
  const result = await autocannon({
    url,
    connections: share,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/api/contact/brick",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            ab_id: contactable[sequence % contactable.length],
            contact_name: "Camille Martin",
            contact_email: `bench.${process.pid}.${sequence++}@example.fr`,
            lead_type: "quote",
            message: "Bonjour, je souhaite recevoir un devis pour des travaux de rénovation de ma cuisine.",
          }),
        }),
      },
    ],
  });
  const created = result.statusCodeStats?.["201"]?.count ?? 0;
  return { ...loadFigureOf(result), accepted: Math.round(created / seconds) };
}

interface Row {
  scenario: string;
  sqlite: LoadFigure;
  postgres: LoadFigure;
}
const rows: Row[] = [];
for (const [scenario, paths] of Object.entries(readPaths)) {
  // Warm both shapes (caches, JIT) before measuring.
  await loadSpread([sqlite.url], paths.slice(0, 5));
  await loadSpread([first.url, second.url], paths.slice(0, 5));
  const one = await loadSpread([sqlite.url], paths);
  const two = await loadSpread([first.url, second.url], paths);
  rows.push({ scenario, sqlite: one, postgres: two });
  process.stdout.write(`${scenario}: sqlite ${one.requestsPerSecond}/s, 2 x postgres ${two.requestsPerSecond}/s\n`);
}
/**
 * Waits until an instance's outbox has sent every email its leads queued (the health check's
 * backlog): a drain still writing emails would take the next figure's cores.
 */
async function drained(url: string, timeoutMs = 300_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const health = (await (await fetch(`${url}/api/health`)).json()) as { data: { outbox: { pending: number } } };
    if (health.data.outbox.pending === 0) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${url}: the outbox did not drain in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

await leads(sqlite.url, 1, connections);
const leadsSqlite = await leads(sqlite.url, durationSeconds, connections);
process.stdout.write(`SQLite's outbox drained in ${round((await drained(sqlite.url)) / 1000)} s\n`);
await Promise.all([
  leads(first.url, 1, Math.max(1, Math.round(connections / 2))),
  leads(second.url, 1, Math.max(1, Math.round(connections / 2))),
]);
const leadsPostgres = await Promise.all([
  leads(first.url, durationSeconds, Math.max(1, Math.round(connections / 2))),
  leads(second.url, durationSeconds, Math.max(1, Math.round(connections / 2))),
]);
const leadsTwo = {
  ...combine(leadsPostgres),
  accepted: leadsPostgres.reduce((sum, figure) => sum + figure.accepted, 0),
};
rows.push({ scenario: "leads (distinct, 201)", sqlite: leadsSqlite, postgres: leadsTwo });

const memory = {
  sqlite: serverMemory(sqlite.child.pid ?? 0).totalRss,
  first: serverMemory(first.child.pid ?? 0).totalRss,
  second: serverMemory(second.child.pid ?? 0).totalRss,
};
for (const child of children) child.kill("SIGTERM");
await new Promise((resolve) => setTimeout(resolve, 1_000));
await redis.stop();
await postgres.stop();
rmSync(scratch, { recursive: true, force: true });

const lines = [
  `# Several machines: two instances on PostgreSQL beside one on SQLite, ${new Date().toISOString()}`,
  "",
  `${machineLine()}; ${values.merchants} merchants; ${connections} connections in all (split evenly over the two PostgreSQL instances); ${durationSeconds} s per figure; SERVER_PROCESSES=${values.processes} per instance; PostgreSQL 15 and Redis on the same machine.`,
  "",
  "| scenario | 1 x SQLite req/s | 2 x PostgreSQL req/s | ratio | SQLite p50/p99 ms | PostgreSQL p50/p99 ms | errors, non-2xx |",
  "|---|---|---|---|---|---|---|",
  ...rows.map(
    (row) =>
      `| ${row.scenario} | ${row.sqlite.requestsPerSecond} | ${row.postgres.requestsPerSecond} | ${round(row.postgres.requestsPerSecond / Math.max(1, row.sqlite.requestsPerSecond), 2)} | ${row.sqlite.p50Ms}/${row.sqlite.p99Ms} | ${row.postgres.p50Ms}/${row.postgres.p99Ms} | ${row.sqlite.errors + row.postgres.errors}, ${row.sqlite.non2xx + row.postgres.non2xx} |`,
  ),
  "",
  `- leads accepted per second: 1 x SQLite ${leadsSqlite.accepted}/s; 2 x PostgreSQL ${leadsTwo.accepted}/s (${leadsPostgres.map((figure) => `${figure.accepted}/s`).join(" + ")})`,
  `- memory after the load (RSS, all processes of each instance): SQLite ${memory.sqlite} MB; PostgreSQL instances ${memory.first} MB and ${memory.second} MB`,
  "",
];
writeReport("machines", lines.join("\n"), { rows, leadsSqlite, leadsPostgres, memory });
process.exit(0);
