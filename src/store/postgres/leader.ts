/**
 * One leader across the deployment (docs/several-machines.md): the instance that holds a
 * session-level advisory lock on its own connection (dedicated-session.ts) runs the scheduled
 * work; the others try again every `retryMs`. When the leader's process or machine dies, its
 * connection ends, PostgreSQL releases the lock, and another instance takes it at its next try.
 * The leader checks its connection at each tick (a heartbeat) and is told at once when it ends.
 *
 * What the leader's jobs write is fenced (leader-fence.ts): each write transaction checks that the
 * lock is still held by the leader's connection, and holds the name's fence lock shared while it
 * runs; a new leader takes that fence lock exclusively once before it leads, so it starts only
 * after every write of the deposed one has ended, and none of those commits once the lock is lost.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { logger } from "../../logging.ts";
import { startDedicatedSession } from "./dedicated-session.ts";
import type { LeaderTerm } from "./leader-term.ts";
import { firstRow, type Queryable } from "./transaction.ts";

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
  /** The leadership this instance holds now, or null (what its jobs' writes are fenced with). */
  term(): LeaderTerm | null;
  /** Gives the lock up (the connection ends) and stops trying. */
  stop(): Promise<void>;
}

/** The advisory lock's second key for a name: the first 4 bytes of its SHA-256, as a signed int4. */
export function leaderLockKey(name: string): number {
  return createHash("sha256").update(`abeille:${name}`).digest().readInt32BE(0);
}

/** The fence lock of a leader's name (taken shared by its jobs' writes, exclusively by a new leader). */
export function fenceLockKey(name: string): number {
  return leaderLockKey(`${name}:fence`);
}

/** pg_locks shows a two-key advisory lock as classid, objid (the keys as oid: unsigned), objsubid 2. */
const LOCK_ROW =
  "l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2";

/** pg_locks' condition for the lock of `name` held (granted), and its two keys as parameters $1 and $2. */
export function advisoryLockRow(name: string): { where: string; keys: [string, string] } {
  return { where: LOCK_ROW, keys: [String(LOCK_CLASS >>> 0), String(leaderLockKey(name) >>> 0)] };
}

/** Whether the backend `pid` holds the session lock of `name` now (read in the caller's transaction). */
export async function advisoryLockHeldBy(db: Queryable, name: string, pid: number): Promise<boolean> {
  const lock = advisoryLockRow(name);
  const row = await firstRow<{ held: boolean }>(
    db,
    `SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE ${lock.where} AND l.pid = $3) AS held`,
    [...lock.keys, pid],
  );
  return row?.held === true;
}

/**
 * How long a new leader waits for the deposed one's writes to end before it gives the lock up and
 * tries again (the writes are short; a connection that vanished mid-write is ended by the server
 * within LEADER_FENCE_IDLE_S, leader-fence.ts).
 */
const FENCE_WAIT_MS = 120_000;

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const key = leaderLockKey(options.name);
  let term: LeaderTerm | null = null;
  const session = startDedicatedSession({
    url: options.url,
    applicationName: options.applicationName ?? `abeille-leader-${options.name}`,
    retryMs: options.retryMs ?? 5_000,
    tick: async (client) => {
      if (term) {
        await client.query("SELECT 1");
        return;
      }
      const result = await client.query<{ locked: boolean; pid: number }>(
        "SELECT pg_try_advisory_lock($1, $2) AS locked, pg_backend_pid() AS pid",
        [LOCK_CLASS, key],
      );
      const taken = result.rows[0];
      if (!taken?.locked) return;
      // The fence: every write the deposed leader's jobs began under its term ends (committed
      // before the lock was lost, or refused) before this one's jobs start.
      await client.query({
        text: "SELECT pg_advisory_lock($1, $2)",
        values: [LOCK_CLASS, fenceLockKey(options.name)],
        query_timeout: FENCE_WAIT_MS,
      } as pg.QueryConfig);
      await client.query("SELECT pg_advisory_unlock($1, $2)", [LOCK_CLASS, fenceLockKey(options.name)]);
      term = { name: options.name, pid: Number(taken.pid) };
      logger.info("this instance leads", { lock: options.name });
      options.onGained?.();
    },
    onLost: (reason) => {
      if (!term) return;
      term = null;
      logger.warn("this instance no longer leads", { lock: options.name, reason });
      options.onLost?.();
    },
  });
  return { isLeader: () => term !== null, term: () => term, stop: () => session.stop() };
}
