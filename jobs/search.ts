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
 * Exit status: 0 done, 1 the engine failed, 2 bad usage.
 */
import { loadConfig } from "../src/config/config.ts";
import { createSearchCardKeeper } from "../src/domain/registry/keep-search-cards.ts";
import { setLogLevel } from "../src/logging.ts";
import { processCardCode } from "../src/publish/code-key.ts";
import { createSearchEngine } from "../src/search/engine.ts";
import { createSearchFollower } from "../src/search/follower.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRepository } from "../src/store/merchant-repository.ts";
import { createSearchCardStore } from "../src/store/search-card-store.ts";
import { createSearchFeed } from "../src/store/search-feed.ts";

const [command] = process.argv.slice(2);
if (command !== "status" && command !== "sync" && command !== "rebuild" && command !== "cards") {
  process.stderr.write("usage: npm run search -- status | sync | rebuild | cards\n");
  process.exit(2);
}

const config = loadConfig();
setLogLevel("warn");
const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
const engine = createSearchEngine(db, config, { now: () => new Date() });
const name = engine.meilisearch ? `Meilisearch (${config.meilisearch?.url})` : "the embedded index";

try {
  if (command === "status") {
    process.stdout.write(`${JSON.stringify(await engine.health(), null, 2)}\n`);
  } else if (command === "sync") {
    const status = await engine.follower.syncOnce();
    if (status.state === "unavailable") throw new Error(status.lastError ?? `${name} could not be brought in step`);
    process.stdout.write(`${name} is in step with the store at revision ${status.cursor}.\n`);
  } else if (command === "cards") {
    const started = performance.now();
    // The key `npm start` gives the server processes (jobs/start.ts): the same sources, the same key.
    const code = processCardCode();
    if (!code) throw new Error("the sources under src/ were not found: run this from the project");
    const bar = progressBar(started, "search cards");
    let drawn = false;
    const keeper = createSearchFollower({
      engine: createSearchCardKeeper({
        merchants: createMerchantRepository(db),
        keptCards: createSearchCardStore(db),
        orderRailEnabled: config.publicOrderRailEnabled,
        cardCode: () => code,
        now: () => new Date(),
      }),
      feed: createSearchFeed(db),
      onProgress: (done, total) => {
        drawn = true;
        bar(done, total);
      },
    });
    const status = await keeper.syncOnce();
    if (drawn && process.stderr.isTTY) process.stderr.write("\n"); // past the bar's line
    if (status.state !== "ready") throw new Error(status.lastError ?? "the cards could not be kept");
    process.stdout.write(
      `The search cards are in step with the store at revision ${status.cursor} (${((performance.now() - started) / 1000).toFixed(1)} s).\n`,
    );
  } else {
    const started = performance.now();
    const bar = progressBar(started, "search index");
    await (engine.meilisearch ?? engine.embedded).rebuild(bar);
    process.stderr.write("\n");
    process.stdout.write(`Rebuilt ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
  }
} catch (error) {
  process.stderr.write(`\n${command} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  db.$client.close();
}

function progressBar(started: number, label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return (done, total) => {
    const ratio = total > 0 ? done / total : 1;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const figures = `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}  ${seconds}s`;
    if (tty) {
      const filled = Math.round(ratio * 30);
      process.stderr.write(
        `\r${label} [${"#".repeat(filled)}${"-".repeat(30 - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${figures}\x1b[K`,
      );
    } else if (Math.floor(ratio * 10) !== lastTenth) {
      lastTenth = Math.floor(ratio * 10);
      process.stderr.write(`${label}: ${figures}\n`);
    }
  };
}
