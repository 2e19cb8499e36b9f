/**
 * One leader across the deployment (docs/several-machines.md): the instance that holds a
 * session-level advisory lock on its own connection (dedicated-session.ts) runs the scheduled
 * work; the others try again every `retryMs`. When the leader's process or machine dies, its
 * connection ends, PostgreSQL releases the lock, and another instance takes it at its next try.
 * The leader checks its connection at each tick (a heartbeat) and is told at once when it ends.
 */
import { createHash } from "node:crypto";
import { logger } from "../../logging.ts";
import { startDedicatedSession } from "./dedicated-session.ts";

/** The first key of every Abeille advisory lock ('abei'), the second names what is locked. */
export const LOCK_CLASS = 0x61626569;

export interface LeaderElectionOptions {
  /** DATABASE_URL. */
  url: string;
  /** What the leader leads ("scheduler"): one lock per name. */
  name: string;
  /** Between two tries of a follower, and between two heartbeats of the leader. Default 5 s. */
  retryMs?: number;
  /** Called when this instance becomes the leader. */
  onGained?: () => void;
  /** Called when it stops being the leader (lost connection, heartbeat failed, stop()). */
  onLost?: () => void;
  /** application_name of the connection, as pg_stat_activity shows it. */
  applicationName?: string;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** Gives the lock up (the connection ends) and stops trying. */
  stop(): Promise<void>;
}

/** The advisory lock's second key for a name: the first 4 bytes of its SHA-256, as a signed int4. */
export function leaderLockKey(name: string): number {
  return createHash("sha256").update(`abeille:${name}`).digest().readInt32BE(0);
}

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const key = leaderLockKey(options.name);
  let leader = false;
  const session = startDedicatedSession({
    url: options.url,
    applicationName: options.applicationName ?? `abeille-leader-${options.name}`,
    retryMs: options.retryMs ?? 5_000,
    tick: async (client) => {
      if (leader) {
        await client.query("SELECT 1");
        return;
      }
      const result = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [
        LOCK_CLASS,
        key,
      ]);
      if (result.rows[0]?.locked) {
        leader = true;
        logger.info("this instance leads", { lock: options.name });
        options.onGained?.();
      }
    },
    onLost: (reason) => {
      if (!leader) return;
      leader = false;
      logger.warn("this instance no longer leads", { lock: options.name, reason });
      options.onLost?.();
    },
  });
  return { isLeader: () => leader, stop: () => session.stop() };
}
