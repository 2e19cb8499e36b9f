/**
 * One home for the PostgreSQL store's transactions: `work` runs on one pooled connection between
 * BEGIN and COMMIT, rolled back when it throws. Also its first-row reads, and the numbering of
 * statements written with SQLite's named parameters. The domain never holds a transaction across its
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

/**
 * Reads that must describe one state of the store (a batch of profiles, a merchant's rows across
 * tables, a revision and what it covers): one REPEATABLE READ, READ ONLY transaction on one pooled
 * connection, so every statement of `read` sees the snapshot its first one took, and a write
 * committed between two of them is seen by none.
 */
export function inOneSnapshot<T>(pool: pg.Pool, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return read(client);
  });
}

/** The first row a statement answers, or undefined. */
export async function firstRow<T extends pg.QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[],
): Promise<T | undefined> {
  return (await db.query<T>(text, values)).rows[0];
}

/**
 * A statement written with named parameters (`@name`, as the SQLite store writes them), numbered
 * as PostgreSQL takes them (`$1`...), with its values in that order; a name given twice is one
 * parameter. A name without a value is a mistake in the statement, said by name.
 */
export function numbered(statement: string, parameters: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const text = statement.replace(/@([a-zA-Z]+)/g, (_match, name: string) => {
    if (!(name in parameters)) throw new Error(`the statement names an unknown parameter @${name}`);
    const index = names.indexOf(name);
    if (index >= 0) return `$${index + 1}`;
    names.push(name);
    return `$${names.length}`;
  });
  return { text, values: names.map((name) => parameters[name]) };
}
