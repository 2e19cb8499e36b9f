/**
 * The rate limiter's TATs in PostgreSQL (migration 0003_rate_limits), for several machines
 * without Redis: one budget across the deployment. The same GCRA step as the SQLite file's
 * (src/store/rate-limit-store.ts). As there, the calls of one turn of the event loop go as one
 * batch, stepped in the order made (abeille_rate_limit_advance, one round trip); a batch leaves
 * only once the one before it answered, so this process's calls are counted in the order made.
 */
import type pg from "pg";
import { type AdvanceResult, GCRA_EPSILON_MS, type RateLimitStore } from "../../domain/access/rate-limiter.ts";

const SWEEP_INTERVAL_MS = 60_000;

interface Queued {
  key: string;
  now: number;
  intervalMs: number;
  windowMs: number;
  resolve: (result: AdvanceResult) => void;
  reject: (error: unknown) => void;
}

export function createPostgresRateLimitStore(pool: pg.Pool): RateLimitStore {
  let nextSweepAt = 0;
  let queue: Queued[] = [];
  let inFlight: Promise<void> | null = null;

  const send = async (batch: Queued[]) => {
    try {
      const now = batch[0]?.now ?? 0;
      if (now >= nextSweepAt) {
        nextSweepAt = now + SWEEP_INTERVAL_MS;
        // Keys whose budget is whole again behave exactly like unknown keys.
        await pool.query({ name: "rate_limits_sweep", text: "DELETE FROM rate_limits WHERE tat <= $1", values: [now] });
      }
      const result = await pool.query<{ allowed_out: boolean; tat_out: number }>({
        name: "rate_limits_advance",
        text: "SELECT allowed_out, tat_out FROM abeille_rate_limit_advance($1, $2, $3, $4) WITH ORDINALITY ORDER BY ordinality",
        values: [
          batch.map((item) => item.key),
          batch.map((item) => item.now),
          batch.map((item) => item.intervalMs),
          batch.map((item) => item.windowMs + GCRA_EPSILON_MS),
        ],
      });
      batch.forEach((item, index) => {
        const row = result.rows[index];
        if (row) item.resolve({ allowed: row.allowed_out, tat: row.tat_out });
        else item.reject(new Error("rate limit store: a step of the batch has no result"));
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  };

  const flush = () => {
    if (inFlight || queue.length === 0) return;
    const batch = queue;
    queue = [];
    inFlight = send(batch).finally(() => {
      inFlight = null;
      flush();
    });
  };

  return {
    advance(key, now, intervalMs, windowMs): Promise<AdvanceResult> {
      return new Promise((resolve, reject) => {
        queue.push({ key, now, intervalMs, windowMs, resolve, reject });
        if (queue.length === 1) setImmediate(flush);
      });
    },
    async clear() {
      await pool.query("DELETE FROM rate_limits");
    },
  };
}
