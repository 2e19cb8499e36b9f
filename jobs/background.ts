/**
 * The server's background work, in the process that owns it (jobs/cluster.ts: one per machine).
 *
 * - Every machine: the lead outbox worker (in a thread of its own). On SQLite there is one machine;
 *   on PostgreSQL each machine's worker claims rows no other takes (FOR UPDATE SKIP LOCKED and
 *   leases: docs/several-machines.md).
 * - Once across the deployment: the retention schedule, the publication schedule, the search
 *   follower and the search card keeper. On SQLite the owner runs them; on PostgreSQL the leader
 *   does (an advisory lock on a connection of its own, src/store/postgres/leader.ts), and another
 *   machine takes them over within a few seconds when the leader dies or loses its connection.
 */
import type { App } from "../src/app.ts";
import type { Config } from "../src/config/config.ts";
import { startOutboxThread } from "../src/mail/outbox-thread.ts";
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
  let once: { stop(): Promise<void> } | null = null;
  const startOnce = () => {
    once ??= startWorkDoneOnce(app, config);
  };
  const stopOnce = async () => {
    const running = once;
    once = null;
    await running?.stop();
  };
  let election: { stop(): Promise<void> } | null = null;
  if (config.postgres) {
    const { startLeaderElection } = await import("../src/store/postgres/leader.ts");
    election = startLeaderElection({
      url: config.postgres.url,
      name: BACKGROUND_LEADER,
      retryMs: config.postgres.leaderRetryMs,
      onGained: startOnce,
      onLost: () => void stopOnce(),
    });
  } else startOnce();
  return {
    leads: () => once !== null,
    stop: async () => {
      // The jobs end before the lock is given up: another machine never runs them while these finish.
      await Promise.allSettled([worker?.stop(), stopOnce()]);
      await election?.stop();
    },
  };
}

function startWorkDoneOnce(app: App, config: Config): { stop(): Promise<void> } {
  const retention = startRetentionSchedule(app);
  const scheduler = startScheduler(config);
  // Keep the search engine in step with the store (src/search/follower.ts: the embedded index, or
  // Meilisearch and its embedded fallback); and the search result cards built ahead
  // (src/domain/registry/keep-search-cards.ts).
  app.searchEngine.follower.start();
  app.searchEngine.fallbackFollower?.start();
  app.cardKeeper.start();
  return {
    stop: async () => {
      await Promise.allSettled([
        retention.stop(),
        scheduler.stop(),
        app.searchEngine.follower.stop(),
        app.searchEngine.fallbackFollower?.stop(),
        app.cardKeeper.stop(),
      ]);
    },
  };
}
