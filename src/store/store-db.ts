/**
 * One description of each query for both engines (issue 35 item 6, docs/decisions.md "one store").
 * A repository is written once against `StoreDb`: drizzle's SQLite query builder over the one
 * schema (src/store/schema.ts). On the embedded file it is better-sqlite3's drizzle (db.ts): a
 * `.prepare()`d query is a prepared statement run synchronously underneath. On PostgreSQL it is
 * drizzle's sqlite-proxy driver over the pool (postgres/store-db.ts): the same builders compile to
 * the same SQL text, which PostgreSQL reads once its `?` are numbered. Every result is awaited
 * (on SQLite it is there already), so one repository answers the domain's async ports on both.
 *
 * What the SQL of a shared repository must be: SQL both engines read alike (drizzle's builders,
 * `sql` with columns and values; no SQLite-only function or PostgreSQL-only cast), and raw results
 * read through `.values()` or a builder's select (never `db.all(sql...)`: on PostgreSQL its rows
 * come back as arrays). A write whose count matters says `.returning()` and counts the rows.
 */
import Database from "better-sqlite3";
import type { BaseSQLiteDatabase, SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./db.ts";
import { eq, sql } from "./drizzle.ts";
import type * as schema from "./schema.ts";

/** drizzle's SQLite query builder over the one schema, synchronous (SQLite) or not (PostgreSQL). */
export type StoreDb = BaseSQLiteDatabase<"sync" | "async", unknown, typeof schema>;

/**
 * A statement of a transaction, run by the engine's own driver: at once inside better-sqlite3's
 * transaction on SQLite, awaited on the transaction's one connection on PostgreSQL.
 */
export type Statement = () => unknown;

/**
 * A transaction's work, written once for both engines: a generator that yields its statements
 * (`yield* rows(...)`, `yield* run(...)`) and returns its result. A generator, not an async
 * function, because better-sqlite3 runs a transaction synchronously: no other request's statement
 * may land inside it, which an `await` between two statements would allow. The work builds its
 * queries from `tx` (on PostgreSQL, the transaction's connection), never from a query prepared on
 * the pool, and does not catch a statement's error: it rolls the whole transaction back.
 */
export type Work<T> = (tx: StoreDb) => Generator<Statement, T, unknown>;

/** A statement's answer, inside a transaction's work (what `rows` and `run` are made of). */
export function* step<T>(statement: () => T | Promise<T>): Generator<Statement, T, unknown> {
  // The driver sends back what this very statement answered (awaited on PostgreSQL).
  return (yield statement) as T;
}

/** A query's rows (a select, or a write with `.returning()`), inside a transaction's work. */
export function* rows<T>(query: { all(): T | Promise<T> }): Generator<Statement, T, unknown> {
  return yield* step(() => query.all());
}

/** A write whose result the work does not read, inside a transaction's work. */
export function* run(query: { run(): unknown }): Generator<Statement, void, unknown> {
  yield () => query.run();
}

/** How an engine other than the embedded file runs a transaction's work (postgres/store-db.ts). */
export type TransactionDriver = <T>(work: Work<T>, options: TransactionOptions) => Promise<T>;

export interface TransactionOptions {
  /**
   * Transactions naming the same key run one after another, even when the rows they read do not
   * exist yet to be locked: SQLite's IMMEDIATE transactions already run one at a time; PostgreSQL
   * takes a transaction-level advisory lock on the key first.
   */
  serializedBy?: number;
}

const drivers = new WeakMap<StoreDb, TransactionDriver>();

/** Says how transactions run on a StoreDb that is not better-sqlite3's. */
export function withTransactions(db: StoreDb, driver: TransactionDriver): StoreDb {
  drivers.set(db, driver);
  return db;
}

/** `work` in one transaction, BEGIN IMMEDIATE on SQLite (the write-lock rule), rolled back when it throws. */
export async function inTransaction<T>(db: StoreDb, work: Work<T>, options: TransactionOptions = {}): Promise<T> {
  const driver = drivers.get(db);
  if (driver) return driver(work, options);
  if (!isSqlite(db)) throw new Error("a StoreDb that is neither better-sqlite3's nor given a transaction driver");
  return db.$client.transaction(() => runNow(work(db))).immediate();
}

function isSqlite(db: StoreDb): db is Db {
  return "$client" in db && db.$client instanceof Database;
}

/** The embedded file's drizzle, when `db` is one: for what only SQLite has to do (its WAL). */
export function sqliteOf(db: StoreDb): Db | null {
  return isSqlite(db) ? db : null;
}

/**
 * Runs a transaction's work on SQLite, each statement at once: inside `inTransaction`, or inside
 * a better-sqlite3 transaction a repository not shared yet holds.
 */
export function runNow<T>(work: Generator<Statement, T, unknown>): T {
  let step = work.next();
  while (!step.done) {
    const result = step.value();
    if (result instanceof Promise) throw new Error("a statement of a SQLite transaction answered a Promise");
    step = work.next(result);
  }
  return step.value;
}

/** Runs a transaction's work whose statements answer Promises (postgres/store-db.ts). */
export async function runAwaiting<T>(work: Generator<Statement, T, unknown>): Promise<T> {
  let step = work.next();
  while (!step.done) step = work.next(await step.value());
  return step.value;
}

/**
 * The prepared read of `table`'s rows whose `column` equals the value named `name` (`get` for the
 * first, `all` for every one): a lookup by key, prepared once.
 */
export function byKey<Table extends SQLiteTable>(db: StoreDb, table: Table, column: SQLiteColumn, name: string) {
  return db
    .select()
    .from(table)
    .where(eq(column, sql.placeholder(name)))
    .prepare();
}
