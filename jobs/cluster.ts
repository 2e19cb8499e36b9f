/**
 * The primary of `npm start`: forks the SERVER_PROCESSES server processes (node:cluster, one
 * shared listening port, connections handed out in turn; one process too, so that it is
 * supervised and runs with the same settings), keeps them running, and carries the few messages
 * they exchange. It serves nothing itself.
 *
 * - The first process owns the background work (outbox thread, retention, publication
 *   schedule); a replacement for it owns it in turn.
 * - A process that dies is replaced, after a pause that doubles while it keeps dying (at most
 *   30 s) and resets once one has run for a minute.
 * - A commit that wrote outbox rows in any process wakes the owner's outbox thread at once
 *   (without it, the owner's polling would find them within OUTBOX_POLL_MS).
 * - SIGTERM/SIGINT stops every process (each finishes its requests and its outbox batch) and
 *   then the primary.
 */
import cluster, { type Worker } from "node:cluster";
import { logger } from "../src/logging.ts";

/** The environment variable that tells a forked process it owns the background work. */
export const BACKGROUND_OWNER_ENV = "ABEILLE_BACKGROUND_OWNER";

export type ClusterMessage = { type: "outbox-written" };

/**
 * V8 settings of every server process. A young generation of 8 MB semi-spaces (V8 grows them to
 * 16 MB and more under load) keeps a process at 100,000 merchants about 70 MB smaller after the
 * bench's load, with no loss of throughput measured (docs/performance.md).
 */
export const SERVER_EXEC_ARGV = ["--max-semi-space-size=8"];

const STEADY_AFTER_MS = 60_000;
const MAX_RESTART_DELAY_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export function superviseServers(options: {
  processes: number;
  /** Set in every forked process's environment. */
  env?: Record<string, string>;
  onAllListening: (address: string) => void;
}): void {
  const roles = new Map<Worker, { owner: boolean; startedAt: number }>();
  let owner: Worker | null = null;
  let stopping = false;
  let announced = false;
  let failures = 0;

  cluster.setupPrimary({ execArgv: [...process.execArgv, ...SERVER_EXEC_ARGV] });
  const fork = (isOwner: boolean) => {
    const worker = cluster.fork({ ...options.env, ...(isOwner ? { [BACKGROUND_OWNER_ENV]: "1" } : {}) });
    roles.set(worker, { owner: isOwner, startedAt: Date.now() });
    if (isOwner) owner = worker;
    worker.on("message", (message: ClusterMessage) => {
      if (message?.type === "outbox-written" && owner && owner !== worker && owner.isConnected()) {
        owner.send(message);
      }
    });
  };

  const listening = new Set<number>();
  cluster.on("listening", (worker, address) => {
    listening.add(worker.id);
    if (announced || listening.size < options.processes) return;
    announced = true;
    const host = address.address?.includes(":") ? `[${address.address}]` : (address.address ?? "127.0.0.1");
    options.onAllListening(`http://${host}:${address.port}`);
  });

  cluster.on("exit", (worker, code, signal) => {
    const role = roles.get(worker);
    roles.delete(worker);
    if (owner === worker) owner = null;
    if (stopping || !role) return;
    const ranFor = Date.now() - role.startedAt;
    failures = ranFor > STEADY_AFTER_MS ? 1 : failures + 1;
    const delay = Math.min(250 * 2 ** (failures - 1), MAX_RESTART_DELAY_MS);
    logger.error("server process exited; replacing it", {
      pid: worker.process.pid,
      code,
      signal,
      background_owner: role.owner,
      restart_in_ms: delay,
    });
    setTimeout(() => {
      if (!stopping) fork(role.owner);
    }, delay).unref();
  });

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal, processes: roles.size });
    const workers = [...roles.keys()];
    setTimeout(() => {
      for (const worker of workers) worker.process.kill("SIGKILL");
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const worker of workers) {
      worker.once("exit", () => {
        left -= 1;
        if (left === 0) process.exit(0);
      });
      worker.process.kill("SIGTERM");
    }
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));

  for (let index = 0; index < options.processes; index++) fork(index === 0);
}
