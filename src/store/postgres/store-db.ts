/**
 * The one query builder of the shared repositories (src/store/store-db.ts) on PostgreSQL:
 * drizzle's SQLite dialect compiles each query over the one schema, as on the embedded file, and
 * its SQL runs here on the pool, its `?` numbered as PostgreSQL takes them (`$1`...). Rows come
 * back as arrays, which drizzle maps through the SQLite columns as it maps better-sqlite3's: a
 * boolean read as `true` is true (SQLite's mapper reads `Number(value) === 1`), a JSON column's
 * text is parsed, an int8 is a number (pool.ts). Values go the same way: a boolean is written
 * as 1 or 0, which PostgreSQL reads as a boolean where the column is one.
 */
import type pg from "pg";
import { NUMBERED_BY_THE_STORE } from "../rowid.ts";
import * as schema from "../schema.ts";
import { runAwaiting, type StoreDb, type TransactionOptions, type Work, withTransactions } from "../store-db.ts";
import { SQL_DEFAULTS } from "./derive-schema.ts";
import { drizzleSqliteProxy } from "./drizzle.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { inTransaction, type Queryable } from "./transaction.ts";

/** The connection of each transaction's StoreDb, for a statement the shared builder cannot write yet. */
const transactions = new WeakMap<StoreDb, pg.PoolClient>();

/** The shared repositories' StoreDb over the pool: each query on any pooled connection, a transaction on one. */
export function postgresStoreDb(pool: pg.Pool): StoreDb {
  return withTransactions(over(pool), (work, options) =>
    inTransaction(pool, (client) => workOn(client, work, options)),
  );
}

/**
 * The same, its transactions committed through the leader's fence (leader-fence.ts): for the
 * work done once across the deployment (the retention's batches).
 */
export function fencedStoreDb(pool: pg.Pool, fence: LeaderFence): StoreDb {
  return withTransactions(over(pool), (work, options) => fence.transaction((client) => workOn(client, work, options)));
}

async function workOn<T>(client: pg.PoolClient, work: Work<T>, options: TransactionOptions): Promise<T> {
  if (options.serializedBy !== undefined)
    await client.query("SELECT pg_advisory_xact_lock($1)", [options.serializedBy]);
  const tx = over(client);
  transactions.set(tx, client);
  return runAwaiting(work(tx));
}

/**
 * The connection a transaction's work runs on (its `tx`), for what is still written for
 * PostgreSQL alone (a claim, until the merchant space is shared). Throws outside a transaction.
 */
export function connectionOf(tx: StoreDb): pg.PoolClient {
  const client = transactions.get(tx);
  if (!client) throw new Error("connectionOf takes the StoreDb a transaction's work is given");
  return client;
}

/** A StoreDb on one connection (inside a transaction its caller holds). */
export function storeDbOn(connection: Queryable): StoreDb {
  return over(connection);
}

function over(connection: Queryable): StoreDb {
  return drizzleSqliteProxy(
    async (statement, params, method) => {
      const text = postgresText(statement);
      if (method === "run") {
        await connection.query(text, params);
        return { rows: [] };
      }
      const { rows } = await connection.query<unknown[]>({ text, values: params, rowMode: "array" });
      // `get` answers one row (an array of values), not a list of them, and undefined for none
      // (drizzle's mapper reads it so, whatever its type says).
      return { rows: (method === "get" ? rows[0] : rows) as unknown[] };
    },
    { schema },
  );
}

/** What each statement became, kept: a prepared query sends the same text every time. */
const translated = new Map<string, string>();
const KEPT_AT_MOST = 2_000;

/**
 * The SQL drizzle's SQLite dialect writes, as PostgreSQL reads it: its `?` parameters numbered
 * `$1`, `$2`... in order (those inside a quoted string or name left alone: drizzle writes every
 * value as a parameter, so a literal holds one only when a `sql` template says so); DEFAULT for
 * a rowid an insert leaves out (rowid.ts) and PostgreSQL's expression for a SQLite SQL default
 * (derive-schema.ts); the columns of an ON CONFLICT target named without their table, which
 * PostgreSQL refuses.
 */
export function postgresText(statement: string): string {
  const known = translated.get(statement);
  if (known !== undefined) return known;
  let text = "";
  let count = 0;
  let quote: string | null = null;
  for (const character of statement) {
    if (quote !== null) {
      if (character === quote) quote = null;
    } else if (character === "'" || character === '"') {
      quote = character;
    } else if (character === "?") {
      text += `$${++count}`;
      continue;
    }
    text += character;
  }
  // What SQLite's dialect writes for a value an insert leaves out: a rowid's marker, an SQL default.
  text = text.replaceAll(NUMBERED_BY_THE_STORE, "default");
  for (const [sqlite, postgres] of Object.entries(SQL_DEFAULTS)) text = text.replaceAll(sqlite, `(${postgres})`);
  text = text.replace(
    / on conflict \(([^)]*)\)/g,
    (_clause, target: string) => ` on conflict (${target.replace(/"[^"]*"\./g, "")})`,
  );
  if (translated.size >= KEPT_AT_MOST) translated.clear();
  translated.set(statement, text);
  return text;
}
