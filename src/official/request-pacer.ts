/**
 * Client-side pacing of the requests to one API: each request starts at least 1/perSecond of a
 * second after the one before, plus a margin (7 a second: one every 158 ms), so no burst ever
 * reaches the server; a 429's Retry-After holds every request back until it has passed. Shared by
 * every caller of one client, concurrent ones included (the start is booked synchronously).
 */
export interface RequestPacer {
  /** Resolves when the next request may start, and books that start. */
  acquire(): Promise<void>;
  /** No request starts for the next `ms` (a Retry-After). */
  holdFor(ms: number): void;
}

export interface PacerOptions {
  perSecond: number;
  /**
   * Added to each interval. The pacer sees when a request starts, the server when it arrives: a
   * request held up on its way (a busy event loop, the network) lands closer to the next one than
   * it left. With 15 ms at 7 a second, seven intervals span 1.1 s, so arrivals may slip by 100 ms
   * before eight fall inside one second at the server.
   */
  marginMs?: number;
  /** A monotonic clock in milliseconds (default performance.now). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRequestPacer(options: PacerOptions): RequestPacer {
  if (!(options.perSecond > 0)) throw new RangeError("perSecond must be positive");
  const interval = 1000 / options.perSecond + (options.marginMs ?? 0);
  const clock = options.now ?? (() => performance.now());
  const wait = options.sleep ?? sleep;
  let nextStart = Number.NEGATIVE_INFINITY;
  let heldUntil = Number.NEGATIVE_INFINITY;
  return {
    async acquire() {
      // Loop: a hold set while this caller slept pushes its start back too.
      for (;;) {
        const now = clock();
        const start = Math.max(now, nextStart, heldUntil);
        if (start <= now) {
          nextStart = now + interval;
          return;
        }
        await wait(Math.ceil(start - now));
      }
    },
    holdFor(ms) {
      heldUntil = Math.max(heldUntil, clock() + ms);
    },
  };
}
