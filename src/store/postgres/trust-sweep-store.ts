import type pg from "pg";
import type { SweptChange, TrustSweepPosition, TrustSweepStore } from "../../domain/trust/trust-sweep.ts";
import { recordedValue, trustSweepStatements } from "../trust-sweep-store.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { firstRow, numbered } from "./transaction.ts";

/** The SQLite store's statements (trust-sweep-store.ts), a list parameter an array; numbered when sent. */
export const POSTGRES_TRUST_SWEEP_SQL = trustSweepStatements({
  rows: (parameter) => `(SELECT unnest(@${parameter}::text[]) AS item)`,
  holds: (column, parameter) => `${column} = ANY(@${parameter}::text[])`,
});

/**
 * The sweep of trust changes on PostgreSQL. Its writes go through the leader's fence
 * (leader-fence.ts): once the server's background work follows its election, a deposed leader's
 * sweep commits nothing (an operator's `npm run refresh` or `search -- sync` is not fenced).
 */
export function createPostgresTrustSweepStore(pool: pg.Pool, fence: LeaderFence): TrustSweepStore {
  const sql = POSTGRES_TRUST_SWEEP_SQL;
  return {
    async readPosition() {
      const row = await firstRow<{ position: string }>(pool, sql.position, []);
      return row ? (JSON.parse(row.position) as TrustSweepPosition) : null;
    },
    async expiring(after, until, limit) {
      const { text, values } = numbered(sql.expiring, { afterAt: after.at, afterAbId: after.abId, until, limit });
      return (await pool.query<SweptChange>(text, values)).rows;
    },
    async recordedAs(key, recorded, afterAbId, limit) {
      const { text, values } = numbered(sql.recordedAs, {
        key,
        values: recorded.map(recordedValue),
        afterAbId: afterAbId ?? "",
        limit,
      });
      return (await pool.query<{ abId: string }>(text, values)).rows.map((row) => row.abId);
    },
    advance: (touched, from, to) =>
      fence.transaction(async (client) => {
        const moving =
          from === null
            ? numbered(sql.start, { to: JSON.stringify(to) })
            : numbered(sql.move, { to: JSON.stringify(to), from: JSON.stringify(from) });
        // Another sweep moving the row at the same time waits for this one, then finds it moved.
        if ((await client.query(moving.text, moving.values)).rowCount !== 1) return false;
        if (touched.length > 0) {
          const revision = (await client.query<{ revision: number }>(sql.revision)).rows[0]?.revision ?? 0;
          const touching = numbered(sql.touch, { abIds: [...touched], revision });
          await client.query(touching.text, touching.values);
        }
        return true;
      }),
  };
}
