/**
 * `npm start`: apply migrations, seed the demo registry when the database is empty, then serve
 * with SERVER_PROCESSES processes (one per core by default) on the same port and the same
 * SQLite database, forked and supervised by this one (jobs/cluster.ts), which also checkpoints the
 * database's WAL for them (src/store/wal-checkpoints.ts). One of them also runs the
 * server's background work: the lead outbox worker (in a thread of its own), the retention
 * schedule, the publication schedule and, with MEILISEARCH_URL, the search follower.
 * (package.json builds the bundle first.)
 */
import cluster from "node:cluster";
import { type Config, loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { BACKGROUND_OWNER_ENV, type ClusterMessage, superviseServers } from "./cluster.ts";

/** How often, at most, a process tells the owner of the outbox that it wrote rows. */
const OUTBOX_NUDGE_INTERVAL_MS = 20;

const config = loadConfig();

if (cluster.isPrimary) {
  // Migrations and the demo seed run once, before any server process opens the database. The
  // primary loads nothing else: it only supervises (its memory counts for the whole server).
  const { seedIfEmpty } = await import("./seed.ts");
  await seedIfEmpty(config);
  const { startWalCheckpoints } = await import("../src/store/wal-checkpoints.ts");
  startWalCheckpoints(config.databaseFile, (error) => logger.warn("WAL checkpoint failed", { error: error.message }));
  superviseServers({
    processes: config.serverProcesses,
    env: { ABEILLE_WAL_CHECKPOINTS: "primary" },
    onAllListening: (url) => announce(config, url),
  });
} else {
  await serve(config, { backgroundOwner: process.env[BACKGROUND_OWNER_ENV] === "1" });
}

function announce(config: Config, url: string): void {
  logger.info("listening", {
    url,
    base_url: config.baseUrl,
    data_dir: config.dataDir,
    processes: config.serverProcesses,
  });
  const what = config.demoSeedCount > 0 ? "the demo registry " : "";
  const processes = config.serverProcesses === 1 ? "" : ` with ${config.serverProcesses} processes`;
  process.stdout.write(`Abeille is serving ${what}on ${url}${processes}\n`);
}

async function serve(config: Config, role: { backgroundOwner: boolean }): Promise<void> {
  const { startServer } = await import("./serve.ts");
  const { getApp } = await import("../src/app.ts");
  const { startOutboxThread } = await import("../src/mail/outbox-thread.ts");
  const { startRetentionSchedule } = await import("./retention.ts");
  const { startScheduler } = await import("./scheduler.ts");
  const running = await startServer({ port: config.port, host: config.host });
  // The background work uses the routes' own services (same process, same module graph): no
  // second connection or cache.
  const app = role.backgroundOwner ? getApp() : null;
  const worker = app && config.outboxWorker === "inprocess" ? startOutboxThread(config) : null;
  const retention = app ? startRetentionSchedule(app) : null;
  const scheduler = app ? startScheduler(config) : null;
  // With MEILISEARCH_URL: keep Meilisearch in step with the store (src/search/follower.ts).
  app?.searchEngine.follower?.start();
  await relayOutboxNudges(role.backgroundOwner);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("server process shutting down", { signal, pid: process.pid });
    setTimeout(() => process.exit(0), 10_000).unref();
    await running.close();
    retention?.stop();
    await Promise.allSettled([worker?.stop(), scheduler?.stop(), app?.searchEngine.follower?.stop()]);
    app?.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}

/**
 * In a cluster, the outbox thread runs in the owner's process only: the others pass their
 * commits' nudges to it through the primary (at most one every few milliseconds).
 */
async function relayOutboxNudges(backgroundOwner: boolean): Promise<void> {
  const { notifyOutbox, outboxSignal } = await import("../src/mail/outbox-signal.ts");
  if (backgroundOwner) {
    process.on("message", (message: ClusterMessage) => {
      if (message?.type === "outbox-written") notifyOutbox();
    });
    return;
  }
  let pending = false;
  outboxSignal().on("written", () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      if (process.connected) process.send?.({ type: "outbox-written" } satisfies ClusterMessage);
    }, OUTBOX_NUDGE_INTERVAL_MS).unref();
  });
}
