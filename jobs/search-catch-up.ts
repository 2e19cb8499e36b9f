import { createEmbeddedSearchFollower } from "../src/search/embedded/follow.ts";
import { createEmbeddedSearchIndex } from "../src/search/embedded/index.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { progressBar } from "./progress.ts";
import { printable } from "./terminal.ts";

/**
 * Brings the embedded search index in step with the store's change feed, at the end of a command
 * that wrote merchants (src/search/embedded/follow.ts): what it wrote, and whatever an earlier
 * command or an interrupted run left unapplied. A failure is said on stderr and never fails the
 * command: the store is written, the feed keeps every merchant for the server's follower or the
 * next command.
 *
 * On PostgreSQL there is nothing to catch up here: the embedded index is each server machine's own
 * file, which its server's follower keeps in step with the shared change feed, and Meilisearch is
 * fed by the leader's follower (docs/several-machines.md); a command may run on a machine that
 * serves nothing.
 */
export async function catchUpSearchIndex(
  store: OpenedStore,
  command: string,
  options: {
    /**
     * false: an index with no whole generation (new in this format, an earlier version's) is left
     * to the server's follower, which builds it while the server serves (`npm start`); true
     * (default): built here in full, as a command that wrote merchants waits for its index.
     */
    build?: boolean;
  } = {},
): Promise<void> {
  if (store.engine !== "sqlite") return;
  const { db } = store;
  const index = createEmbeddedSearchIndex(db);
  if (options.build === false && index.needsRebuild()) {
    index.close();
    process.stderr.write(
      `${command}: the search index is built by the server while it serves (searches say index_building until then; npm run search -- status)\n`,
    );
    return;
  }
  // A command started with --expose-gc (the import: jobs/compile-cache.ts) collects what it read
  // before, and every few thousand merchants of a full build: V8 would otherwise let the garbage of
  // a build pile up on top of the import's (peak RSS 350 MB instead of under 300 at 1,000,000 rows).
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  let collectedAt = 0;
  // A full build (an index never built: after a first import, a national one's millions of
  // merchants) shows its progress as the import does.
  const bar = progressBar({ label: "search index", unit: "merchants" });
  let built = { done: 0, total: 0 };
  const status = await createEmbeddedSearchFollower(db, index, {
    onProgress: (done, total) => {
      built = { done, total };
      bar.update(done, total);
      if (collect && done - collectedAt >= 10_000) {
        collectedAt = done;
        collect();
      }
    },
  }).syncOnce();
  index.close();
  bar.end(built.done, built.total);
  if (status.state === "unavailable") {
    process.stderr.write(
      `${command}: the search index is not in step with the store yet (${printable(status.lastError ?? "unknown error")}); a serving server catches up by itself, or run npm run search -- sync\n`,
    );
  }
}

/**
 * Merchants a command may have spoken for (a SIRENE stock: brought in, changed, closed, confirmed
 * or found unchanged) with the command still building the search index's first generation before
 * it ends (a minute or so). Past it (a region, the country: 5 million merchants take half an hour
 * to index) the server builds it while it serves, its searches saying index_building meanwhile,
 * and the command ends when the registry holds what it brought.
 */
export const FIRST_BUILD_IN_COMMAND_MOST = 100_000;

/** Whether a command that spoke for this many merchants builds a missing index itself (catchUpSearchIndex's `build`). */
export function commandBuildsFirstIndex(merchantsSpokenFor: number): boolean {
  return merchantsSpokenFor <= FIRST_BUILD_IN_COMMAND_MOST;
}

/**
 * What a command says when another process held the write lock past JOB_BUSY_TIMEOUT_MS (a write
 * of its own then failed): what it committed before stays; run again, it goes on from there.
 */
export function lockHeldTooLong(): string {
  return `another process held the database's write lock for more than ${JOB_BUSY_TIMEOUT_MS / 1000} s (a full build of the search index, a long refresh?); what was written before is kept: run the command again`;
}
