/**
 * What follows the registry's writes on PostgreSQL: the store revision, the change feed
 * (merchant_changes in commit order, docs/several-machines.md), the search feed (merchant_touches)
 * and the kept search cards. The same statements as the SQLite store's (store-revision.ts,
 * change-feed-repository.ts, search-feed.ts, search-card-store.ts), lists of ids as one array
 * parameter.
 */
import type pg from "pg";
import type { ChangeFeedStore } from "../../domain/registry/read-changes.ts";
import type { KeptCard, SearchCardStore } from "../../domain/registry/search-cards.ts";
import type { SearchFeed } from "../search-feed.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { firstRow, inTransaction } from "./transaction.ts";

export function postgresStoreRevisionReader(pool: pg.Pool): () => Promise<number> {
  return async () =>
    (await firstRow<{ revision: number }>(pool, "SELECT revision FROM store_revision WHERE id = 1", []))?.revision ?? 0;
}

export function createPostgresChangeFeed(pool: pg.Pool): ChangeFeedStore {
  return {
    async after(after, limit) {
      const page = await pool.query<{ seq: number; abId: string; revision: number; change: string; changedAt: string }>(
        `SELECT seq, ab_id AS "abId", revision, change, changed_at AS "changedAt"
         FROM merchant_changes WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [after, limit],
      );
      return page.rows;
    },
  };
}

export function createPostgresSearchFeed(pool: pg.Pool): SearchFeed {
  return {
    revision: postgresStoreRevisionReader(pool),
    async touchedAfter(after, limit) {
      const touched = await pool.query<{ abId: string; touch: number }>(
        `SELECT ab_id AS "abId", touch FROM merchant_touches WHERE touch > $1 ORDER BY touch LIMIT $2`,
        [after, limit],
      );
      return touched.rows;
    },
    async countTouchedAfter(after, upTo) {
      const counted = await firstRow<{ n: number }>(
        pool,
        "SELECT count(*) AS n FROM (SELECT 1 FROM merchant_touches WHERE touch > $1 ORDER BY touch LIMIT $2) touched",
        [after, upTo],
      );
      return counted?.n ?? 0;
    },
  };
}

/**
 * `fence`: the server's, through which the card keeper's writes commit only while its instance
 * leads (the keeper runs on the leader, leader-fence.ts); without it, plain transactions.
 */
export function createPostgresSearchCardStore(pool: pg.Pool, fence?: LeaderFence): SearchCardStore {
  const write = <T>(work: (client: pg.PoolClient) => Promise<T>) =>
    fence ? fence.transaction(work) : inTransaction(pool, work);
  return {
    async read(abIds, format, nowIso) {
      const cards = new Map<string, KeptCard>();
      if (abIds.length === 0) return cards;
      const current = await pool.query<{ ab_id: string; card: string }>(
        `SELECT c.ab_id, c.card FROM kept_cards c LEFT JOIN merchant_touches t ON t.ab_id = c.ab_id
         WHERE c.ab_id = ANY($1::text[]) AND c.format = $2
           AND coalesce(t.touch, 0) <= c.built_at AND (c.valid_until IS NULL OR c.valid_until > $3)`,
        [abIds, format, nowIso],
      );
      for (const row of current.rows) cards.set(row.ab_id, JSON.parse(row.card) as KeptCard);
      return cards;
    },
    write: (cards, format, builtAt) =>
      write(async (client) => {
        for (const [abId, card] of cards) {
          await client.query(
            `INSERT INTO kept_cards (ab_id, format, built_at, valid_until, card) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (ab_id) DO UPDATE SET format = excluded.format, built_at = excluded.built_at,
               valid_until = excluded.valid_until, card = excluded.card`,
            [abId, format, builtAt, card.validUntil, JSON.stringify(card)],
          );
        }
      }),
    async merchantIdsAfter(after, limit) {
      const ids = await pool.query<{ ab_id: string }>(
        "SELECT ab_id FROM merchants WHERE ab_id > $1 ORDER BY ab_id LIMIT $2",
        [after ?? "", limit],
      );
      return ids.rows.map((row) => row.ab_id);
    },
    async expired(format, nowIso, limit) {
      const ids = await pool.query<{ ab_id: string }>(
        "SELECT ab_id FROM kept_cards WHERE format = $1 AND valid_until <= $2 ORDER BY valid_until LIMIT $3",
        [format, nowIso, limit],
      );
      return ids.rows.map((row) => row.ab_id);
    },
    dropOtherFormats: (format) =>
      write(async (client) => {
        await client.query("DELETE FROM kept_cards WHERE format <> $1", [format]);
        await client.query("DELETE FROM kept_card_cursors WHERE format <> $1", [format]);
      }),
    revision: postgresStoreRevisionReader(pool),
    async readCursor(format) {
      return (
        (
          await firstRow<{ revision: number }>(pool, "SELECT revision FROM kept_card_cursors WHERE format = $1", [
            format,
          ])
        )?.revision ?? null
      );
    },
    async writeCursor(format, revision) {
      await write((client) =>
        client.query(
          `INSERT INTO kept_card_cursors (format, revision) VALUES ($1, $2)
           ON CONFLICT (format) DO UPDATE SET revision = excluded.revision`,
          [format, revision],
        ),
      );
    },
  };
}
