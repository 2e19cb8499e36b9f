/**
 * `npm run bench:read` (first part of `npm run bench`): seeds demo registries of several sizes, publishes them (the refresh job), serves each with the built server and
 * measures the health check, the read routes and the published documents (JSON-LD and decision
 * card, answered from the publish folder) under load next to bare node:http serving the
 * same bytes with the same number of processes (same run, same machine), plus the domain's own
 * cost in-process, seed time and each server process's memory.
 *
 *   npm run bench:read -- --sizes 10000,100000 --duration 10 --connections 10 --processes 2
 *
 * `--processes` is the server's SERVER_PROCESSES (default: one per core, as `npm start`); the bare
 * baseline runs as many processes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { resolveMerchant } from "../src/domain/registry/resolve-merchant.ts";
import { searchRegistry } from "../src/domain/registry/search-registry.ts";
import { renderDecisionCard } from "../src/publish/decision-card.ts";
import { viewDepsOf } from "../src/publish/http.ts";
import { renderJsonLd } from "../src/publish/jsonld.ts";
import { loadPublishedView } from "../src/publish/view.ts";
import { searchQuerySchema } from "../src/schemas/registry.ts";
import { searchDeps } from "../src/wiring.ts";
import {
  keepSearchCards,
  type LoadFigure,
  round,
  seedBenchRegistry,
  serverBenchOptions,
  serverBesideBare,
  serverMemory,
  spawnNode,
  timeInProcess,
  waitForHealth,
  writeReport,
} from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values, processes, sizes, durationSeconds, connections } = serverBenchOptions({
  port: { type: "string", default: "4399" },
});

interface Row {
  size: number;
  scenario: string;
  server: LoadFigure;
  bare: LoadFigure;
  domain: { opsPerSecond: number; p50Ms: number; p99Ms: number };
}

const TEXT_QUERIES = [
  "boulangerie",
  "plombier",
  "coiffure",
  "garage",
  "restaurant",
  "fleuriste",
  "plombier lyon",
  "électricien paris",
  "pâtisserie",
  "agence immobilière",
  "traiteur mariage",
  "vétérinaire",
];

if (!existsSync(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

const rows: Row[] = [];
const notes: string[] = [];
for (const size of sizes) {
  const seedStarted = performance.now();
  // No scheduled refresh during the measures; a quota no load generator reaches.
  const { dataDir, env, copied } = seedBenchRegistry(size, "bench");
  const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
  notes.push(
    copied
      ? `seed ${size}: copied from BENCH_SEED_CACHE in ${seedSeconds} s`
      : `seed ${size}: ${seedSeconds} s wall (${Math.round(size / seedSeconds)} merchants/s)`,
  );

  // The published documents are served from the publish folder, as on a server that has run its
  // refresh: publish them under the server's BASE_URL (the port is part of it).
  const port = values.port ?? "4399";
  const refreshStarted = performance.now();
  execFileSync(process.execPath, ["jobs/refresh.ts", "--quiet"], {
    cwd: root,
    env: { ...process.env, ...env, PORT: port },
    stdio: ["ignore", "inherit", "inherit"],
  });
  notes.push(`refresh ${size}: ${round((performance.now() - refreshStarted) / 1000, 1)} s wall (publish folder)`);

  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")) as {
    cases: Record<string, string[]>;
    geo_queries: { q: string; lat: number; lng: number; radius: number; tags: string[] }[];
  };
  const app = createApp(loadConfig({ ...env }));
  notes.push(await keepSearchCards(app, size));
  const resolvable = app.db.$client
    .prepare("SELECT ab_id FROM merchants WHERE status IN ('ACTIVE','PROBATION') ORDER BY ab_id LIMIT 2000")
    .pluck()
    .all() as string[];
  const geo = roster.geo_queries;
  const scenarios: Record<string, string[]> = {
    health: ["/api/health"],
    search_text: TEXT_QUERIES.map((q) => `/api/registry/search?q=${encodeURIComponent(q)}`),
    search_geo: geo.map(
      (g) => `/api/registry/search?q=${encodeURIComponent(g.q)}&lat=${g.lat}&lng=${g.lng}&radius=${g.radius}`,
    ),
    search_tags: geo.map(
      (g) =>
        `/api/registry/search?q=${encodeURIComponent(g.q)}&tags=${encodeURIComponent(g.tags.join(","))}&lat=${g.lat}&lng=${g.lng}&radius=${g.radius}`,
    ),
    resolve: resolvable.map((abId) => `/api/registry/resolve/${abId}`),
    jsonld_published: resolvable.map((abId) => `/api/merchants/${abId}/jsonld`),
    decision_card_published: resolvable.map((abId) => `/api/merchants/${abId}/decision-card`),
  };
  const server = spawnNode(["jobs/start.ts"], {
    ...env,
    PORT: port,
    HOST: "127.0.0.1",
    SERVER_PROCESSES: String(processes),
  });
  server.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, server);

  const deps = searchDeps(app);
  for (const [scenario, paths] of Object.entries(scenarios)) {
    if (paths.length === 0) continue;
    const published = scenario.endsWith("_published");
    if (published) await expectServedFromFolder(url, paths[0] ?? "/");
    const { server: serverFigure, bare: bareFigure } = await serverBesideBare(url, paths, {
      processes,
      connections,
      durationSeconds,
    });
    const domain = await timeInProcess(async (iteration) => {
      const target = new URL(paths[iteration % paths.length] ?? "/", url);
      if (scenario === "health") {
        await app.probeDatabase();
      } else if (scenario === "resolve") {
        await resolveMerchant(deps, target.pathname.split("/").at(-1) ?? "");
      } else if (published) {
        // What the route renders when the file is not fresh: the server's answer above costs none of it.
        const view = await loadPublishedView(viewDepsOf(app), target.pathname.split("/").at(-2) ?? "");
        if (scenario === "jsonld_published") renderJsonLd(view);
        else renderDecisionCard(view);
      } else {
        const query = searchQuerySchema.parse(Object.fromEntries(target.searchParams));
        await searchRegistry(deps, query);
      }
    }, 2000);
    rows.push({ size, scenario, server: serverFigure, bare: bareFigure, domain });
    process.stdout.write(
      `${scenario}: ${serverFigure.requestsPerSecond} req/s (p50 ${serverFigure.p50Ms} ms, p99 ${serverFigure.p99Ms} ms) vs bare ${bareFigure.requestsPerSecond} req/s; domain p99 ${domain.p99Ms} ms\n`,
    );
  }
  const memory = serverMemory(server.pid ?? 0);
  const each = memory.processes.map((one) => `${one.rss} MB (peak ${one.peak} MB)`).join(", ");
  notes.push(
    `server memory at ${size} merchants after load: RSS per process ${each}; ${memory.totalRss} MB for the ${memory.processes.length} server process(es)`,
  );
  server.kill("SIGTERM");
  app.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const header =
  "| merchants | scenario | server req/s | bare node:http req/s | ratio | server p50 ms | server p99 ms | bare p99 ms | domain-only p50 ms | domain-only p99 ms | errors |";
const lines = rows.map((row) =>
  [
    row.size,
    row.scenario,
    row.server.requestsPerSecond,
    row.bare.requestsPerSecond,
    round(row.server.requestsPerSecond / Math.max(1, row.bare.requestsPerSecond), 3),
    row.server.p50Ms,
    row.server.p99Ms,
    row.bare.p99Ms,
    row.domain.p50Ms,
    row.domain.p99Ms,
    row.server.errors + row.server.non2xx,
  ].join(" | "),
);
const report = [
  `# Bench ${new Date().toISOString()}`,
  "",
  `Node ${process.version}, ${os.cpus().length} cores, server with ${processes} process(es), ${connections} connections, ${durationSeconds} s per figure, autocannon over loopback.`,
  `Bare node:http serves the same response bytes with the same ${processes} process(es) in the same run; domain-only is the same domain call in-process without HTTP.`,
  "`*_published`: the merchant's document answered from the publish folder (the refresh job ran before the server started); their domain-only figure is rendering the document on demand, what the route does when the file is not fresh.",
  "",
  header,
  `|${"---|".repeat(11)}`,
  ...lines.map((line) => `| ${line} |`),
  "",
  ...notes.map((note) => `- ${note}`),
  "",
].join("\n");
writeReport("read", report, { rows, notes });
process.exit(0);

/** A published scenario measures the publish folder: refuse to report a route's figure under its name. */
async function expectServedFromFolder(url: string, pathname: string): Promise<void> {
  const probe = await fetch(`${url}${pathname}`);
  await probe.arrayBuffer();
  if (probe.headers.get("x-served-from") !== "publish-folder") {
    throw new Error(`${pathname} is not served from the publish folder (status ${probe.status}): was the refresh run?`);
  }
}
