/**
 * The server's background work, in the process that owns it (jobs/cluster.ts: one per machine).
 *
 * - Every machine: the lead outbox worker (in a thread of its own). On SQLite there is one machine;
 *   on PostgreSQL each machine's worker claims rows no other takes (FOR UPDATE SKIP LOCKED and
 *   leases: docs/several-machines.md); and, on PostgreSQL, the follower of the machine's own
 *   embedded search index.
 * - Once across the deployment: the retention schedule, the publication schedule, the daily
 *   imports (jobs/daily-imports.ts: SIRENE's changes and BODACC's announcements, when
 *   SIRENE_API_KEY is set), the search follower, the search card keeper and the sweep of trust
 *   changes. On SQLite the owner runs them; on PostgreSQL the leader does (an advisory lock on a
 *   connection of its own,
 *   src/store/postgres/leader.ts), and another machine takes them over within a few seconds when
 *   the leader dies or loses its connection.
 */
import type { App } from "../src/app.ts";
import type { Config } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { startOutboxThread } from "../src/mail/outbox-thread.ts";
import { loadPublishSettings } from "../src/publish/settings.ts";
import type { SearchFollower } from "../src/search/follower.ts";
import { formatLeaderTerm, LEADER_TERM_ENV, type LeaderTerm } from "../src/store/postgres/leader-term.ts";
import { startDailyImports } from "./daily-imports.ts";
import { startRetentionSchedule } from "./retention.ts";
import { startScheduler } from "./scheduler.ts";

export interface BackgroundWork {
  /** Whether this process runs the work done once across the deployment now. */
  leads(): boolean;
  stop(): Promise<void>;
}

/** The lock the leader holds (src/store/postgres/leader.ts leaderLockKey). */
export const BACKGROUND_LEADER = "background";

export async function startBackgroundWork(app: App, config: Config): Promise<BackgroundWork> {
  const worker =
    config.outboxWorker === "inprocess"
      ? startOutboxThread(config, { nextDueAt: () => app.outbox.nextDueAt(), now: app.now })
      : null;
  // On PostgreSQL the embedded index is this machine's own (DATA_DIR/search-index/): its
  // follower runs on every machine; on SQLite the one machine runs it once.
  const ownIndex = config.postgres ? embeddedFollower(app) : null;
  ownIndex?.start();
  // On PostgreSQL the published documents live in the database: this machine's publish folder is
  // a mirror of them, filled now and on each publication's notice (serving stays a file read).
  const mirror = startMirror(app, config);
  let once: { stop(): Promise<void> } | null = null;
  /** The leadership the work done once writes under (PostgreSQL); null on SQLite's one machine. */
  let term: () => LeaderTerm | null = () => null;
  const startOnce = () => {
    once ??= startWorkDoneOnce(app, config, term());
  };
  const stopOnce = async () => {
    const running = once;
    once = null;
    await running?.stop();
  };
  let election: { stop(): Promise<void> } | null = null;
  if (config.postgres) {
    const { startLeaderElection } = await import("../src/store/postgres/leader.ts");
    const started = startLeaderElection({
      url: config.postgres.url,
      name: BACKGROUND_LEADER,
      retryMs: config.postgres.leaderRetryMs,
      onGained: startOnce,
      onLost: () => void stopOnce(),
    });
    election = started;
    term = started.term;
    // From now on the leader's jobs write only while this instance leads (leader-fence.ts): a
    // deposed leader's pending writes are refused, not committed beside the next leader's.
    if (app.store.engine === "postgres") app.store.leaderFence.follow(started.term);
  } else startOnce();
  return {
    leads: () => once !== null,
    stop: async () => {
      // The jobs end before the lock is given up: another machine never runs them while these finish.
      await Promise.allSettled([
        worker?.stop(),
        stopOnce(),
        ownIndex?.stop(),
        mirror.then((started) => started?.stop()),
      ]);
      await election?.stop();
    },
  };
}

function startWorkDoneOnce(app: App, config: Config, term: LeaderTerm | null): { stop(): Promise<void> } {
  const retention = startRetentionSchedule(app);
  // The scheduled refresh and the daily imports, processes of their own, commit their writes only
  // under this term (leader-fence.ts).
  const leaderJob = term ? { env: { ...process.env, [LEADER_TERM_ENV]: formatLeaderTerm(term) } } : {};
  const scheduler = startScheduler(config, leaderJob);
  // SIRENE's changes of each day, then BODACC's announcements, when SIRENE_API_KEY is set.
  const dailyImports = startDailyImports(config, leaderJob);
  // Keep the search engine in step with the store (src/search/follower.ts: the embedded index, or
  // Meilisearch and its embedded fallback); and the search result cards built ahead
  // (src/domain/registry/keep-search-cards.ts).
  const shared = sharedSearchFollowers(app, config);
  for (const follower of shared) follower.start();
  app.cardKeeper.start();
  // Trust that moves by itself (a signal's expiry, a company's anniversary) becomes a change of
  // the feed all of them follow (src/domain/trust/trust-sweep.ts).
  app.trustSweeper.start();
  return {
    stop: async () => {
      await Promise.allSettled([
        retention.stop(),
        scheduler.stop(),
        dailyImports.stop(),
        ...shared.map((follower) => follower.stop()),
        app.cardKeeper.stop(),
        app.trustSweeper.stop(),
      ]);
    },
  };
}

/** The follower of the embedded index (the engine's own, or Meilisearch's fallback), if any. */
function embeddedFollower(app: App): SearchFollower | null {
  return app.searchEngine.meilisearch ? app.searchEngine.fallbackFollower : app.searchEngine.follower;
}

/** The search followers that run once across the deployment: all of them on SQLite; Meilisearch's on PostgreSQL. */
function sharedSearchFollowers(app: App, config: Config): SearchFollower[] {
  const all = [app.searchEngine.follower, app.searchEngine.fallbackFollower].filter(
    (follower): follower is SearchFollower => follower !== null,
  );
  if (!config.postgres) return all;
  const own = embeddedFollower(app);
  return all.filter((follower) => follower !== own);
}

/**
 * The machine's mirror of the published documents (PostgreSQL only); its first catch-up does not
 * hold the start, and one that fails (the database down) is retried until it succeeds: the first
 * failure of a run of them is logged, then the recovery.
 */
async function startMirror(app: App, config: Config): Promise<{ stop(): Promise<void> } | null> {
  if (!config.postgres || app.store.engine !== "postgres") return null;
  const { startPublishedMirror } = await import("../src/store/postgres/published-mirror.ts");
  let said = false;
  const onError = (error: unknown) => {
    if (said) return;
    said = true;
    logger.warn("published mirror: a catch-up failed; it is tried again until one succeeds", {
      error: error instanceof Error ? error.message : String(error),
    });
  };
  try {
    return await startPublishedMirror({
      pool: app.store.pool,
      url: config.postgres.url,
      publishDir: loadPublishSettings(config).publishDir,
      retryMs: config.postgres.leaderRetryMs,
      onError,
      onRecovered: (revision) => {
        said = false;
        logger.info("published mirror: caught up again", { revision });
      },
    });
  } catch (error) {
    // Not a catch-up (those are retried): the mirror could not be set up at all (its folder).
    logger.error("published mirror: not started; this machine renders published documents on demand", {
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}
