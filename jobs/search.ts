/**
 * Operator command for the search engine (the one the server uses: Meilisearch when
 * MEILISEARCH_URL is set, the embedded index otherwise).
 *
 *   npm run search -- status     the engine, its state and its lag (as /api/health reports them)
 *   npm run search -- sync       applies the store's changes since the engine's cursor, then exits
 *   npm run search -- rebuild    a full build, with a progress bar; on Meilisearch, into a new index
 *                                swapped in at the end (searches keep the old one meanwhile)
 *
 * Exit status: 0 done, 1 the engine failed, 2 bad usage.
 */
import { loadConfig } from "../src/config/config.ts";
import { setLogLevel } from "../src/logging.ts";
import { createSearchEngine } from "../src/search/engine.ts";
import { openDatabase } from "../src/store/db.ts";

const [command] = process.argv.slice(2);
if (command !== "status" && command !== "sync" && command !== "rebuild") {
  process.stderr.write("usage: npm run search -- status | sync | rebuild\n");
  process.exit(2);
}

const config = loadConfig();
setLogLevel("warn");
const db = openDatabase(config.databaseFile);
const engine = createSearchEngine(db, config, { now: () => new Date() });
const name = engine.meilisearch ? `Meilisearch (${config.meilisearch?.url})` : "the embedded index";

try {
  if (command === "status") {
    process.stdout.write(`${JSON.stringify(await engine.health(), null, 2)}\n`);
  } else if (command === "sync") {
    if (!engine.follower) {
      process.stdout.write("The embedded index follows the store as jobs write it: nothing to sync.\n");
    } else {
      const status = await engine.follower.syncOnce();
      if (status.state === "unavailable") throw new Error(status.lastError ?? "Meilisearch did not answer");
      process.stdout.write(`${name} is in step with the store at revision ${status.cursor}.\n`);
    }
  } else {
    const started = performance.now();
    const bar = progressBar(started);
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

function progressBar(started: number): (done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return (done, total) => {
    const ratio = total > 0 ? done / total : 1;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const figures = `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}  ${seconds}s`;
    if (tty) {
      const filled = Math.round(ratio * 30);
      process.stderr.write(
        `\rsearch index [${"#".repeat(filled)}${"-".repeat(30 - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${figures}\x1b[K`,
      );
    } else if (Math.floor(ratio * 10) !== lastTenth) {
      lastTenth = Math.floor(ratio * 10);
      process.stderr.write(`search index: ${figures}\n`);
    }
  };
}
