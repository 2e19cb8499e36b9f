/**
 * `npm start`: apply migrations, seed the demo registry when the database is empty, then serve
 * with SERVER_PROCESSES processes (one per core by default) on the same port and the same
 * SQLite database, forked and supervised by this one (jobs/cluster.ts), which also checkpoints the
 * database's WAL for them (src/store/wal-checkpoints.ts). One of them also runs the
 * server's background work (jobs/background.ts): the lead outbox worker (in a thread of its own),
 * and, on the machine that leads (always, on SQLite), the retention schedule, the publication
 * schedule and the search follower.
 * `--build` (which `npm start` passes) builds the bundle first, after `--help` is answered, so
 * `npm start -- --help` prints at once. Settings come from the environment (README,
 * "Configuration"); the command line takes no other option.
 *
 * Exit status:
 *   0  stopped by SIGINT or SIGTERM
 *   1  cannot start: a setting is wrong, the port is taken, the store could not be prepared (migrations, the machine's secrets on PostgreSQL, the demo seed; one line says which)
 *   2  usage: a wrong option or argument, said in one line (nothing was done)
 */
import { spawnSync } from "node:child_process";
import cluster from "node:cluster";
import net from "node:net";
import path from "node:path";
import { type Config, ConfigError, loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { CARD_CODE_ENV, processCardCode } from "../src/publish/code-key.ts";
import { EXIT_DONE, EXIT_FAILED, EXIT_USAGE, runCommand } from "./cli.ts";
import { BACKGROUND_OWNER_ENV, type ClusterMessage, superviseServers } from "./cluster.ts";
import { jobArgv } from "./compile-cache.ts";

/**
 * Builds the server bundle (astro build, its output on this terminal) before anything else
 * starts; a failed build ends `npm start` with one line (the build's own messages above it).
 */
function buildOrExit(): void {
  const astro = path.join(import.meta.dirname, "..", "node_modules", "astro", "bin", "astro.mjs");
  const build = spawnSync(process.execPath, [astro, "build"], {
    cwd: path.join(import.meta.dirname, ".."),
    stdio: "inherit",
  });
  if (build.status !== 0) {
    process.stderr.write(
      `start: the build failed (${build.signal ?? `exit ${build.status}`}); its messages are above\n`,
    );
    process.exit(1);
  }
}

/** How often, at most, a process tells the owner of the outbox that it wrote rows. */
const OUTBOX_NUDGE_INTERVAL_MS = 20;

await runCommand(
  {
    name: "start",
    usage: ["npm start"],
    notes: [
      "Builds, migrates, seeds the demo registry when the database is empty, then serves on PORT",
      "(default 4321) with SERVER_PROCESSES processes. Every setting is an environment variable",
      "(README, Configuration). --build (which npm start passes) builds the bundle first;",
      "`node jobs/start.ts` serves the bundle already built.",
    ],
    options: { build: { type: "boolean", default: false } },
    exitStatuses: [
      [EXIT_DONE, "stopped by SIGINT or SIGTERM"],
      [
        EXIT_FAILED,
        "cannot start: a setting is wrong, the port is taken, the store could not be prepared (migrations, the machine's secrets on PostgreSQL, the demo seed; one line says which)",
      ],
      [EXIT_USAGE, "usage: a wrong option or argument, said in one line (nothing was done)"],
    ],
  },
  async ({ values }) => {
    const config = configOrExit();

    if (cluster.isPrimary && values.build) buildOrExit();
    if (cluster.isPrimary) {
      // A port another program holds would make every server process fail and be replaced forever:
      // one clear line instead, before anything else runs.
      const refusal = await listenRefusal(config.port, config.host);
      if (refusal) {
        process.stderr.write(`${refusal}\n`);
        process.exit(1);
      }
      // Migrations and the demo seed run once, before any server process opens the database, in a
      // child process: what seeding loads (the generator, the importers) goes with it; so does
      // bringing the search index in step (a full build for an index without a cursor). The primary
      // loads nothing else: it only supervises (its memory counts for the whole server).
      const seeding = spawnSync(process.execPath, jobArgv(path.join(import.meta.dirname, "seed.ts"), "--if-empty"), {
        stdio: "inherit",
      });
      if (seeding.status !== 0) {
        process.stderr.write(
          `start: the store could not be prepared (${seeding.signal ?? `exit ${seeding.status}`})\n`,
        );
        process.exit(1);
      }
      if (!config.postgres) {
        const { startWalCheckpoints } = await import("../src/store/wal-checkpoints.ts");
        startWalCheckpoints(config.databaseFile, (error) =>
          logger.warn("WAL checkpoint failed", { error: error.message }),
        );
      }
      // Every server process builds and reads the kept search cards with one code key: the sources'.
      const cardCode = processCardCode();
      superviseServers({
        processes: config.serverProcesses,
        env: {
          ...(config.postgres ? {} : { ABEILLE_WAL_CHECKPOINTS: "primary" }),
          ...(cardCode ? { [CARD_CODE_ENV]: cardCode } : {}),
        },
        onAllListening: (url) => announce(config, url),
      });
    } else {
      await serve(config, { backgroundOwner: process.env[BACKGROUND_OWNER_ENV] === "1" });
    }
  },
);

function announce(config: Config, url: string): void {
  logger.info("listening", {
    url,
    base_url: config.baseUrl,
    data_dir: config.dataDir,
    processes: config.serverProcesses,
  });
  const what = config.demoSeedCount > 0 ? "the demo registry " : "";
  const processes = config.serverProcesses === 1 ? "" : ` with ${config.serverProcesses} processes`;
  const roster = path.relative(process.cwd(), path.join(config.dataDir, "demo-roster.json"));
  process.stdout.write(
    [
      `Abeille is serving ${what}on ${url}${processes}`,
      "Try next:",
      `  ${url}/            the front door: search a merchant by trade and town`,
      `  ${url}/llms.txt    what an AI agent reads first (then /openapi.json, /.well-known/mcp.json)`,
      ...(config.demoSeedCount > 0 ? [`  ${roster}    demo merchants by case (contactable, paused, ...)`] : []),
      "",
    ].join("\n"),
  );
}

/** The configuration; a wrong setting (MAIL_FROM, PORT, ...) stops the start with one line naming it. */
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Abeille cannot start: ${error.message}\n`);
    process.exit(1);
  }
}

/** Why the server could not listen on PORT/HOST, in one line naming the setting; null when it can. */
async function listenRefusal(port: number, host: string): Promise<string | null> {
  const failure = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const probe = net.createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
  if (!failure) return null;
  if (failure.code === "EADDRINUSE") {
    return `Abeille cannot start: port ${port} on ${host} is already in use; stop the program using it or set PORT to a free port (e.g. PORT=${port + 1} npm start).`;
  }
  if (failure.code === "EACCES") {
    return `Abeille cannot start: listening on port ${port} is not allowed; set PORT to a port above 1023 (e.g. PORT=4321 npm start).`;
  }
  if (failure.code === "EADDRNOTAVAIL" || failure.code === "ENOTFOUND") {
    return `Abeille cannot start: HOST ${host} is not an address of this machine; set HOST (e.g. HOST=127.0.0.1).`;
  }
  return `Abeille cannot start: cannot listen on ${host}:${port} (${failure.code ?? failure.message}); check PORT and HOST.`;
}

async function serve(config: Config, role: { backgroundOwner: boolean }): Promise<void> {
  const { startServer } = await import("./serve.ts");
  const { getApp } = await import("../src/app.ts");
  const { startBackgroundWork } = await import("./background.ts");
  const running = await startServer({ port: config.port, host: config.host });
  // The background work uses the routes' own services (same process, same module graph): no
  // second connection or cache.
  const background = role.backgroundOwner ? await startBackgroundWork(getApp(), config) : null;
  await relayOutboxNudges(role.backgroundOwner);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("server process shutting down", { signal, pid: process.pid });
    setTimeout(() => process.exit(0), 10_000).unref();
    await running.close();
    await background?.stop();
    if (background) getApp().close();
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
