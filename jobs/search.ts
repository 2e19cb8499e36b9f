/**
 * Operator command for the search engine (the one the server uses: Meilisearch when
 * MEILISEARCH_URL is set, the embedded index otherwise).
 *
 *   npm run search -- status     the engine, its state and its lag (as /api/health reports them)
 *   npm run search -- sync       applies the store's changes since the engine's cursor, then exits
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
import { loadConfig } from "../src/config/config.ts";
import { createSearchCardKeeper } from "../src/domain/registry/keep-search-cards.ts";
import { setLogLevel } from "../src/logging.ts";
import { processCardCode } from "../src/publish/code-key.ts";
import { createSearchEngine, sqliteSearchPorts } from "../src/search/engine.ts";
import { createSearchFollower } from "../src/search/follower.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRepository } from "../src/store/merchant-repository.ts";
import { createSearchCardStore } from "../src/store/search-card-store.ts";
import { createSearchFeed } from "../src/store/search-feed.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";
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
      "sync: applies the store's changes since the engine's cursor; rebuild: a full build, with a",
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
  const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
  const now = () => new Date();
  const engine = createSearchEngine(sqliteSearchPorts(db, { now }), config, { now });
  const name = engine.meilisearch ? `Meilisearch (${config.meilisearch?.url})` : "the embedded index";
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  try {
    if (command === "status") {
      process.stdout.write(`${JSON.stringify(await engine.health(), null, 2)}\n`);
    } else if (command === "sync") {
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
          merchants: createMerchantRepository(db),
          keptCards: createSearchCardStore(db),
          orderRailEnabled: config.publicOrderRailEnabled,
          cardCode: () => code,
          now: () => new Date(),
        }),
        feed: createSearchFeed(db),
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
    if (error instanceof CommandError) throw error;
    // The engine's own failure (Meilisearch down, a refused task): said, not a stack trace.
    throw new CommandError(`${command} failed: ${printable(error instanceof Error ? error.message : String(error))}`);
  } finally {
    db.$client.close();
  }
}
