/**
 * Rate limiting with GCRA (the generic cell rate algorithm, a token bucket kept as one number
 * per key): a budget of `limit` requests per `windowSeconds` refills continuously (one unit
 * every windowSeconds / limit) and allows a burst of the whole budget. Each key holds a single
 * "theoretical arrival time" (TAT), the instant its budget is whole again.
 *
 * The arithmetic lives here, once; where the TATs live is a port (`RateLimitStore`): in memory
 * for one process, a SQLite file shared by every server process on the machine, or Redis. A
 * store only has to make one step atomic: advance a key's TAT when the call fits in the window.
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
  consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /** Forgets every key (tests, operator reset). */
  clear(): Promise<void>;
}

/** One atomic GCRA step, as a store answers it. */
export interface AdvanceResult {
  allowed: boolean;
  /** The key's TAT after the step when allowed; its current TAT (at least `now`) when refused. */
  tat: number;
}

/**
 * Where the TATs live. `advance` must be atomic across every process sharing the store:
 * start = max(stored TAT, now); if start + intervalMs - now <= windowMs, store start + intervalMs
 * and answer allowed; else change nothing and answer refused with start.
 */
export interface RateLimitStore {
  advance(key: string, now: number, intervalMs: number, windowMs: number): AdvanceResult | Promise<AdvanceResult>;
  clear(): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** Tolerance for the floating-point TATs (ms): a whole budget spent at one instant still fits. */
export const GCRA_EPSILON_MS = 1e-6;

export interface RateLimiterOptions {
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
  /**
   * Told when the store cannot answer (Redis down, the SQLite file locked too long). The request
   * is then let through: an outage of the limiter's store must not become an outage of the
   * registry, and the operators hear of it here.
   */
  onStoreFailure?: (error: unknown) => void;
}

export function createRateLimiter(store: RateLimitStore, options: RateLimiterOptions = {}): RateLimiter {
  const clock = options.clock ?? Date.now;
  return {
    async consume(key, limit, windowSeconds) {
      const now = clock();
      const windowMs = windowSeconds * 1000;
      const interval = windowMs / limit;
      let step: AdvanceResult;
      try {
        step = await store.advance(key, now, interval, windowMs);
      } catch (error) {
        options.onStoreFailure?.(error);
        return { allowed: true, remaining: limit - 1, resetSeconds: 0, retryAfterSeconds: 0 };
      }
      if (!step.allowed) {
        const next = step.tat + interval;
        return {
          allowed: false,
          remaining: 0,
          resetSeconds: Math.ceil((step.tat - now) / 1000),
          retryAfterSeconds: Math.max(1, Math.ceil((next - windowMs - now) / 1000)),
        };
      }
      return {
        allowed: true,
        remaining: Math.floor((windowMs - (step.tat - now)) / interval + 1e-9),
        resetSeconds: Math.ceil((step.tat - now) / 1000),
        retryAfterSeconds: 0,
      };
    },
    async clear() {
      await store.clear();
    },
  };
}

export interface InMemoryRateLimitStoreOptions {
  /** Upper bound on tracked keys; beyond it, stale keys are swept, then the least loaded budgets dropped. */
  maxKeys?: number;
  /** Stale keys (budget fully refilled) are swept at most this often (ms of the callers' clock). */
  sweepIntervalMs?: number;
}

export interface InMemoryRateLimitStore extends RateLimitStore {
  /** Keys currently tracked. */
  readonly size: number;
}

/** The TATs of one process: for tests and tools; the servers share theirs (src/store). */
export function createInMemoryRateLimitStore(options: InMemoryRateLimitStoreOptions = {}): InMemoryRateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const tat = new Map<string, number>();
  let nextSweepAt = Number.NEGATIVE_INFINITY;

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
    advance(key, now, intervalMs, windowMs) {
      if (nextSweepAt === Number.NEGATIVE_INFINITY) nextSweepAt = now + sweepIntervalMs;
      else if (now >= nextSweepAt) sweep(now);
      const stored = tat.get(key);
      const start = stored === undefined || stored < now ? now : stored;
      const next = start + intervalMs;
      if (next - now > windowMs + GCRA_EPSILON_MS) return { allowed: false, tat: start };
      if (stored === undefined && tat.size >= maxKeys) evictOverflow(now);
      tat.set(key, next);
      return { allowed: true, tat: next };
    },
    clear() {
      tat.clear();
    },
    get size() {
      return tat.size;
    },
  };
}
