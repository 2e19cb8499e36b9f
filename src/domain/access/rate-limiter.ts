/**
 * Rate limiting behind one small interface, so that a shared store (Redis, ...) can replace the
 * in-memory implementation when several server processes share one budget.
 *
 * The in-memory implementation is GCRA (the generic cell rate algorithm, a token bucket kept as
 * one number per key): a budget of `limit` requests per `windowSeconds` refills continuously
 * (one unit every windowSeconds / limit) and allows a burst of the whole budget. Each key holds
 * a single "theoretical arrival time"; a call is O(1) and allocates only its answer.
 */

export interface RateLimitDecision {
  allowed: boolean;
  /** Units left after this call (0 when refused). */
  remaining: number;
  /** Seconds until the whole budget is available again (ceil). */
  resetSeconds: number;
  /** Seconds until the next call would be allowed (ceil); 0 when this one was. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request against `key`'s budget of `limit` per `windowSeconds`. */
  consume(key: string, limit: number, windowSeconds: number): RateLimitDecision;
  /** Forgets every key (tests, operator reset). */
  clear(): void;
  /** Keys currently tracked. */
  readonly size: number;
}

export interface InMemoryRateLimiterOptions {
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
  /** Upper bound on tracked keys; beyond it, stale keys are swept, then the least loaded budgets dropped. */
  maxKeys?: number;
  /** Stale keys (budget fully refilled) are swept at most this often (ms). */
  sweepIntervalMs?: number;
}

export function createInMemoryRateLimiter(options: InMemoryRateLimiterOptions = {}): RateLimiter {
  const clock = options.clock ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  /** key -> theoretical arrival time (ms): the instant its budget is whole again. */
  const tat = new Map<string, number>();
  let nextSweepAt = clock() + sweepIntervalMs;

  /** Drops keys whose budget is whole again: they behave exactly like unknown keys. */
  const sweep = (now: number) => {
    for (const [key, value] of tat) if (value <= now) tat.delete(key);
    nextSweepAt = now + sweepIntervalMs;
  };

  /**
   * Too many live keys (a flood of distinct addresses): drop the tenth of them closest to a
   * whole budget, the ones that lose least by being forgotten, and keep the heavy users.
   */
  const evictOverflow = (now: number) => {
    sweep(now);
    const target = maxKeys - Math.ceil(maxKeys / 10);
    if (tat.size <= target) return;
    const sample: number[] = [];
    const step = Math.max(1, Math.floor(tat.size / 1024));
    let index = 0;
    for (const value of tat.values()) if (index++ % step === 0) sample.push(value);
    sample.sort((a, b) => a - b);
    const threshold = sample[Math.floor(((tat.size - target) / tat.size) * (sample.length - 1))] ?? now;
    for (const [key, value] of tat) if (value <= threshold && tat.size > target) tat.delete(key);
    // Equal budgets everywhere: fall back to the oldest keys.
    for (const key of tat.keys()) {
      if (tat.size <= target) break;
      tat.delete(key);
    }
  };

  return {
    consume(key, limit, windowSeconds) {
      const now = clock();
      if (now >= nextSweepAt) sweep(now);
      const windowMs = windowSeconds * 1000;
      const interval = windowMs / limit;
      const stored = tat.get(key);
      const start = stored === undefined || stored < now ? now : stored;
      const next = start + interval;
      // Allowed while the bucket, after this call, holds no more than the whole window.
      if (next - now > windowMs + 1e-6) {
        return {
          allowed: false,
          remaining: 0,
          resetSeconds: Math.ceil((start - now) / 1000),
          retryAfterSeconds: Math.max(1, Math.ceil((next - windowMs - now) / 1000)),
        };
      }
      if (stored === undefined && tat.size >= maxKeys) evictOverflow(now);
      tat.set(key, next);
      return {
        allowed: true,
        remaining: Math.floor((windowMs - (next - now)) / interval + 1e-9),
        resetSeconds: Math.ceil((next - now) / 1000),
        retryAfterSeconds: 0,
      };
    },
    clear() {
      tat.clear();
    },
    get size() {
      return tat.size;
    },
  };
}
