import Database from "better-sqlite3";

/** How often the primary copies the WAL back into the database. */
const CHECKPOINT_INTERVAL_MS = 250;

export interface WalCheckpoints {
  stop(): void;
}

/**
 * The WAL checkpoints of a server whose processes are forked by `npm start`'s primary: the
 * primary, which serves no request, runs them every 250 ms on a connection of its own, so the
 * fsyncs of a checkpoint never hold a server process's event loop (they did, four times a second
 * under a lead load, 5 ms or more each time on these disks). PASSIVE: a checkpoint never waits for
 * a reader or a writer; what it could not copy this time, it copies the next. The server
 * processes keep a backstop of their own (db.ts) should this one fall behind.
 */
export function startWalCheckpoints(
  databaseFile: string,
  onError: (error: Error) => void,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): WalCheckpoints {
  const sqlite = new Database(databaseFile, { timeout: 0 });
  const timer = setInterval(() => {
    try {
      sqlite.pragma("wal_checkpoint(PASSIVE)");
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY") onError(error as Error);
    }
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sqlite.close();
    },
  };
}
