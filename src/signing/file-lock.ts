/**
 * A small cross-process lock for the key index: `O_CREAT | O_EXCL` on a lock file holding the
 * owner's pid. The server, the refresh job and the operator command all change the index under it
 * (read, modify, write, rename), so no update is lost. Holders keep it for microseconds, so
 * waiting is a short synchronous sleep. A lock left by a dead process (pid gone) or older than
 * `staleMs` is broken.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is broken (default 30 s; holders keep it for microseconds). */
  staleMs?: number;
}

export function withFileLock<T>(lockFile: string, work: () => T, options: LockOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let fd: number | null = null;
  while (fd === null) {
    try {
      fd = openSync(lockFile, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (isStale(lockFile, staleMs)) {
        try {
          unlinkSync(lockFile);
        } catch {
          // someone else broke it first
        }
        continue;
      }
      if (Date.now() > deadline) throw new Error(`could not lock ${lockFile} within ${timeoutMs} ms`);
      sleepMs(2);
    }
  }
  try {
    writeSync(fd, String(process.pid));
    return work();
  } finally {
    closeSync(fd);
    try {
      unlinkSync(lockFile);
    } catch {
      // already broken as stale by another process: nothing left to release
    }
  }
}

function isStale(lockFile: string, staleMs: number): boolean {
  try {
    const age = Date.now() - statSync(lockFile).mtimeMs;
    if (age > staleMs) return true;
    const pid = Number(readFileSync(lockFile, "utf8"));
    // An empty file is a lock being written right now: not stale.
    if (!Number.isInteger(pid) || pid <= 0) return false;
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  } catch {
    // vanished between open and stat: retry at once
    return false;
  }
}
