/**
 * Retry schedule of the outbox: the delay after the n-th failed attempt. Six attempts in all over
 * about 15 hours (now, +1 min, +5 min, +30 min, +2 h, +12 h); after the sixth the message fails.
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 12 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Null once `attempts` have been made and none is left; else the delay before the next one. */
export function retryDelayMs(attempts: number): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return RETRY_DELAYS_MS[Math.max(0, attempts - 1)] ?? null;
}
