/**
 * The copy of an embedded SQLite store into a PostgreSQL database (`npm run db -- copy`, issue 26):
 * every table of the schema, in foreign-key order, read from ONE SQLite read transaction (a
 * consistent snapshot, while a server may go on writing beside it) and written in ONE PostgreSQL
 * transaction, so that a copy that fails or is killed halfway leaves the target as it was.
 *
 * The tables, their columns and their PostgreSQL types come from the derived PostgreSQL schema
 * (schema.ts, itself derived from src/store/schema.ts): a table or a column added to the schema is
 * copied without a change here. The embedded search index's tables (search_*) are not in the
 * schema: on PostgreSQL search is Meilisearch's, rebuilt from the store (docs/search.md).
 *
 * Rows are copied as they are: the user triggers of the target's tables (the store revision and
 * merchant touches, the append-only guards of the audit log and the change feed) are disabled for
 * the copy's transaction (`ALTER TABLE ... DISABLE TRIGGER USER`, transactional, so a rollback
 * brings them back), and `merchant_touches` and `store_revision` get the source's rows instead of
 * the numbers the triggers would have made. Foreign keys stay checked (they are internal
 * triggers, which `DISABLE TRIGGER USER` keeps; `session_replication_role = replica` would have
 * skipped them too, and needs a superuser).
 */
import type Database from "better-sqlite3";
import type { PgTable as Table } from "drizzle-orm/pg-core";
import type pg from "pg";
import { getPgTableConfig, is, PgTable } from "./drizzle.ts";
import * as postgresSchema from "./schema.ts";

/** The PostgreSQL types of the schema's columns (derive-schema.ts), as unnest's array casts name them. */
export type CopyColumnType = "text" | "boolean" | "bigint" | "double precision";
const COLUMN_TYPES = new Set<string>(["text", "boolean", "bigint", "double precision"]);

export interface CopyColumn {
  name: string;
  type: CopyColumnType;
}

export interface CopyTable {
  name: string;
  columns: CopyColumn[];
  /** The identity column (an INTEGER PRIMARY KEY on SQLite) whose sequence the copy moves, if any. */
  identity: string | null;
  /** The primary key's columns, in order. */
  primaryKey: string[];
}

/**
 * Rows the PostgreSQL migrations insert themselves, as a predicate on the table: they are not a
 * registry, and the copy replaces them with the source's (0001_store_triggers.sql seeds the one
 * store revision row at 0).
 */
const SEEDED_BY_MIGRATIONS: Readonly<Record<string, string>> = { store_revision: `"revision" = 0` };

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The schema's tables, each after the tables it references (a foreign key's target is filled first). */
export function copyPlan(schema: Record<string, unknown> = postgresSchema): CopyTable[] {
  const tables = Object.values(schema)
    .filter((value): value is Table => is(value, PgTable))
    .map((table) => getPgTableConfig(table))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const plans = new Map<string, { table: CopyTable; references: string[] }>();
  for (const config of tables) {
    const columns = config.columns.map((column) => {
      const type = column.getSQLType();
      if (!COLUMN_TYPES.has(type))
        throw new Error(`table ${config.name}, column ${column.name}: the copy does not know the type ${type}`);
      return { name: column.name, type: type as CopyColumnType };
    });
    const identity = config.columns.find((column) => column.generatedIdentity !== undefined)?.name ?? null;
    const primaryKey = config.columns.filter((column) => column.primary).map((column) => column.name);
    for (const key of config.primaryKeys) primaryKey.push(...key.columns.map((column) => column.name));
    const references = config.foreignKeys
      .map((foreignKey) => getPgTableConfig(foreignKey.reference().foreignTable).name)
      .filter((name) => name !== config.name);
    plans.set(config.name, { table: { name: config.name, columns, identity, primaryKey }, references });
  }
  const ordered: CopyTable[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (name: string) => {
    if (placed.has(name)) return;
    const plan = plans.get(name);
    if (!plan) throw new Error(`a foreign key references ${name}, which is not in the schema`);
    if (visiting.has(name)) throw new Error(`the foreign keys around ${name} form a cycle: no order fills them`);
    visiting.add(name);
    for (const reference of plan.references) place(reference);
    visiting.delete(name);
    placed.add(name);
    ordered.push(plan.table);
  };
  for (const name of plans.keys()) place(name);
  return ordered;
}

export interface TableCheck {
  table: string;
  sqlite: number;
  postgres: number;
  /** The highest number of the identity column on each side (the feed's last seq, the audit log's last event id). */
  lastId?: { column: string; sqlite: number | null; postgres: number | null };
}

export const checkMatches = (check: TableCheck) =>
  check.sqlite === check.postgres && (check.lastId === undefined || check.lastId.sqlite === check.lastId.postgres);

export interface CopyReport {
  tables: TableCheck[];
  rows: number;
  seconds: number;
}

/** The target already holds data: the copy wrote nothing. */
export class TargetNotEmpty extends Error {
  override name = "TargetNotEmpty";
  readonly tables: string[];
  constructor(tables: string[]) {
    super(`the target database already holds rows in ${tables.join(", ")}`);
    this.tables = tables;
  }
}

/** The counts after the copy differ from the source's: the copy was rolled back. */
export class CopyMismatch extends Error {
  override name = "CopyMismatch";
  readonly checks: TableCheck[];
  constructor(checks: TableCheck[]) {
    super(
      `the copy does not match the source in ${checks
        .filter((check) => !checkMatches(check))
        .map((check) => check.table)
        .join(", ")}`,
    );
    this.checks = checks;
  }
}

/** A table's rows failed to go in (a value PostgreSQL refuses, a constraint): the copy was rolled back. */
export class CopyTableError extends Error {
  override name = "CopyTableError";
}

export interface CopyOptions {
  /** Rows sent in one INSERT (one array per column). */
  batchRows: number;
  /** A table's copy starts (tables with no rows are not announced). */
  onTable?: (table: string, rows: number) => void;
  /** Rows copied so far of `total`, after each batch. */
  onRows?: (done: number, total: number, table: string) => void;
}

/** Counts and last ids of the source, read in the caller's read transaction. */
function sqliteChecks(sqlite: Database.Database, plan: CopyTable[]): TableCheck[] {
  return plan.map((table) => {
    const name = quoteIdentifier(table.name);
    const rows = Number(sqlite.prepare(`SELECT count(*) FROM ${name}`).pluck().get());
    const check: TableCheck = { table: table.name, sqlite: rows, postgres: 0 };
    if (table.identity) {
      const last = sqlite
        .prepare(`SELECT max(${quoteIdentifier(table.identity)}) FROM ${name}`)
        .pluck()
        .get();
      check.lastId = { column: table.identity, sqlite: last === null ? null : Number(last), postgres: null };
    }
    return check;
  });
}

/** The target's counts and last ids, in the copy's transaction, beside the source's. */
async function postgresChecks(client: pg.PoolClient, source: TableCheck[]): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  for (const check of source) {
    const name = quoteIdentifier(check.table);
    const last = check.lastId ? `max(${quoteIdentifier(check.lastId.column)})` : "NULL";
    const { rows } = await client.query<{ rows: string; last: string | null }>(
      `SELECT count(*)::text AS rows, ${last}::text AS last FROM ${name}`,
    );
    const row = rows[0];
    const checked: TableCheck = { ...check, postgres: Number(row?.rows ?? 0) };
    if (check.lastId) checked.lastId = { ...check.lastId, postgres: row?.last == null ? null : Number(row.last) };
    checks.push(checked);
  }
  return checks;
}

/** Compares a target with the source's figures, as the copy does before it commits. */
export async function compareWithSource(
  client: pg.PoolClient,
  sqlite: Database.Database,
  plan: CopyTable[] = copyPlan(),
): Promise<TableCheck[]> {
  return postgresChecks(client, sqliteChecks(sqlite, plan));
}

/** The tables of the target that hold rows other than the migrations' own. */
async function tablesWithRows(client: pg.PoolClient, plan: CopyTable[]): Promise<string[]> {
  const held: string[] = [];
  for (const table of plan) {
    const seeded = SEEDED_BY_MIGRATIONS[table.name];
    const { rows } = await client.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${quoteIdentifier(table.name)}${seeded ? ` WHERE NOT (${seeded})` : ""}) AS held`,
    );
    if (rows[0]?.held) held.push(table.name);
  }
  return held;
}

/**
 * A batch is sent once its text reaches this many characters, whatever `batchRows` says: a batch
 * is held three times over while it is sent (the values, their literals, the message), two
 * batches at a time, and 5,000 merchants' rows (descriptions, hours, Q&A) are 20 MB of text.
 */
const BATCH_CHARACTERS = 4_000_000;

/** SQLite's value as the PostgreSQL column takes it: integers 0/1 become booleans, the rest as read. */
function converter(type: CopyColumnType): (value: unknown) => unknown {
  if (type === "boolean") return (value) => (value === null ? null : Number(value) !== 0);
  return (value) => value;
}

/**
 * A PostgreSQL array literal of text elements, which the statement's casts read as the column's
 * type: every element quoted (backslashes and double quotes escaped), NULL for null; integers
 * (BigInt from SQLite) and doubles by their shortest exact text, booleans as t and f.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((value) => {
    if (value === null || value === undefined) return "NULL";
    const text = typeof value === "boolean" ? (value ? "t" : "f") : String(value);
    return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  });
  return `{${elements.join(",")}}`;
}

/** Inserts one table's rows, `batchRows` at a time, each batch one INSERT ... SELECT FROM unnest(arrays). */
async function copyTable(
  sqlite: Database.Database,
  client: pg.PoolClient,
  table: CopyTable,
  options: CopyOptions,
  progress: (rows: number) => void,
): Promise<void> {
  const names = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
  const arrays = table.columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(", ");
  const insert = `INSERT INTO ${quoteIdentifier(table.name)} (${names}) SELECT * FROM unnest(${arrays})`;
  const convert = table.columns.map((column) => converter(column.type));
  // Integers as BigInt: a value past 2^53 goes across exactly instead of rounded.
  const rows = sqlite
    .prepare(`SELECT ${names} FROM ${quoteIdentifier(table.name)}`)
    .raw(true)
    .safeIntegers(true)
    .iterate() as IterableIterator<unknown[]>;
  const width = table.columns.length;
  let batch: unknown[][] = table.columns.map(() => []);
  let size = 0;
  let characters = 0;
  // One batch at the server while the next is read and built: the two processes work at once.
  let inFlight: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (size === 0) return;
    // Written out here, while the batch before is still at the server (node-postgres would write
    // each parameter only when the query's turn comes, after that batch).
    const values = batch.map(arrayLiteral);
    const sent = size;
    batch = table.columns.map(() => []);
    size = 0;
    characters = 0;
    await inFlight;
    inFlight = client.query({ name: `abeille_copy_${table.name}`, text: insert, values }).then(
      () => progress(sent),
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new CopyTableError(`copying ${table.name} failed: ${reason}`, { cause: error });
      },
    );
    // Handled where it is awaited (the next flush, or the end of the table).
    inFlight.catch(() => undefined);
  };
  try {
    for (const row of rows) {
      for (let column = 0; column < width; column += 1) {
        const value = row[column];
        if (typeof value === "string") characters += value.length;
        (batch[column] as unknown[]).push((convert[column] as (value: unknown) => unknown)(value));
      }
      size += 1;
      if (size >= options.batchRows || characters >= BATCH_CHARACTERS) await flush();
    }
    await flush();
    await inFlight;
  } finally {
    // An iterator left open would keep the statement busy (a failed batch, for one).
    rows.return?.();
  }
}

interface SetAside {
  foreignKeys: { table: string; name: string; definition: string }[];
  indexes: { name: string; definition: string }[];
}

/**
 * Drops the foreign keys and the indexes that back no constraint of the copied tables, for the
 * copy's transaction; `restore` creates them again before the commit, from the definitions the
 * catalog gave. What pg_restore does: a foreign key checked per row (a lookup and a lock on the
 * referenced row for each of millions of rows) and an index updated per row cost more than one
 * validation and one sorted build at the end, and a violation still fails the copy, by name.
 */
async function setAsideForeignKeysAndIndexes(client: pg.PoolClient, plan: CopyTable[]): Promise<SetAside> {
  const tables = plan.map((table) => table.name);
  const { rows: foreignKeys } = await client.query<{ table: string; name: string; definition: string }>(
    `SELECT c.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1)
      ORDER BY c.relname, k.conname`,
    [tables],
  );
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition
       FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
      ORDER BY i.indexname`,
    [tables],
  );
  for (const foreignKey of foreignKeys)
    await client.query(
      `ALTER TABLE ${quoteIdentifier(foreignKey.table)} DROP CONSTRAINT ${quoteIdentifier(foreignKey.name)}`,
    );
  for (const index of indexes) await client.query(`DROP INDEX ${quoteIdentifier(index.name)}`);
  return { foreignKeys, indexes };
}

async function restore(client: pg.PoolClient, setAside: SetAside): Promise<void> {
  for (const index of setAside.indexes) await client.query(index.definition);
  for (const foreignKey of setAside.foreignKeys) {
    try {
      await client.query(
        `ALTER TABLE ${quoteIdentifier(foreignKey.table)} ADD CONSTRAINT ${quoteIdentifier(foreignKey.name)} ${foreignKey.definition}`,
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CopyTableError(`copying ${foreignKey.table} failed: ${reason}`, { cause: error });
    }
  }
}

/**
 * Copies `sqlite` (an open store, migrated) into the PostgreSQL database `pool` reaches, which
 * must already be migrated (applyPostgresMigrations) and hold no rows but the migrations' own.
 * Throws TargetNotEmpty, CopyTableError or CopyMismatch with the target as it was.
 */
export async function copySqliteToPostgres(
  sqlite: Database.Database,
  pool: pg.Pool,
  options: CopyOptions,
): Promise<CopyReport> {
  const started = performance.now();
  const plan = copyPlan();
  // One read transaction: its first read fixes the snapshot every later read sees, whatever a
  // server writes meanwhile (WAL: readers and the writer do not wait for each other).
  sqlite.exec("BEGIN");
  let client: pg.PoolClient | null = null;
  let broken = false;
  try {
    const source = sqliteChecks(sqlite, plan);
    const total = source.reduce((sum, check) => sum + check.sqlite, 0);
    client = await pool.connect();
    await client.query("BEGIN");
    try {
      // Held to the commit: another copy, or a server seeding the empty database, waits here and
      // then finds the registry (the copy's, or refuses).
      await client.query(`LOCK TABLE ${plan.map((table) => quoteIdentifier(table.name)).join(", ")} IN EXCLUSIVE MODE`);
      const held = await tablesWithRows(client, plan);
      if (held.length > 0) throw new TargetNotEmpty(held);
      for (const table of plan) await client.query(`ALTER TABLE ${quoteIdentifier(table.name)} DISABLE TRIGGER USER`);
      const deferred = await setAsideForeignKeysAndIndexes(client, plan);
      for (const [table, seeded] of Object.entries(SEEDED_BY_MIGRATIONS))
        await client.query(`DELETE FROM ${quoteIdentifier(table)} WHERE ${seeded}`);

      let done = 0;
      for (const [index, table] of plan.entries()) {
        const rows = source[index]?.sqlite ?? 0;
        if (rows === 0) continue;
        options.onTable?.(table.name, rows);
        await copyTable(sqlite, client, table, options, (batch) => {
          done += batch;
          options.onRows?.(done, total, table.name);
        });
      }
      for (const table of plan) {
        if (!table.identity) continue;
        const name = quoteIdentifier(table.name);
        const column = quoteIdentifier(table.identity);
        // The next insert gets the number after the copied ones (1 on an empty table).
        await client.query(
          `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${column}), 1), max(${column}) IS NOT NULL) FROM ${name}`,
          [name, table.identity],
        );
      }
      await restore(client, deferred);
      for (const table of plan) await client.query(`ALTER TABLE ${quoteIdentifier(table.name)} ENABLE TRIGGER USER`);

      const checks = await postgresChecks(client, source);
      if (!checks.every(checkMatches)) throw new CopyMismatch(checks);
      await client.query("COMMIT");
      return { tables: checks, rows: total, seconds: (performance.now() - started) / 1000 };
    } catch (error) {
      // A lost connection cannot roll back (the server already has): the original error is the one to tell.
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client?.release(broken);
    if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
  }
}
