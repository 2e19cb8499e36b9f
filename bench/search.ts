/**
 * `npm run bench:search` (part of `npm run bench`): search on the embedded index and on
 * Meilisearch side by side, in one run, at each registry size: the built server under load
 * (req/s, p50, p99) beside bare node:http serving the same bytes with as many processes; the
 * domain's own cost in-process (searchRegistry: index, cards, answer); a full Meilisearch build;
 * the follower's lag after a burst of 1,000 changes; memory of the servers and of Meilisearch.
 * Meilisearch is the pinned community binary (jobs/meilisearch.ts) on loopback. Run it with
 * TMPDIR=/dev/shm: the databases then live in memory, and disk noise stays out of the figures.
 *
 *   npm run bench:search -- --sizes 10000,100000 --meili-sizes 10000,100000 --duration 10 --connections 10 --processes 2
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { startLocalMeilisearch } from "../jobs/meilisearch.ts";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { searchRegistry } from "../src/domain/registry/search-registry.ts";
import { searchQuerySchema } from "../src/schemas/registry.ts";
import { openDatabase } from "../src/store/db.ts";
import { searchDeps } from "../src/wiring.ts";
import { freePort } from "../test/helpers/spawn-start.ts";
import {
  keepSearchCards,
  type LoadFigure,
  machineLine,
  markdownTable,
  round,
  rssMegabytes,
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
// --meili-sizes: the sizes Meilisearch is measured at too (default: every size).
const { values, processes, sizes, durationSeconds, connections } = serverBenchOptions({
  "meili-sizes": { type: "string", default: "" },
});
const meiliSizes = values["meili-sizes"] ? values["meili-sizes"].split(",").map(Number) : sizes;
const BURST = 1_000;

const TEXT_QUERIES = [
  "boulangerie",
  "plombier lyon",
  "coiffeur",
  "mécanicien",
  "restaurant paris",
  "fleuriste",
  "hairdresser",
  "plombier près de Bordeaux",
  "boulangeire",
  "pâtisserie",
];

interface Row {
  size: number;
  engine: string;
  scenario: string;
  server: LoadFigure;
  bare: LoadFigure;
  domain: { opsPerSecond: number; p50Ms: number; p99Ms: number };
  /** Each distinct query's first call, then the later ones, on a fresh engine (see above). */
  firstCalls: { opsPerSecond: number; p50Ms: number; p99Ms: number };
  laterCalls: { opsPerSecond: number; p50Ms: number; p99Ms: number };
}

if (!existsSync(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

const rows: Row[] = [];
const notes: string[] = [];
for (const size of sizes) {
  const { dataDir, env } = seedBenchRegistry(size, "search-bench");

  // Meilisearch: a full build by the follower, timed.
  const meili = meiliSizes.includes(size)
    ? await startLocalMeilisearch({ port: await freePort(), dataDir: path.join(dataDir, "meilisearch") })
    : null;
  const meiliEnv = { ...env, MEILISEARCH_URL: meili?.url ?? "", MEILISEARCH_TIMEOUT_MS: "1000" };
  const meiliApp = meili ? createApp(loadConfig(meiliEnv)) : null;
  if (meili && meiliApp) {
    const built = performance.now();
    const status = await meiliApp.searchEngine.follower?.syncOnce();
    if (status?.state !== "ready") throw new Error(`Meilisearch build failed: ${status?.lastError}`);
    const buildSeconds = round((performance.now() - built) / 1000, 1);
    notes.push(
      `Meilisearch full build of ${size} merchants: ${buildSeconds} s (${Math.round(size / buildSeconds)} merchants/s), Meilisearch RSS ${rssMegabytes(meili.pid).rss} MB after it`,
    );
    process.stdout.write(`${notes.at(-1)}\n`);
  }

  const embeddedApp = createApp(loadConfig(env));
  embeddedApp.searchEngine.embedded.search({ text: "x", tags: [], near: null, limit: 1 }); // builds if needed
  notes.push(await keepSearchCards(embeddedApp, size));
  const names = embeddedApp.db.$client
    .prepare(
      `SELECT business_name FROM merchants WHERE status = 'ACTIVE'
         AND length(business_name) - length(replace(business_name, ' ', '')) = 2 ORDER BY ab_id LIMIT 200`,
    )
    .pluck()
    .all() as string[];
  const geo = embeddedApp.db.$client
    .prepare(
      `SELECT tp.latitude AS lat, tp.longitude AS lng, m.naf_code FROM merchants m
       JOIN territorial_proofs tp ON tp.ab_id = m.ab_id WHERE m.status = 'ACTIVE' ORDER BY m.ab_id LIMIT 100`,
    )
    .all() as { lat: number; lng: number }[];
  const scenarios: Record<string, string[]> = {
    search_text: TEXT_QUERIES.map((q) => `/api/registry/search?q=${encodeURIComponent(q)}`),
    search_name_3_words: names.map((q) => `/api/registry/search?q=${encodeURIComponent(q)}`),
    search_geo: geo.map(
      (g, i) =>
        `/api/registry/search?q=${encodeURIComponent(TEXT_QUERIES[i % 3] ?? "")}&lat=${g.lat}&lng=${g.lng}&radius=10`,
    ),
  };

  const engines = [
    ["embedded", embeddedApp, env] as const,
    ...(meiliApp ? [["meilisearch", meiliApp, meiliEnv] as const] : []),
  ];
  for (const [engine, app, engineEnv] of engines) {
    const port = await freePort();
    const server = spawnNode(["jobs/start.ts"], {
      ...engineEnv,
      PORT: String(port),
      HOST: "127.0.0.1",
      SERVER_PROCESSES: String(processes),
    });
    server.stdout?.resume();
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, server);
    const deps = searchDeps(app);
    for (const [scenario, paths] of Object.entries(scenarios)) {
      const measured = await serverBesideBare(url, paths, { processes, connections, durationSeconds });
      if (engine === "meilisearch" && JSON.parse(measured.body.toString()).retrieval_degraded) {
        throw new Error("the Meilisearch server answered from its fallback");
      }
      const { server: serverFigure, bare: bareFigure } = measured;
      const searchOnce = async (iteration: number) => {
        const target = new URL(paths[iteration % paths.length] ?? "/", url);
        await searchRegistry(deps, searchQuerySchema.parse(Object.fromEntries(target.searchParams)));
      };
      // The bench's figure: 2,000 calls cycling through the scenario's queries, so each distinct
      // query's first call (cold pages, its result cards built) is among them; then each query's
      // first call alone and its later calls alone, measured on an engine that has not seen them.
      const domain = await timeInProcess(searchOnce, 2000);
      const coldApp = createApp(loadConfig(engineEnv));
      const coldDeps = searchDeps(coldApp);
      const coldOnce = async (iteration: number) => {
        const target = new URL(paths[iteration % paths.length] ?? "/", url);
        await searchRegistry(coldDeps, searchQuerySchema.parse(Object.fromEntries(target.searchParams)));
      };
      const firstCalls = await timeInProcess(coldOnce, paths.length);
      const laterCalls = await timeInProcess(coldOnce, 2000 - paths.length);
      coldApp.close();
      rows.push({ size, engine, scenario, server: serverFigure, bare: bareFigure, domain, firstCalls, laterCalls });
      process.stdout.write(
        `${engine} ${scenario}: ${serverFigure.requestsPerSecond} req/s (p50 ${serverFigure.p50Ms} ms, p99 ${serverFigure.p99Ms} ms) vs bare ${bareFigure.requestsPerSecond} req/s; domain p50 ${domain.p50Ms} ms, p99 ${domain.p99Ms} ms; first calls p50/p99 ${firstCalls.p50Ms}/${firstCalls.p99Ms} ms, later ${laterCalls.p50Ms}/${laterCalls.p99Ms} ms\n`,
      );
    }
    const memory = serverMemory(server.pid ?? 0);
    notes.push(
      `${engine} server at ${size} merchants after load: ${memory.processes.map((one) => `${one.rss} MB (peak ${one.peak} MB)`).join(", ")} RSS per process`,
    );
    if (engine === "meilisearch") notes.push(`lag after a burst of ${BURST} changes: ${await burstLag(url, dataDir)}`);
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
  if (meili) {
    const { rss, peak } = rssMegabytes(meili.pid);
    notes.push(`Meilisearch RSS at ${size} merchants after load: ${rss} MB (peak ${peak} MB)`);
  }
  embeddedApp.close();
  meiliApp?.close();
  await meili?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Changes BURST merchants in one transaction (their description), as an import would, and
 * follows /api/health until the server's follower has applied them: the lag it saw at first, and
 * how long catching up took.
 */
async function burstLag(url: string, dataDir: string): Promise<string> {
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  const ids = db.$client
    .prepare("SELECT ab_id FROM merchants WHERE status = 'ACTIVE' ORDER BY ab_id DESC LIMIT ?")
    .pluck()
    .all(BURST) as string[];
  const update = db.$client.prepare("UPDATE merchants SET description = description || ' ' WHERE ab_id = ?");
  const started = performance.now();
  db.transaction(() => {
    for (const abId of ids) update.run(abId);
  });
  db.$client.close();
  let first: number | null = null;
  for (;;) {
    const health = (await (await fetch(`${url}/api/health`)).json()) as {
      data: { search: { lag: { merchants: number } | null } };
    };
    const lag = health.data.search.lag?.merchants ?? null;
    first ??= lag;
    if (lag === 0) break;
    if (performance.now() - started > 300_000) return `not caught up after 300 s (lag ${lag})`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = round((performance.now() - started) / 1000, 1);
  return `${first} merchants behind at first, in step after ${seconds} s (health read at most once a second)`;
}

const report = [
  `# Search bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}; servers with ${processes} process(es), ${connections} connections, ${durationSeconds} s per figure, autocannon over loopback. Meilisearch 1.21.0 (community binary) on the same cores.`,
  "Bare node:http serves the same response bytes with as many processes in the same run; domain-only is searchRegistry in-process (index, cards, answer) without HTTP, over 2,000 calls cycling through the scenario's distinct queries (their first calls included); first and later calls: the same queries on a fresh engine, each query's first call apart from its later ones. The machine is shared with other work: figures move by tens of percent between runs.",
  "",
  ...markdownTable(
    [
      "merchants",
      "engine",
      "scenario",
      "server req/s",
      "bare req/s",
      "ratio",
      "p50 ms",
      "p99 ms",
      "bare p99 ms",
      "domain p50 ms",
      "domain p99 ms",
      "first calls p50/p99 ms",
      "later calls p50/p99 ms",
      "errors",
    ],
    rows.map((row) => [
      row.size,
      row.engine,
      row.scenario,
      row.server.requestsPerSecond,
      row.bare.requestsPerSecond,
      round(row.server.requestsPerSecond / Math.max(1, row.bare.requestsPerSecond), 3),
      row.server.p50Ms,
      row.server.p99Ms,
      row.bare.p99Ms,
      row.domain.p50Ms,
      row.domain.p99Ms,
      `${row.firstCalls.p50Ms} / ${row.firstCalls.p99Ms}`,
      `${row.laterCalls.p50Ms} / ${row.laterCalls.p99Ms}`,
      row.server.errors + row.server.non2xx,
    ]),
  ),
  "",
  ...notes.map((note) => `- ${note}`),
  "",
].join("\n");
writeReport("search", report, { rows, notes });
process.exit(0);
