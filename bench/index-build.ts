/**
 * The embedded search index's full build (issue 35, item 2) on a kept registry, e.g. one that
 * `node bench/national.ts --rows N --keep` imported (its DATA_DIR/abeille.db): a new generation,
 * in a folder of its own, built in this process from the store's keyset pages, while
 * - a writer in a process of its own asks for the store's write lock every 20 ms
 *   (test/helpers/lock-probe.ts): the longest it waited;
 * - this process's event loop is watched (perf_hooks monitorEventLoopDelay): the longest the
 *   build held the thread between two turns (what a server's requests would wait);
 * - a search runs every 100 ms against the generation being built (its latency, what it says).
 * With --kill-at F the build is stopped once a fraction F of the merchants is in (the process
 * that builds is not killed: the build is given up, as a kill leaves it) and a second build goes
 * on from there; both are timed.
 *
 * Prints and writes bench/results/index-build-latest.{md,json}: wall and CPU time, peak RSS of
 * this process, the index's size on disk, the longest lock wait, the longest event-loop delay,
 * the searches during the build.
 *
 *   node bench/index-build.ts --store DATA_DIR/abeille.db [--kill-at 0.5]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createLocalSearchIndex } from "../src/search/embedded/index.ts";
import type { SearchQuery } from "../src/search/search-index.ts";
import { createSearchSource } from "../src/search/source.ts";
import { openDatabase } from "../src/store/db.ts";
import { machineLine, markdownTable, percentile, round, writeReport } from "./lib.ts";

const { values } = parseArgs({
  options: { store: { type: "string" }, "kill-at": { type: "string" } },
});
if (!values.store) throw new Error("usage: bench/index-build.ts --store DATA_DIR/abeille.db [--kill-at 0.5]");
const storeFile = path.resolve(values.store);
const killAt = values["kill-at"] === undefined ? null : Number(values["kill-at"]);
const root = path.resolve(import.meta.dirname, "..");

const db = openDatabase(storeFile);
const dir = mkdtempSync(path.join(path.dirname(storeFile), "index-build-bench-"));
const queries: SearchQuery[] = ["boulangerie", "coiffure lyon", "plombier 75011", "restaurant", "pharmacie"].map(
  (text) => ({ text, tags: [], near: null, limit: 10 }),
);

function startProbe(): { child: ChildProcess; result: Promise<{ longestWaitMs: number; gaveUp: number }> } {
  const child = spawn(process.execPath, [path.join(root, "test/helpers/lock-probe.ts"), storeFile, "60000"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const result = new Promise<{ longestWaitMs: number; gaveUp: number }>((resolve) =>
    child.on("exit", () => resolve(JSON.parse(output.trim().split("\n").at(-1) ?? "{}"))),
  );
  return { child, result };
}

interface BuildRun {
  name: string;
  wallSeconds: number;
  cpuSeconds: number;
  done: number;
  total: number;
  longestLoopDelayMs: number;
  searches: number;
  searchP50Ms: number;
  searchP99Ms: number;
  degraded: number;
}

async function timedBuild(name: string, stopAt: number | null): Promise<BuildRun> {
  const index = createLocalSearchIndex(dir, createSearchSource(db));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const searchTimes: number[] = [];
  let degraded = 0;
  let turn = 0;
  const searching = setInterval(() => {
    const query = queries[turn++ % queries.length] as SearchQuery;
    const started = performance.now();
    const page = index.search(query);
    searchTimes.push(performance.now() - started);
    if (page.degraded === "index_building") degraded += 1;
  }, 100);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let last = { done: 0, total: 0 };
  let reported = 0;
  try {
    await index.rebuild((done, total) => {
      last = { done, total };
      if (done - reported >= 50_000) {
        reported = done;
        process.stdout.write(`  ${name}: ${done}/${total} at ${round((performance.now() - started) / 1000, 1)} s\n`);
      }
      if (stopAt !== null && done >= stopAt * total) throw new Error("given up");
    });
  } catch (error) {
    if (!(error instanceof Error) || error.message !== "given up") throw error;
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(searching);
  loop.disable();
  index.close();
  searchTimes.sort((a, b) => a - b);
  return {
    name,
    wallSeconds: round(wallSeconds, 1),
    cpuSeconds: round((used.user + used.system) / 1e6, 1),
    ...last,
    longestLoopDelayMs: round(loop.max / 1e6, 0),
    searches: searchTimes.length,
    searchP50Ms: round(percentile(searchTimes, 0.5), 2),
    searchP99Ms: round(percentile(searchTimes, 0.99), 2),
    degraded,
  };
}

const probe = startProbe();
const runs: BuildRun[] = [];
try {
  if (killAt !== null) runs.push(await timedBuild(`build given up at ${killAt}`, killAt));
  runs.push(await timedBuild(killAt !== null ? "build resumed" : "full build", null));
} finally {
  probe.child.kill("SIGTERM");
}
const lock = await probe.result;
const bytes = readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
const peakRssMb = round(process.resourceUsage().maxRSS / 1024, 0);
rmSync(dir, { recursive: true, force: true });
db.$client.close();

const report = [
  `# The embedded index's full build (${new Date().toISOString()})`,
  "",
  machineLine(),
  `Store: ${storeFile}`,
  "",
  ...markdownTable(
    [
      "run",
      "merchants read",
      "wall s",
      "CPU s",
      "longest event-loop delay ms",
      "searches during it",
      "p50 ms",
      "p99 ms",
      "flagged index_building",
    ],
    runs.map((run) => [
      run.name,
      `${run.done}/${run.total}`,
      run.wallSeconds,
      run.cpuSeconds,
      run.longestLoopDelayMs,
      run.searches,
      run.searchP50Ms,
      run.searchP99Ms,
      run.degraded,
    ]),
  ),
  "",
  `Peak RSS of the building process: ${peakRssMb} MB. Index on disk: ${round(bytes / 1e6, 0)} MB.`,
  `The longest a writer beside the build waited for the store's write lock: ${lock.longestWaitMs} ms.`,
  "",
].join("\n");
writeReport("index-build", report, { store: storeFile, runs, peakRssMb, indexBytes: bytes, lock });
