import type { ChangesAnswer } from "../../schemas/registry.ts";

/** The change feed as the domain reads it (src/store/change-feed-repository.ts). */
export interface ChangeFeedStore {
  /** Up to `limit` changes after position `after` (0: from the beginning), in commit order. */
  after(
    after: number,
    limit: number,
  ): Promise<{ seq: number; abId: string; revision: number; change: string; changedAt: string }[]>;
}

/**
 * A page of the registry's change feed: every listed merchant that appeared (created), changed
 * (updated) or stopped being listed (withdrawn), in commit order. A mirror that applies pages
 * in turn, passing each next_cursor back as `since`, holds the listed registry as it is.
 */
export async function readChanges(
  deps: { changes: ChangeFeedStore },
  query: { since?: string | undefined; limit: number },
): Promise<ChangesAnswer> {
  const after = query.since === undefined ? 0 : Number(query.since);
  // One more than asked says whether another page is waiting, without a count.
  const rows = await deps.changes.after(after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    changes: page.map((row) => ({
      ab_id: row.abId,
      revision: row.revision,
      change: row.change as ChangesAnswer["changes"][number]["change"],
      changed_at: row.changedAt,
    })),
    next_cursor: String(page.at(-1)?.seq ?? after),
    has_more: rows.length > query.limit,
  };
}
