/**
 * One home for the PostgreSQL store's transactions: `work` runs on one pooled connection between
 * BEGIN and COMMIT, rolled back when it throws. The domain never holds a transaction across its
 * own awaits (docs/several-machines.md): a store method that must be atomic is one of these.
 */
import type pg from "pg";

export type Queryable = pg.Pool | pg.PoolClient;

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The first row a statement answers, or undefined. */
export async function firstRow<T extends pg.QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[],
): Promise<T | undefined> {
  return (await db.query<T>(text, values)).rows[0];
}
