/**
 * One refresh at a time across the deployment (docs/several-machines.md): the publish folder's
 * lock file (publisher.ts) only sees this machine, so on PostgreSQL a run also holds a
 * session-level advisory lock on a connection of its own for its whole duration. A manual
 * `npm run refresh` on one machine beside the leader's scheduled run on another is then refused as
 * a second run on one machine is. The server frees the lock when the holder's connection ends (its
 * process or machine died: short TCP keepalives make a vanished machine's session end within
 * about 25 s), so a dead run never blocks the next one.
 *
 * A holder whose connection ended has lost the lock while its run goes on: its commit checks that
 * the lock is still held by that connection (`stillHeld`, in the commit's transaction) and fails
 * otherwise, so two runs never both publish.
 */
import os from "node:os";
import type pg from "pg";
import { advisoryLockHeldBy, advisoryLockRow, LOCK_CLASS, leaderLockKey } from "./leader.ts";
import { firstRow, type Queryable } from "./transaction.ts";

/** The lock's name (leaderLockKey): distinct from the leader's own ("background"). */
export const REFRESH_LOCK = "refresh";

/** As dedicated-session.ts: the server notices a vanished holder within idle + interval * count seconds. */
const KEEPALIVES = "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3";

export interface HeldRefreshLock {
  /** The backend holding the lock (pg_backend_pid of its connection). */
  pid: number;
  /** Gives the lock up and closes its connection (never returned to the pool, whose sessions must hold no lock). */
  release(): Promise<void>;
}

export type RefreshLockAttempt = HeldRefreshLock | { heldBy: string };

/**
 * Tries the deployment's refresh lock on a connection taken from `pool` for the run (never given
 * back to it: release() destroys it). Answers the held lock, or who holds it (for the run's error).
 */
export async function tryRefreshLock(pool: pg.Pool): Promise<RefreshLockAttempt> {
  const client = await pool.connect();
  let held = false;
  try {
    // Who runs it, as pg_stat_activity shows it to the run that is refused.
    const name = `abeille refresh ${os.hostname()} pid ${process.pid}`.slice(0, 63);
    await client.query(`${KEEPALIVES}; SET application_name = '${name.replace(/'/g, "''")}'`);
    const taken = await firstRow<{ locked: boolean; pid: number }>(
      client,
      "SELECT pg_try_advisory_lock($1, $2) AS locked, pg_backend_pid() AS pid",
      [LOCK_CLASS, leaderLockKey(REFRESH_LOCK)],
    );
    if (!taken?.locked) return { heldBy: await holderOf(client) };
    held = true;
    const pid = Number(taken.pid);
    return {
      pid,
      release: async () => {
        try {
          await client.query("SELECT pg_advisory_unlock($1, $2)", [LOCK_CLASS, leaderLockKey(REFRESH_LOCK)]);
        } catch {
          // The connection is gone: the server freed the lock with it.
        } finally {
          client.release(true);
        }
      },
    };
  } finally {
    if (!held) client.release(true);
  }
}

/** Whether the backend `pid` still holds the refresh lock (read in the commit's own transaction). */
export function refreshLockHeldBy(db: Queryable, pid: number): Promise<boolean> {
  return advisoryLockHeldBy(db, REFRESH_LOCK, pid);
}

/**
 * The holder as an operator can find it: its application_name (host and pid) and since when (the
 * lock connection's last state change: the end of the statement that took the lock, the
 * connection being idle since; not backend_start, as the pool may have opened it earlier).
 */
async function holderOf(db: Queryable): Promise<string> {
  const lock = advisoryLockRow(REFRESH_LOCK);
  const row = await firstRow<{ application_name: string | null; state_change: Date | null }>(
    db,
    `SELECT a.application_name, a.state_change FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE ${lock.where} LIMIT 1`,
    lock.keys,
  );
  if (!row) return "a run that just ended";
  const since = row.state_change ? `, since ${row.state_change.toISOString()}` : "";
  return `${row.application_name || "another session"}${since}`;
}
