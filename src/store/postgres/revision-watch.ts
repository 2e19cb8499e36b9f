/**
 * The store revision as an instance of a PostgreSQL deployment knows it (docs/several-machines.md,
 * "Caches that follow writes made elsewhere"): kept in memory and moved by the revision notices
 * (notices.ts), so a request checks its kept answers without a query.
 *
 * What is kept is trusted only while it cannot be older than the database:
 * - while the notice connection listens (a notice sent while it was down is lost);
 * - and no write of this process that may move the revision (a statement naming a revisioned
 *   table, then its transaction's commit: pool.ts) finished since the read it came from began: a
 *   request that writes then reads on this instance sees its write even before the write's notice
 *   arrives. Leads, the outbox or rate limits never move it, so they leave it trusted.
 * Otherwise `known()` is null and `read()` asks the database (the answer is kept again when
 * nothing moved meanwhile). Revisions only grow, so of two reads the larger is kept.
 */
import type pg from "pg";
import { listenForNotices, type NoticeListener } from "./notices.ts";

/** The channel migration 0002's trigger notifies when a transaction moved the revision. */
export const REVISION_CHANNEL = "abeille_revision";

export interface RevisionWatch {
  /** The revision now when known without waiting, else null. */
  known(): number | null;
  /** The revision now: the known one, else read from the database. */
  read(): Promise<number>;
  /** A write of this process that may have moved the revision finished: what is kept may be older than it. */
  afterWrite(): void;
  listening(): boolean;
  stop(): Promise<void>;
}

export function watchStoreRevision(options: {
  url: string;
  pool: pg.Pool;
  retryMs?: number;
  applicationName?: string;
}): RevisionWatch {
  let kept: number | null = null;
  /** Moves at each event after which a read begun before it may be stale. */
  let generation = 0;
  let listener: NoticeListener | null = null;

  const forget = () => {
    kept = null;
    generation += 1;
  };

  const read = async (): Promise<number> => {
    const begunAt = generation;
    const result = await options.pool.query<{ revision: number }>("SELECT revision FROM store_revision WHERE id = 1");
    const revision = result.rows[0]?.revision ?? 0;
    if (begunAt === generation && listener?.listening()) kept = Math.max(kept ?? revision, revision);
    return revision;
  };

  const readQuietly = () => {
    // A failed read leaves nothing kept: the next request reads (and answers 503 if the database is gone).
    read().catch(forget);
  };

  listener = listenForNotices({
    url: options.url,
    channels: [REVISION_CHANNEL],
    applicationName: options.applicationName ?? "abeille-revision",
    ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
    onNotice: () => {
      forget();
      readQuietly();
    },
    onListening: (listening) => {
      forget();
      if (listening) readQuietly();
    },
  });

  return {
    known: () => kept,
    read: () => (kept === null ? read() : Promise.resolve(kept)),
    afterWrite: forget,
    listening: () => listener?.listening() ?? false,
    stop: async () => {
      forget();
      await listener?.stop();
    },
  };
}
