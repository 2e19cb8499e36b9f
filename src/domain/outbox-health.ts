import { readAtMostEvery } from "./read-at-most.ts";

/**
 * The outbox's figures in the health check: how many emails wait to be delivered and for how long
 * the oldest has waited. A monitor sees a stuck or slow delivery (an SMTP server gone, a worker
 * that stopped) before merchants miss their leads. The health check is load-balancer traffic, so
 * the figures are read at most once per `cacheMs` and shared by the requests in between.
 */

export interface OutboxHealth {
  pending: number;
  /** Whole seconds since the oldest waiting email was written; null when none waits. */
  oldest_pending_age_seconds: number | null;
}

export interface OutboxHealthOptions {
  backlog: () => Promise<{ pending: number; oldestCreatedAt: string | null }>;
  now: () => Date;
  /** How long one read is reused (ms); at most about a second. */
  cacheMs?: number;
}

export function createOutboxHealth(options: OutboxHealthOptions): () => Promise<OutboxHealth> {
  const now = () => options.now().getTime();
  return readAtMostEvery(
    options.cacheMs ?? 1000,
    async () => {
      const { pending, oldestCreatedAt } = await options.backlog();
      return {
        pending,
        oldest_pending_age_seconds:
          oldestCreatedAt === null ? null : Math.max(0, Math.floor((now() - Date.parse(oldestCreatedAt)) / 1000)),
      };
    },
    now,
  );
}
