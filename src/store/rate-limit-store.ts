import path from "node:path";
import Database from "better-sqlite3";
import type { Config } from "../config/config.ts";
import { type AdvanceResult, GCRA_EPSILON_MS, type RateLimitStore } from "../domain/access/rate-limiter.ts";
import { makePrivateDirectory, makePrivateFiles } from "./connection.ts";
import { createRedisRateLimitStore } from "./redis-rate-limit-store.ts";

/**
 * The rate limiter's TATs in a SQLite file of their own (DATA_DIR/limits.db), shared by every
 * server process on the machine: a quota is a quota for the whole server, whichever process
 * answers. A file apart from the registry's keeps these tiny writes (one per counted request)
 * out of the way of lead commits and the outbox, and its loss costs nothing but fresh budgets:
 * it is created on open, never migrated, written without fsync.
 *
 * One statement does the GCRA step atomically; the steps of one turn of the event loop share a
 * transaction. Writers wait for each other with short spins
 * rather than SQLite's busy handler, which sleeps a whole millisecond or more at its first retry.
 */
const BUSY_SPIN_MS = 0.05;
/** Past this, the store reports itself unavailable rather than hold the request. */
const BUSY_GIVE_UP_MS = 250;
const SWEEP_INTERVAL_MS = 60_000;

interface Advance {
  key: string;
  now: number;
  intervalMs: number;
  windowMs: number;
}

interface Queued {
  input: Advance;
  resolve: (result: AdvanceResult) => void;
  reject: (error: unknown) => void;
}

export class RateLimitStoreBusyError extends Error {
  override name = "RateLimitStoreBusyError";
}

/**
 * Redis when REDIS_URL is set; else the store's own when it is shared by several machines
 * (PostgreSQL: a budget is never counted per machine); else the SQLite file every process on
 * DATA_DIR shares.
 */
export function createRateLimitStore(
  config: Pick<Config, "redisUrl" | "limitsDatabaseFile">,
  onError: (error: Error) => void,
  sharedStore: RateLimitStore | null = null,
): RateLimitStore {
  if (config.redisUrl) return createRedisRateLimitStore({ url: config.redisUrl, onError });
  return sharedStore ?? createSqliteRateLimitStore(config.limitsDatabaseFile);
}

export function createSqliteRateLimitStore(file: string): RateLimitStore {
  makePrivateDirectory(path.dirname(file));
  const sqlite = new Database(file, { timeout: 0 });
  makePrivateFiles(file);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const retrying = <T>(run: () => T): T => {
    const started = performance.now();
    for (;;) {
      try {
        return run();
      } catch (error) {
        if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
        if (performance.now() - started > BUSY_GIVE_UP_MS) {
          throw new RateLimitStoreBusyError(`rate limit store busy for ${BUSY_GIVE_UP_MS} ms`);
        }
        Atomics.wait(pause, 0, 0, BUSY_SPIN_MS);
      }
    }
  };
  retrying(() => sqlite.pragma("journal_mode = WAL"));
  sqlite.pragma("synchronous = OFF");
  sqlite.pragma("cache_size = -2048");
  retrying(() =>
    sqlite.exec(`CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, tat REAL NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS rate_limits_tat ON rate_limits (tat);`),
  );
  // The row changes only when the call fits: no row back means refused.
  const advance = sqlite.prepare<{ key: string; now: number; interval: number; window: number }, { tat: number }>(
    `INSERT INTO rate_limits (key, tat) VALUES (@key, @now + @interval)
     ON CONFLICT (key) DO UPDATE SET tat = max(tat, @now) + @interval
       WHERE max(tat, @now) + @interval - @now <= @window
     RETURNING tat`,
  );
  const current = sqlite.prepare<[string], number>("SELECT tat FROM rate_limits WHERE key = ?").pluck();
  const sweep = sqlite.prepare<[number]>("DELETE FROM rate_limits WHERE tat <= ?");
  let nextSweepAt = 0;

  const step = (input: Advance): AdvanceResult => {
    const { key, now, intervalMs, windowMs } = input;
    const row = advance.get({ key, now, interval: intervalMs, window: windowMs + GCRA_EPSILON_MS });
    if (row) return { allowed: true, tat: row.tat };
    return { allowed: false, tat: Math.max(current.get(key) ?? now, now) };
  };
  // The steps asked for during one turn of the event loop share one write transaction: a write
  // transaction (lock, WAL frame, index of the WAL) costs about 19 µs, a step inside one about 4.
  const stepAll = sqlite.transaction((inputs: readonly Advance[]) => inputs.map(step));
  let queue: Queued[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    try {
      const now = batch[0]?.input.now ?? 0;
      if (now >= nextSweepAt) {
        nextSweepAt = now + SWEEP_INTERVAL_MS;
        // Keys whose budget is whole again behave exactly like unknown keys.
        retrying(() => sweep.run(now));
      }
      const results = retrying(() => stepAll.immediate(batch.map((item) => item.input)));
      batch.forEach((item, index) => {
        const result = results[index];
        if (result) item.resolve(result);
        else item.reject(new Error("rate limit store: a step of the batch has no result"));
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  };

  return {
    advance(key, now, intervalMs, windowMs): Promise<AdvanceResult> {
      return new Promise((resolve, reject) => {
        queue.push({ input: { key, now, intervalMs, windowMs }, resolve, reject });
        if (queue.length === 1) setImmediate(flush);
      });
    },
    clear() {
      retrying(() => sqlite.exec("DELETE FROM rate_limits"));
    },
    close() {
      sqlite.close();
    },
  };
}
