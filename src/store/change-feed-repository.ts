import type { ChangeFeedStore } from "../domain/registry/read-changes.ts";
import type { Db } from "./db.ts";

/** The change feed (merchant_changes, append-only): one ordered range of its primary key a page. */
export function createChangeFeedRepository(db: Db): ChangeFeedStore {
  const page = db.$client.prepare<
    [number, number],
    { seq: number; abId: string; revision: number; change: string; changedAt: string }
  >(
    `SELECT seq, ab_id AS abId, revision, change, changed_at AS changedAt
     FROM merchant_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  return { after: async (after, limit) => page.all(after, limit) };
}
