/**
 * Seeds the demo registry into DATA_DIR.
 *
 *   npm run seed -- [--count N] [--seed S] [--now ISO-8601] [--force] [--keep-files]
 *
 * The demo comes in through the same door as real merchants: the generator writes SIRENE's files,
 * the declarations, the platform's observations and BODACC's announcements in DATA_DIR/demo/, the
 * imports read them and the lifecycle commands set each merchant's status. --keep-files leaves
 * those files in place (they are removed once imported).
 *
 * Defaults: DEMO_SEED_COUNT merchants, DEMO_SEED, and `now` at the start of the current UTC day
 * (so seeding twice the same day writes the same registry). A registry that already holds
 * merchants is left alone unless --force is given, which clears it first.
 *
 * `seedIfEmpty(config)` (`--if-empty`) is the same seeding for `npm start`: it does nothing when
 * the registry already holds merchants or DEMO_SEED_COUNT is 0; `--if-empty` then brings the
 * search index in step with the store (jobs/search-catch-up.ts).
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Config, loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import type { SeedProgress, SeedSummary } from "../src/seed/seed-demo.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { clearRegistry, isRegistryEmpty } from "../src/store/registry-maintenance.ts";
import { catchUpSearchIndex } from "./search-catch-up.ts";

function fail(message: string): never {
  process.stderr.write(`seed: ${message}\n`);
  process.exit(1);
}

function integerOption(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < min) fail(`--${name} must be an integer of at least ${min}`);
  return parsed;
}

function progressReporter(started: number): (progress: SeedProgress) => void {
  const tty = process.stderr.isTTY === true;
  const label: Record<SeedProgress["phase"], string> = {
    files: "demo files",
    sirene: "SIRENE import",
    declarations: "declarations",
    observations: "observations",
    lifecycle: "lifecycle",
    search_index: "search index",
  };
  let lastLine = -1;
  let lastPhase: SeedProgress["phase"] | null = null;
  return ({ phase, done, total }) => {
    const ratio = total > 0 ? done / total : 1;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (tty) {
      const width = 30;
      const filled = Math.round(ratio * width);
      const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
      if (lastPhase !== null && lastPhase !== phase) process.stderr.write("\n");
      process.stderr.write(
        `\r${label[phase].padEnd(14)} [${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ` +
          `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}  ${seconds}s\x1b[K`,
      );
    } else {
      // One line per tenth, plus the end of each phase.
      const tenth = Math.floor(ratio * 10);
      if (tenth !== lastLine || phase !== lastPhase) {
        process.stderr.write(`${label[phase]}: ${done}/${total} (${Math.floor(ratio * 100)}%) ${seconds}s\n`);
        lastLine = tenth;
      }
    }
    lastPhase = phase;
  };
}

/** Midnight UTC of the current day: the default `now` of a demo registry. */
function startOfToday(): Date {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  return today;
}

/** Seeds DEMO_SEED_COUNT merchants when the registry is empty; returns null when nothing was done. */
export async function seedIfEmpty(config: Config): Promise<SeedSummary | null> {
  if (config.demoSeedCount <= 0) return null;
  const db = openDatabase(config.databaseFile);
  try {
    if (!isRegistryEmpty(db)) return null;
    // The generator and its content tables load only when there is something to seed: `npm start`'s
    // primary process keeps what it imports for as long as the server runs.
    const { seedDemoRegistry } = await import("../src/seed/seed-demo.ts");
    const started = performance.now();
    logger.info("seeding demo registry", { count: config.demoSeedCount, seed: config.demoSeed });
    const summary = await seedDemoRegistry(db, {
      count: config.demoSeedCount,
      seed: config.demoSeed,
      now: startOfToday(),
      dataDir: config.dataDir,
    });
    logger.info("demo registry seeded", {
      merchants: summary.merchants,
      products: summary.products,
      signals: summary.signals,
      clusters: summary.clusters,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    });
    return summary;
  } finally {
    db.$client.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: "string" },
      seed: { type: "string" },
      now: { type: "string" },
      force: { type: "boolean", default: false },
      "keep-files": { type: "boolean", default: false },
      // `npm start`'s seeding, in a process of its own (jobs/start.ts).
      "if-empty": { type: "boolean", default: false },
    },
    strict: true,
  });
  const config = loadConfig();
  if (values["if-empty"]) {
    await seedIfEmpty(config);
    // The search index in step before any server process serves: an index without a cursor (built
    // by an earlier version) is built here in full, not on a thread that answers requests.
    const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
    try {
      await catchUpSearchIndex(db, "start");
    } finally {
      db.$client.close();
    }
    return;
  }
  const count = integerOption(values.count, "count", config.demoSeedCount, 0);
  const seed = integerOption(values.seed, "seed", config.demoSeed, Number.MIN_SAFE_INTEGER);
  const now = values.now === undefined ? startOfToday() : new Date(values.now);
  if (Number.isNaN(now.getTime())) fail("--now must be an ISO-8601 date-time");

  const db = openDatabase(config.databaseFile);
  try {
    if (!isRegistryEmpty(db)) {
      if (!values.force) fail(`${config.databaseFile} already holds merchants; pass --force to clear and reseed`);
      const deleted = Object.entries(clearRegistry(db))
        .filter(([, rows]) => rows > 0)
        .map(([table, rows]) => `${table} ${rows}`);
      process.stderr.write(`Cleared the existing registry (${deleted.join(", ") || "nothing"})\n`);
    }
    const started = performance.now();
    const tty = process.stderr.isTTY === true;
    const { seedDemoRegistry } = await import("../src/seed/seed-demo.ts");
    const summary = await seedDemoRegistry(db, {
      count,
      seed,
      now,
      dataDir: config.dataDir,
      keepFiles: values["keep-files"],
      onProgress: progressReporter(started),
    });
    if (tty) process.stderr.write("\n");
    const seconds = (performance.now() - started) / 1000;
    const lines = [
      `Seeded ${summary.merchants} merchants (seed ${seed}, now ${now.toISOString()}) in ${seconds.toFixed(1)} s`,
      `  products: ${summary.products}`,
      `  signals:  ${summary.signals}`,
      `  clusters: ${summary.clusters} (${summary.nodes} Q&A nodes)`,
      `  search index: ${summary.searchIndexRebuilt ? "rebuilt" : "not rebuilt"}`,
      `  roster: ${summary.rosterFile ?? "not written"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    db.$client.close();
  }
}

// Run as a command (`node jobs/seed.ts`), not when imported by jobs/start.ts.
const invokedAs = process.argv[1] ? path.resolve(process.argv[1]) : "";
if (
  invokedAs &&
  (existsSync(invokedAs) ? realpathSync(invokedAs) : invokedAs) === realpathSync(fileURLToPath(import.meta.url))
) {
  main().catch((error: unknown) => {
    process.stderr.write(`seed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
