/**
 * Measures the embedded search index: rebuild time and per-query domain time (search() alone,
 * no HTTP) on a registry of N merchants in a temporary DATA_DIR.
 *
 *   node bench/search-bench.ts [count=100000] [--fixture] [--store=copy-of-this.db] [--keep=save-as.db] [--rebuild]
 *
 * Uses the demo seed generator (src/seed/seed-demo.ts) when it exists, unless --fixture is given;
 * otherwise bench/search-fixture.ts. Not a test: it prints figures.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createEmbeddedSearchIndex } from "../src/search/embedded/index.ts";
import type { SearchQuery } from "../src/search/search-index.ts";
import { type Db, openDatabase } from "../src/store/db.ts";
import { generateSearchFixture } from "./search-fixture.ts";

const args = process.argv.slice(2);
const count = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 100_000);
const forceFixture = args.includes("--fixture");
const keepAs = args.find((arg) => arg.startsWith("--keep="))?.slice("--keep=".length);
const storeCopy = args.find((arg) => arg.startsWith("--store="))?.slice("--store=".length);
const now = new Date("2026-06-01T00:00:00Z");

const LYON = { lat: 45.764, lng: 4.8357 };
const PARIS = { lat: 48.8566, lng: 2.3522 };

const queries: [label: string, query: SearchQuery][] = [
  ["boulangerie", { text: "boulangerie", tags: [], near: null, limit: 10 }],
  ["plombier paris", { text: "plombier paris", tags: [], near: null, limit: 10 }],
  [
    "coiffure near Lyon 10 km + tag",
    { text: "coiffure", tags: ["balayage"], near: { ...LYON, radiusKm: 10 }, limit: 10 },
  ],
  ["coiffure near Lyon 10 km", { text: "coiffure", tags: [], near: { ...LYON, radiusKm: 10 }, limit: 10 }],
  ["Plombiers à Lyon (limit 50)", { text: "Plombiers à Lyon", tags: [], near: null, limit: 50 }],
  ["boulan (prefix)", { text: "boulan", tags: [], near: null, limit: 10 }],
  ["restaurant near Paris 10 km", { text: "restaurant", tags: [], near: { ...PARIS, radiusKm: 10 }, limit: 10 }],
  ["qualité (very common word)", { text: "qualité", tags: [], near: null, limit: 10 }],
  ["quali (prefix of a very common word)", { text: "quali", tags: [], near: null, limit: 10 }],
  ["pa (2-letter prefix)", { text: "pa", tags: [], near: null, limit: 10 }],
  [
    "tags only: installation + depannage",
    { text: "de la", tags: ["installation", "depannage"], near: null, limit: 10 },
  ],
  [
    "tags + point: fait-maison, Paris 10 km",
    { text: "", tags: ["fait-maison"], near: { ...PARIS, radiusKm: 10 }, limit: 10 },
  ],
  ["geo only: Paris 5 km", { text: "le", tags: [], near: { ...PARIS, radiusKm: 5 }, limit: 10 }],
  ["75011", { text: "75011", tags: [], near: null, limit: 10 }],
  ["hostile 2,000 chars", { text: `"*NEAR( OR -^:{} '${"x".repeat(1_950)}`, tags: [], near: null, limit: 10 }],
];

async function seed(db: Db): Promise<string> {
  const seedModule = fileURLToPath(new URL("../src/seed/seed-demo.ts", import.meta.url));
  if (!forceFixture && existsSync(seedModule)) {
    const loaded: unknown = await import(seedModule);
    const seedDemoRegistry =
      typeof loaded === "object" && loaded !== null && "seedDemoRegistry" in loaded ? loaded.seedDemoRegistry : null;
    if (typeof seedDemoRegistry === "function") {
      // The index is left to this script (searchIndex: null), so that its rebuild is timed alone.
      await seedDemoRegistry(db, { count, seed: 42, now, searchIndex: null, rosterFile: null });
      return "src/seed/seed-demo.ts";
    }
  }
  generateSearchFixture(db, count, 42);
  return "bench/search-fixture.ts";
}

/** Bytes of the files directly in a folder (the index's catalog and generations). */
function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "abeille-search-bench-"));
  const file = path.join(dataDir, "abeille.db");
  try {
    if (storeCopy) copyFileSync(storeCopy, file);
    const db = openDatabase(file);
    let started = performance.now();
    const source = storeCopy ? storeCopy : await seed(db);
    const seedMs = performance.now() - started;
    const sqlite = db.$client;
    const countOf = (table: string): number => sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    console.log(
      `registry: ${countOf("merchants")} merchants, ${countOf("products")} products, ${countOf("signals")} signals (${source}, ${(seedMs / 1000).toFixed(1)} s)`,
    );

    const index = createEmbeddedSearchIndex(db, { now: () => now });
    if (index.needsRebuild() || args.includes("--rebuild")) {
      started = performance.now();
      const cpuBefore = process.cpuUsage();
      let lastReport = 0;
      await index.rebuild((done, total) => {
        if (done - lastReport >= 20_000 || done === total) {
          lastReport = done;
          console.log(`  rebuild ${done}/${total} at ${((performance.now() - started) / 1000).toFixed(1)} s`);
        }
      });
      const rebuildMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      sqlite.pragma("wal_checkpoint(TRUNCATE)");
      console.log(
        `rebuild: ${(rebuildMs / 1000).toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, index ${(folderBytes(index.dir) / 1e6).toFixed(0)} MB (${index.dir})`,
      );
    } else {
      console.log("index already built in the given store copy: rebuild skipped (--rebuild to force)");
    }

    const sample = sqlite.prepare("SELECT ab_id FROM merchants ORDER BY ab_id LIMIT 100").pluck().all() as string[];
    started = performance.now();
    await index.refresh(sample);
    console.log(`refresh of 100 merchants: ${(performance.now() - started).toFixed(1)} ms`);

    console.log(
      `load average: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(" ")} on ${availableParallelism()} cores`,
    );
    console.log("\nquery: search() domain time, 200 runs after 20 warm-up   CPU/query  wall median  wall p95  hits");
    for (const [label, query] of queries) {
      for (let run = 0; run < 20; run += 1) index.search(query);
      const times: number[] = [];
      let hits = 0;
      const cpuStart = process.cpuUsage();
      for (let run = 0; run < 200; run += 1) {
        const start = performance.now();
        hits = index.search(query).hits.length;
        times.push(performance.now() - start);
      }
      const cpuUsed = process.cpuUsage(cpuStart);
      times.sort((a, b) => a - b);
      const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000 / 200;
      console.log(
        `${label.padEnd(56)} ${cpuMs.toFixed(2).padStart(9)} ${percentile(times, 50).toFixed(2).padStart(12)} ${percentile(times, 95).toFixed(2).padStart(9)} ${String(hits).padStart(5)}`,
      );
    }
    if (keepAs) {
      sqlite.pragma("wal_checkpoint(TRUNCATE)");
      copyFileSync(file, keepAs);
    }
    index.close();
    sqlite.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
