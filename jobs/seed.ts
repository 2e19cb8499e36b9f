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
 * the registry already holds merchants or DEMO_SEED_COUNT is 0; `--if-empty` first records or
 * checks the machine's secrets and signing keys (jobs/shared-files.ts; on PostgreSQL with the
 * migrations, jobs/prepare-postgres.ts) and then brings the search index in step with the store
 * (jobs/search-catch-up.ts).
 *
 * Exit status:
 *   0  done: the counts on stdout
 *   1  refused: the registry already holds merchants (without --force), or the seeding failed
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Config, loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { startOfToday } from "../src/seed/demo-day.ts";
import type { SeedProgress, SeedSummary } from "../src/seed/seed-demo.ts";
import { openDatabase } from "../src/store/db.ts";
import { isRegistryEmpty } from "../src/store/registry-maintenance.ts";
import {
  CommandError,
  EXIT_DONE,
  EXIT_FAILED,
  runCommand,
  USAGE_STATUS,
  UsageError,
  wholeNumberOption,
} from "./cli.ts";
import { registryPortsOf, withJobStore } from "./job-store.ts";
import { type ProgressBar, progressBar } from "./progress.ts";
import { catchUpSearchIndex } from "./search-catch-up.ts";
import { checkSharedFiles, SharedFilesError } from "./shared-files.ts";

/** A bar for each phase of the seeding, one after the other (jobs/progress.ts). */
function progressReporter(): { report: (progress: SeedProgress) => void; end: () => void } {
  const label: Record<SeedProgress["phase"], string> = {
    files: "demo files",
    sirene: "SIRENE import",
    declarations: "declarations",
    observations: "observations",
    lifecycle: "lifecycle",
    search_index: "search index",
  };
  let current: { phase: SeedProgress["phase"]; bar: ProgressBar } | null = null;
  return {
    report({ phase, done, total }) {
      if (current?.phase !== phase) {
        current?.bar.end();
        current = { phase, bar: progressBar({ label: label[phase].padEnd(14), unit: "merchants" }) };
      }
      current.bar.update(done, total);
    },
    end: () => current?.bar.end(),
  };
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

const SEED_COMMAND = {
  name: "seed",
  usage: ["npm run seed -- [--count N] [--seed S] [--now ISO-8601] [--force] [--keep-files]"],
  notes: [
    "Seeds the demo registry into DATA_DIR through the imports (SIRENE, declarations, observations,",
    "BODACC), with a progress bar. Defaults: DEMO_SEED_COUNT merchants, DEMO_SEED, now at the start",
    "of the current UTC day. A registry that holds merchants is left alone unless --force, which",
    "clears it first. --keep-files leaves the generated files in DATA_DIR/demo/.",
  ],
  options: {
    count: { type: "string" },
    seed: { type: "string" },
    now: { type: "string" },
    force: { type: "boolean", default: false },
    "keep-files": { type: "boolean", default: false },
    // `npm start`'s seeding, in a process of its own (jobs/start.ts).
    "if-empty": { type: "boolean", default: false },
  },
  exitStatuses: [
    [EXIT_DONE, "done: the counts on stdout"],
    [EXIT_FAILED, "refused: the registry already holds merchants (without --force), or the seeding failed"],
    USAGE_STATUS,
  ],
} as const;

/** The options as read from the command line (SEED_COMMAND.options). */
interface SeedOptions {
  count?: string | undefined;
  seed?: string | undefined;
  now?: string | undefined;
  force: boolean;
  "keep-files": boolean;
  "if-empty": boolean;
}

async function main(values: SeedOptions): Promise<void> {
  const count = values.count === undefined ? undefined : wholeNumberOption("count", values.count, 0, 10_000_000);
  const seed =
    values.seed === undefined
      ? undefined
      : wholeNumberOption("seed", values.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const now = values.now === undefined ? startOfToday() : new Date(values.now);
  if (Number.isNaN(now.getTime())) throw new UsageError("--now must be an ISO-8601 date-time");
  const config = loadConfig();
  if (values["if-empty"]) {
    if (config.postgres) {
      const { preparePostgresStore } = await import("./prepare-postgres.ts");
      await preparePostgresStore({ ...config, postgres: config.postgres });
      return;
    }
    // The machine's secrets and signing keys: made and recorded on a new deployment, checked on
    // every later start (jobs/shared-files.ts), before anything is seeded or served.
    await withJobStore(config, "start", (store) => checkSharedFiles(store.deploymentFiles, config)).catch(
      (error: unknown) => {
        throw error instanceof SharedFilesError ? new CommandError(error.message) : error;
      },
    );
    await seedIfEmpty(config);
    // The search index in step before any server process serves; an index with no whole
    // generation (an earlier version's format) is built by the server's follower while it serves
    // (src/search/embedded/index.ts): at national size that build takes minutes.
    await withJobStore(config, "start", (store) => catchUpSearchIndex(store, "start", { build: false }));
    return;
  }
  const seedCount = count ?? config.demoSeedCount;
  const seedValue = seed ?? config.demoSeed;

  await withJobStore(config, "seed", async (store) => {
    const { registry, maintenance } = registryPortsOf(store);
    if (!(await maintenance.isEmpty())) {
      if (!values.force) {
        const where = store.engine === "sqlite" ? config.databaseFile : "the PostgreSQL database (DATABASE_URL)";
        throw new CommandError(`${where} already holds merchants; pass --force to clear and reseed`);
      }
      const deleted = Object.entries(await maintenance.clear())
        .filter(([, rows]) => rows > 0)
        .map(([table, rows]) => `${table} ${rows}`);
      process.stderr.write(`Cleared the existing registry (${deleted.join(", ") || "nothing"})\n`);
    }
    const started = performance.now();
    const { seedDemoRegistryInto } = await import("../src/seed/seed-demo.ts");
    const progress = progressReporter();
    // On SQLite the embedded search index (DATA_DIR/search-index/) is built with the seed; on
    // PostgreSQL each server's own index follows the shared feed (docs/several-machines.md).
    const sqlite = store.engine === "sqlite" ? store.db : null;
    const summary = await seedDemoRegistryInto(
      { registry, maintenance, sqlite },
      {
        count: seedCount,
        seed: seedValue,
        now,
        dataDir: config.dataDir,
        keepFiles: values["keep-files"],
        onProgress: progress.report,
      },
    );
    progress.end();
    const seconds = (performance.now() - started) / 1000;
    const lines = [
      `Seeded ${summary.merchants} merchants (seed ${seedValue}, now ${now.toISOString()}) in ${seconds.toFixed(1)} s`,
      `  products: ${summary.products}`,
      `  signals:  ${summary.signals}`,
      `  clusters: ${summary.clusters} (${summary.nodes} Q&A nodes)`,
      `  search index: ${summary.searchIndexRebuilt ? "rebuilt" : "not rebuilt"}`,
      `  roster: ${summary.rosterFile ?? "not written"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  });
}

// Run as a command (`node jobs/seed.ts`), not when imported by jobs/start.ts.
const invokedAs = process.argv[1] ? path.resolve(process.argv[1]) : "";
if (
  invokedAs &&
  (existsSync(invokedAs) ? realpathSync(invokedAs) : invokedAs) === realpathSync(fileURLToPath(import.meta.url))
) {
  await runCommand(SEED_COMMAND, ({ values }) => main(values));
}
