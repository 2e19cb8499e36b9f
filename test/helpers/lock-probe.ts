/**
 * A writer that asks for the database's write lock every 20 ms, as a server's request thread does
 * (src/store/write-lock.ts: it tries without waiting, and tries again a millisecond later while
 * another process holds it), and gives up after a second: BEGIN IMMEDIATE then ROLLBACK, the lock
 * taken and nothing written. Run as a process of its own beside a server and a job: while it runs,
 * no other process can hold the lock for longer than the patience (a second unless told), or keep
 * it to itself that long with transactions back to back, without this writer giving up. On SIGTERM
 * it prints how many times it took the lock, how many times it gave up, and the longest it waited.
 *
 *   node test/helpers/lock-probe.ts DATA_DIR/abeille.db [PATIENCE_MS]
 */
import Database from "better-sqlite3";

const file = process.argv[2];
if (!file) throw new Error("usage: lock-probe.ts DATABASE_FILE [PATIENCE_MS]");
const db = new Database(file);
db.pragma("busy_timeout = 0");
const PATIENCE_MS = Number(process.argv[3] ?? 1_000);
let taken = 0;
let gaveUp = 0;
let longestWaitMs = 0;
let stopping = false;

function tryTake(): boolean {
  try {
    db.exec("BEGIN IMMEDIATE");
    db.exec("ROLLBACK");
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
    return false;
  }
}

async function ask(): Promise<void> {
  const started = performance.now();
  while (!tryTake()) {
    if (performance.now() - started >= PATIENCE_MS) {
      gaveUp += 1;
      longestWaitMs = Math.max(longestWaitMs, performance.now() - started);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  taken += 1;
  longestWaitMs = Math.max(longestWaitMs, performance.now() - started);
}

process.once("SIGTERM", () => {
  stopping = true;
});
process.stdout.write("probing\n");
while (!stopping) {
  await ask();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
db.close();
process.stdout.write(`${JSON.stringify({ taken, gaveUp, longestWaitMs: Math.round(longestWaitMs) })}\n`);
