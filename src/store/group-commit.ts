import type { StoreConnection } from "./connection.ts";
import { LOCK_TAKEN, writeLock } from "./write-lock.ts";

type Sqlite = StoreConnection["$client"];

interface Queued<Input, Output> {
  input: Input;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the write transactions asked for during one turn of the event loop run together,
 * each in a savepoint of one outer transaction, committed once. A commit costs more than the
 * rows of one lead (the WAL frames of every page touched, indexes included); under load a turn
 * carries several requests, and they share it. Each piece of work still sees the ones before it
 * (same connection, same transaction): a duplicate submitted in the same turn is found as before.
 * A piece that throws rolls back to its savepoint alone; a failed commit fails the whole group,
 * and nothing is acknowledged before its commit.
 */
export function groupCommit<Input, Output>(
  sqlite: Sqlite,
  work: (input: Input) => Output,
): (input: Input) => Promise<Output> {
  // Called inside the outer transaction, a better-sqlite3 transaction function runs as a savepoint.
  const inSavepoint = sqlite.transaction(work);
  const lock = writeLock(sqlite);
  let queue: Queued<Input, Output>[] = [];
  /** Since when the group has found the write lock taken (ms), or null. */
  let busySince: number | null = null;

  const flush = () => {
    const group = queue;
    queue = [];
    const outcomes: ({ ok: true; output: Output } | { ok: false; error: unknown })[] = [];
    const runGroup = () => {
      for (const item of group) {
        try {
          outcomes.push({ ok: true, output: inSavepoint(item.input) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    };
    // Another process holding the write lock would make SQLite's busy handler sleep on this
    // thread, which serves every request: try for the lock without waiting, and on failure try
    // again on the next turn of the event loop, with whatever arrived meanwhile. Past the busy
    // timeout, one last attempt waits as SQLite does and fails the group if the lock never frees.
    const waitForLock = busySince !== null && Date.now() - busySince >= lock.busyTimeoutMs;
    try {
      const outcome = waitForLock ? sqlite.transaction(runGroup).immediate() : lock.tryNow(runGroup);
      if (outcome === LOCK_TAKEN) {
        busySince ??= Date.now();
        queue = group.concat(queue);
        setImmediate(flush);
        return;
      }
    } catch (error) {
      busySince = null;
      for (const item of group) item.reject(error);
      return;
    }
    busySince = null;
    group.forEach((item, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) item.resolve(outcome.output);
      else item.reject(outcome?.error);
    });
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (queue.length === 1) setImmediate(flush);
    });
}
