import type { StoreConnection } from "./connection.ts";

type Sqlite = StoreConnection["$client"];

/*
 * How every process that writes the database takes its write lock: the server (leads, the search
 * follower, the card keeper), the imports and the other operator commands, the outbox worker.
 *
 * A write transaction is begun IMMEDIATE: it takes the write lock before its first read. Begun
 * DEFERRED (better-sqlite3's default), a transaction that reads first reads a snapshot, and when
 * another connection commits before its first write SQLite cannot move it to the newer snapshot:
 * the write fails at once with SQLITE_BUSY_SNAPSHOT ("database is locked"), whatever the busy
 * timeout. The SIRENE import beside a serving server died so in the search index's refresh (read
 * the store revision, then write the index), after 500 to 2,000 rows. BEGIN IMMEDIATE instead
 * waits for the lock under the connection's busy timeout (connection.ts; longer for the jobs,
 * which have nothing else to do meanwhile). test/unit/write-lock.test.ts holds every transaction
 * of src/ to this rule.
 *
 * A thread that serves requests must not sleep in SQLite's busy handler while another process
 * holds the lock: it tries for the lock without waiting (`tryNow`) and, when the lock is taken,
 * tries again on a later turn of the event loop (`whenFree`, or the group commit's own queue).
 */

/** The answer of `tryNow` when another connection holds the write lock: nothing was run. */
export const LOCK_TAKEN: unique symbol = Symbol("the write lock is taken");

export interface WriteLock {
  /** The connection's busy timeout (ms): how long a transaction that waits as SQLite does waits. */
  readonly busyTimeoutMs: number;
  /**
   * Runs `work` in one BEGIN IMMEDIATE transaction if no other connection holds the write lock
   * now, and returns what it returns; LOCK_TAKEN, with nothing run, otherwise. Never sleeps.
   * Statements inside `work` wait as usual. Inside a transaction already open, `work` runs in a
   * savepoint of it.
   */
  tryNow<T>(work: () => T): T | typeof LOCK_TAKEN;
  /**
   * Runs `work` in one BEGIN IMMEDIATE transaction as soon as the write lock is free: now, or on
   * a later turn of the event loop (1 ms between tries, doubling up to 50 ms), the thread free
   * meanwhile. Past `patienceMs` (default 30 s), one last try waits as SQLite does and throws
   * SQLITE_BUSY if the lock never frees.
   */
  whenFree<T>(work: () => T, patienceMs?: number): Promise<T>;
}

const DEFAULT_PATIENCE_MS = 30_000;
const LONGEST_PAUSE_MS = 50;

export function writeLock(sqlite: Sqlite): WriteLock {
  // The connection's own busy timeout, as set when it was opened. (Switched with exec: a prepared
  // PRAGMA statement applies when it is prepared, not reliably when it runs, and pragma()
  // prepares a statement each time, ten times the cost of exec, twice a commit.)
  const busyTimeoutMs = Number(sqlite.pragma("busy_timeout", { simple: true }));
  const dontWait = () => sqlite.exec("PRAGMA busy_timeout = 0");
  const waitAsUsual = () => sqlite.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);

  function tryNow<T>(work: () => T): T | typeof LOCK_TAKEN {
    if (sqlite.inTransaction) return sqlite.transaction(work).immediate();
    let began = false;
    dontWait();
    try {
      return sqlite
        .transaction(() => {
          began = true;
          waitAsUsual();
          return work();
        })
        .immediate();
    } catch (error) {
      if (!began && isBusy(error)) return LOCK_TAKEN;
      throw error;
    } finally {
      if (!began) waitAsUsual();
    }
  }

  async function whenFree<T>(work: () => T, patienceMs = DEFAULT_PATIENCE_MS): Promise<T> {
    const started = Date.now();
    let pauseMs = 1;
    for (;;) {
      const outcome = tryNow(work);
      if (outcome !== LOCK_TAKEN) return outcome;
      if (Date.now() - started >= patienceMs) return sqlite.transaction(work).immediate();
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(LONGEST_PAUSE_MS, pauseMs * 2);
    }
  }

  return { busyTimeoutMs, tryNow, whenFree };
}

/** SQLite's answer when another connection holds the lock (or moved the snapshot on). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_SNAPSHOT";
}
