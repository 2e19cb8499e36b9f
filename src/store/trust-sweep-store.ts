import type { SweptChange, TrustSweepPosition, TrustSweepStore } from "../domain/trust/trust-sweep.ts";
import type { Db } from "./db.ts";
import { writeLock } from "./write-lock.ts";

/*
 * The sweep of trust changes' reads and write (src/domain/trust/trust-sweep.ts), over the SQLite
 * file. The statements are written once with named parameters, for both engines (the PostgreSQL
 * twin, postgres/trust-sweep-store.ts, numbers them); a list parameter is the one part each engine
 * writes its own way (ListParameters).
 */

/** How an engine reads a list parameter: as the rows of one column, `item`, and as a set a column is in. */
export interface ListParameters {
  rows(parameter: string): string;
  holds(column: string, parameter: string): string;
}

/**
 * The sweep's statements, a list parameter read as `list` says. Each read is a range of one index
 * (schema.ts signals_expiring, signals_recorded): the partial index's condition
 * `status = 'verified'` is written out, so that both engines' planners take it.
 */
export function trustSweepStatements(list: ListParameters) {
  return {
    position: "SELECT position FROM trust_sweeps WHERE id = 1",
    // The lower bound `expires_at >= @afterAt` makes the range start where the sweep is: the
    // expiries already swept are not walked again.
    expiring: `SELECT DISTINCT expires_at AS "at", ab_id AS "abId" FROM signals
      WHERE status = 'verified' AND expires_at >= @afterAt AND expires_at <= @until
        AND (expires_at > @afterAt OR ab_id > @afterAbId)
      ORDER BY expires_at, ab_id LIMIT @limit`,
    recordedAs: `SELECT DISTINCT ab_id AS "abId" FROM signals
      WHERE status = 'verified' AND key = @key AND ${list.holds("value", "values")} AND ab_id > @afterAbId
      ORDER BY ab_id LIMIT @limit`,
    start: "INSERT INTO trust_sweeps (id, position) VALUES (1, @to) ON CONFLICT (id) DO NOTHING",
    move: "UPDATE trust_sweeps SET position = @to WHERE id = 1 AND position = @from",
    revision: "UPDATE store_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision",
    // `WHERE true`: SQLite reads ON CONFLICT after a SELECT only past a WHERE; the cast types the
    // parameter for PostgreSQL.
    touch: `INSERT INTO merchant_touches (ab_id, touch) SELECT touched.item, CAST(@revision AS BIGINT) FROM ${list.rows("abIds")} AS touched
      WHERE true ON CONFLICT (ab_id) DO UPDATE SET touch = excluded.touch`,
  };
}

/** The statements as the SQLite store runs them: a list parameter is JSON text, read by json_each. */
export const SQLITE_TRUST_SWEEP_SQL = trustSweepStatements({
  rows: (parameter) => `(SELECT value AS item FROM json_each(@${parameter}))`,
  holds: (column, parameter) => `${column} IN (SELECT value FROM json_each(@${parameter}))`,
});

/** A recorded value as the signals table holds it (JSON text, schema.ts `value`). */
export const recordedValue = (value: string): string => JSON.stringify(value);

export function createTrustSweepStore(db: Db): TrustSweepStore {
  const sqlite = db.$client;
  const sql = SQLITE_TRUST_SWEEP_SQL;
  const position = sqlite.prepare<[], string>(sql.position).pluck();
  const expiring = sqlite.prepare<
    [{ afterAt: string; afterAbId: string | null; until: string; limit: number }],
    SweptChange
  >(sql.expiring);
  const recordedAs = sqlite
    .prepare<[{ key: string; values: string; afterAbId: string; limit: number }], string>(sql.recordedAs)
    .pluck();
  const start = sqlite.prepare<[{ to: string }]>(sql.start);
  const move = sqlite.prepare<[{ to: string; from: string }]>(sql.move);
  const revision = sqlite.prepare<[], number>(sql.revision).pluck();
  const touch = sqlite.prepare<[{ abIds: string; revision: number }]>(sql.touch);
  /** Moves the position and records the touches; inside the write transaction whenFree begins. */
  const advance = (touched: readonly string[], from: TrustSweepPosition | null, to: TrustSweepPosition): boolean => {
    const moved =
      from === null
        ? start.run({ to: JSON.stringify(to) })
        : move.run({ to: JSON.stringify(to), from: JSON.stringify(from) });
    if (moved.changes !== 1) return false;
    if (touched.length > 0) touch.run({ abIds: JSON.stringify(touched), revision: revision.get() ?? 0 });
    return true;
  };
  // The server's owner process sweeps: it waits for the write lock without sleeping on its thread.
  const lock = writeLock(sqlite);
  return {
    readPosition: async () => {
      const text = position.get();
      return text === undefined ? null : (JSON.parse(text) as TrustSweepPosition);
    },
    expiring: async (after, until, limit) => expiring.all({ afterAt: after.at, afterAbId: after.abId, until, limit }),
    recordedAs: async (key, values, afterAbId, limit) =>
      recordedAs.all({ key, values: JSON.stringify(values.map(recordedValue)), afterAbId: afterAbId ?? "", limit }),
    advance: (touched, from, to) => lock.whenFree(() => advance(touched, from, to)),
  };
}
