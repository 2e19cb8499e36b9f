/**
 * A read the health check makes, shared: the health check is load-balancer traffic, so each of
 * its parts (the database probe, the outbox backlog, the search engine's state) is read at most
 * once per interval and the answer shared by the requests in between; requests that come while a
 * read is under way wait for that read instead of starting their own. A failed read is not kept:
 * the next request reads again, so an outage shows at once and a recovery as soon as it is seen.
 */
export function readAtMostEvery<T>(
  intervalMs: number,
  read: () => Promise<T>,
  now: () => number = Date.now,
): () => Promise<T> {
  let kept: { at: number; value: T } | null = null;
  let running: Promise<T> | null = null;
  return () => {
    const at = now();
    // A clock that went back does not keep an answer longer.
    if (kept && at - kept.at < intervalMs && at >= kept.at) return Promise.resolve(kept.value);
    running ??= read().then(
      (value) => {
        kept = { at, value };
        running = null;
        return value;
      },
      (error: unknown) => {
        running = null;
        throw error;
      },
    );
    return running;
  };
}
