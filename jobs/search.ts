/**
 * Operator command for the search engine (the one the server uses: Meilisearch when
 * MEILISEARCH_URL is set, the embedded index otherwise).
 *
 *   npm run search -- status     the engine, its state and its lag (as /api/health reports them)
 *   npm run search -- sync       records the trust changes since the last sweep (trust-sweep.ts), applies
 *                                the store's changes since the engine's cursor, then exits
 *   npm run search -- rebuild    a full build, with a progress bar; on Meilisearch, into a new index
 *                                swapped in at the end (searches keep the old one meanwhile)
 *   npm run search -- cards      brings the search result cards kept in the store in step (a full
 *                                build, with a progress bar, for a new registry or new code), so
 *                                that the server does not build them at its start
 *
 * Exit status:
 *   0  done
 *   1  the engine failed: it did not answer, or refused the work (the reason on stderr)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { type Config, loadConfig } from "../src/config/config.ts";
import { createSearchCardKeeper } from "../src/domain/registry/keep-search-cards.ts";
import { sweepTrustChanges } from "../src/domain/trust/trust-sweep.ts";
import { setLogLevel } from "../src/logging.ts";
import { processCardCode } from "../src/publish/code-key.ts";
import {
  createSearchEngine,
  type EmbeddedIndex,
  postgresSearchPorts,
  sqliteSearchPorts,
} from "../src/search/engine.ts";
import { createSearchFollower } from "../src/search/follower.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";
import { withJobStore } from "./job-store.ts";
import { isPostgresRefusal } from "./postgres-refusal.ts";
import { progressBar } from "./progress.ts";
import { printable } from "./terminal.ts";

const COMMANDS = ["status", "sync", "rebuild", "cards"] as const;
type SearchCommand = (typeof COMMANDS)[number];

await runCommand(
  {
    name: "search",
    usage: COMMANDS.map((command) => `npm run search -- ${command}`),
    notes: [
      "status: the engine, its state (ready, building, not_built, catching_up, unavailable) and its lag",
      "sync: records the trust that moved by itself since the last sweep, then applies the store's changes",
      "since the engine's cursor; rebuild: a full build, with a",
      "progress bar; cards: brings the search result cards kept in the store in step.",
      "The engine is Meilisearch when MEILISEARCH_URL is set, the embedded index otherwise.",
    ],
    options: {},
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "done"],
      [EXIT_FAILED, "the engine failed: it did not answer, or refused the work (the reason on stderr)"],
      USAGE_STATUS,
    ],
  },
  async ({ positionals }) => {
    const [command, ...extra] = positionals;
    if (!COMMANDS.includes(command as SearchCommand)) {
      throw new UsageError(
        command === undefined
          ? `no command: ${COMMANDS.join(", ")}`
          : `unknown command ${printable(command)}: ${COMMANDS.join(", ")}`,
      );
    }
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${printable(extra.join(" "))}`);
    await run(command as SearchCommand);
  },
);

async function run(command: SearchCommand): Promise<void> {
  const config = loadConfig();
  setLogLevel("warn");
  await withJobStore(config, "search", (store) => runOn(store, config, command));
}

/** The command over the store it opened (SQLite's file, or PostgreSQL with DATABASE_URL). */
async function runOn(store: OpenedStore, config: Config, command: SearchCommand): Promise<void> {
  const now = () => new Date();
  // The embedded index is this machine's own folder, DATA_DIR/search-index/ (on PostgreSQL it
  // follows the shared feed); Meilisearch is fed from the store's reads (docs/search.md).
  const ports =
    store.engine === "sqlite"
      ? sqliteSearchPorts(store.db, { now })
      : postgresSearchPorts(store.pool, { dataDir: config.dataDir, now });
  const engine = createSearchEngine<EmbeddedIndex>(ports, config, { now });
  const name = engine.meilisearch ? `Meilisearch (${config.meilisearch?.url})` : "the embedded index";
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  try {
    if (command === "status") {
      process.stdout.write(`${JSON.stringify(await engine.health(), null, 2)}\n`);
    } else if (command === "sync") {
      // Trust that moved by itself (a signal's expiry) is a change of the feed once swept.
      await sweepTrustChanges({ store: store.trustSweep, merchants: store.merchants, now });
      const status = await engine.follower.syncOnce();
      if (status.state === "unavailable") throw new Error(status.lastError ?? `${name} could not be brought in step`);
      process.stdout.write(`${name} is in step with the store at revision ${status.cursor}.\n`);
    } else if (command === "cards") {
      // The key `npm start` gives the server processes (jobs/start.ts): the same sources, the same key.
      const code = processCardCode();
      if (!code) throw new CommandError("the sources under src/ were not found: run this from the project");
      const bar = progressBar({ label: "search cards", unit: "merchants" });
      const keeper = createSearchFollower({
        engine: createSearchCardKeeper({
          merchants: store.merchants,
          keptCards: store.keptCards,
          orderRailEnabled: config.publicOrderRailEnabled,
          cardCode: () => code,
          now: () => new Date(),
        }),
        feed: store.searchFeed,
        onProgress: (done, total) => bar.update(done, total),
      });
      const status = await keeper.syncOnce();
      bar.end();
      if (status.state !== "ready") throw new Error(status.lastError ?? "the cards could not be kept");
      process.stdout.write(
        `The search cards are in step with the store at revision ${status.cursor} (${elapsed()}).\n`,
      );
    } else {
      const bar = progressBar({ label: "search index", unit: "merchants" });
      await (engine.meilisearch ?? engine.embedded).rebuild((done, total) => bar.update(done, total));
      bar.end();
      process.stdout.write(`Rebuilt ${name} in ${elapsed()}.\n`);
    }
  } catch (error) {
    // PostgreSQL not answering: said in one line by withJobStore.
    if (error instanceof CommandError || isPostgresRefusal(error)) throw error;
    // The engine's own failure (Meilisearch down, a refused task): said, not a stack trace.
    throw new CommandError(`${command} failed: ${printable(error instanceof Error ? error.message : String(error))}`);
  }
}
