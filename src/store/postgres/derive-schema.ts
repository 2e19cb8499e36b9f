/**
 * The PostgreSQL tables, derived when the module loads from the one SQLite schema
 * (src/store/schema.ts): each sqliteTable's columns, keys, foreign keys and indexes as drizzle's
 * getTableConfig reads them, built again as a pgTable. src/store/postgres/schema.ts names one per
 * SQLite table, which drizzle-kit turns into the PostgreSQL migrations (`npm run db:generate`); a
 * table or column is described once, in src/store/schema.ts, and never written out a second time.
 *
 * Types (docs/decisions.md): text stays text, ISO timestamps included (the store compares them as
 * strings); JSON columns are text holding JSON.stringify's output, as on SQLite (columns.ts);
 * booleans are boolean; every integer is bigint read as a JS number (SQLite's INTEGER is 64-bit:
 * revisions, touches and counters grow past 2^31, and a value one engine takes the other takes
 * too); REAL is double precision. What this does not know how to carry over stops it, by name.
 */
import type { SQL } from "drizzle-orm";
import type { AnyPgColumn, PgColumn, PgColumnBuilderBase, PgTableWithColumns } from "drizzle-orm/pg-core";
import type { SQLiteColumn, SQLiteTable as Table } from "drizzle-orm/sqlite-core";
import { getTableColumns, getTableConfig, is, SQLiteTable } from "../drizzle.ts";
import * as sqliteSchema from "../schema.ts";
import { jsonText } from "./columns.ts";
import { bigint, boolean, doublePrecision, index, pgTable, primaryKey, sql, text, uniqueIndex } from "./drizzle.ts";

/**
 * SQL defaults of the SQLite schema and what PostgreSQL computes for them. SQLite's
 * `strftime('%Y-%m-%dT%H:%M:%fZ','now')` is the statement's UTC time with milliseconds, the form
 * Date.prototype.toISOString writes.
 */
export const SQL_DEFAULTS: Record<string, string> = {
  "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))": `to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
};

/** A SQLite column as a PostgreSQL one: the same name, row type, nullability and defaults. */
type PgColumnOf<Column> = Column extends SQLiteColumn<infer Config> ? PgColumn<Config> : never;

/** A sqliteTable's type as its derived pgTable's: repositories read the same row types on both. */
export type PgTableOf<T extends Table> = PgTableWithColumns<{
  name: T["_"]["name"];
  schema: undefined;
  dialect: "pg";
  columns: { [Key in keyof T["_"]["columns"]]: PgColumnOf<T["_"]["columns"][Key]> };
}>;

/** The pieces of a drizzle `sql` template: text, and the columns it names. */
function chunksOf(value: unknown): unknown[] | null {
  if (typeof value !== "object" || value === null || !("queryChunks" in value)) return null;
  const chunks = (value as { queryChunks: unknown }).queryChunks;
  return Array.isArray(chunks) ? chunks : null;
}

function isStringChunk(chunk: unknown): chunk is { value: string[] } {
  if (typeof chunk !== "object" || chunk === null || chunk.constructor.name !== "StringChunk") return false;
  const value = (chunk as { value?: unknown }).value;
  return Array.isArray(value) && value.every((part) => typeof part === "string");
}

export interface DerivedTable {
  exportName: string;
  table: Table;
}

/**
 * The tables of the SQLite schema with the names it exports them by, in the order of those names
 * (a module namespace's order, which a bundler's copy of it need not keep).
 */
export function sqliteTables(schema: Record<string, unknown> = sqliteSchema): DerivedTable[] {
  return Object.entries(schema)
    .filter((entry): entry is [string, Table] => is(entry[1], SQLiteTable))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([exportName, table]) => ({ exportName, table }));
}

/** One pgTable per sqliteTable, so that a foreign key and the table it names are the same objects. */
const derived = new Map<Table, PgTableOf<Table>>();

/** The pgTable of a sqliteTable, built on first use. */
export function postgresTable<T extends Table>(table: T): PgTableOf<T> {
  const known = derived.get(table);
  if (known) return known as unknown as PgTableOf<T>;
  const built = buildTable(table);
  derived.set(table, built);
  return built as unknown as PgTableOf<T>;
}

function buildTable(table: Table): PgTableOf<Table> {
  const config = getTableConfig(table);
  const where = `table ${config.name}`;
  if (config.checks.length > 0) throw new Error(`${where}: check constraints are not carried over to PostgreSQL yet`);
  if (config.uniqueConstraints.length > 0)
    throw new Error(`${where}: unique constraints are not carried over yet (a uniqueIndex is)`);
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const keyOf = new Map<unknown, string>(Object.entries(columns).map(([key, column]) => [column, key]));
  const columnKey = (column: unknown, context: string): string => {
    const key = keyOf.get(column);
    if (!key) throw new Error(`${where}: ${context} names a column of another table`);
    return key;
  };

  const references = new Map<string, (column: ReturnType<typeof buildColumn>) => void>();
  for (const foreignKey of config.foreignKeys) {
    const reference = foreignKey.reference();
    const [column] = reference.columns;
    const [foreignColumn] = reference.foreignColumns;
    if (reference.columns.length !== 1 || !column || !foreignColumn)
      throw new Error(`${where}: foreign keys of several columns are not carried over yet`);
    if (foreignKey.onUpdate && foreignKey.onUpdate !== "no action")
      throw new Error(`${where}: ON UPDATE actions are not carried over yet`);
    const foreignTable = reference.foreignTable as Table;
    const foreignKeyName = Object.entries(getTableColumns(foreignTable)).find(
      ([, candidate]) => candidate === foreignColumn,
    )?.[0];
    if (!foreignKeyName) throw new Error(`${where}: references a column its table does not have`);
    const onDelete = foreignKey.onDelete && foreignKey.onDelete !== "no action" ? foreignKey.onDelete : undefined;
    references.set(column.name, (built) =>
      built.references(
        () => (postgresTable(foreignTable) as unknown as Record<string, AnyPgColumn>)[foreignKeyName] as AnyPgColumn,
        onDelete ? { onDelete } : {},
      ),
    );
  }

  const builders: Record<string, PgColumnBuilderBase> = {};
  for (const [key, column] of Object.entries(columns)) {
    const built = buildColumn(column, `${where}, column ${column.name}`);
    references.get(column.name)?.(built);
    builders[key] = built;
  }

  return pgTable(config.name, builders, (pg) => {
    const on = (column: unknown, context: string) => pg[columnKey(column, context)] as PgColumn;
    const extras = [];
    for (const key of config.primaryKeys) {
      const [first, ...rest] = key.columns.map((column) => on(column, "a primary key"));
      if (!first) throw new Error(`${where}: a primary key without columns`);
      extras.push(primaryKey({ columns: [first, ...rest] }));
    }
    for (const { config: indexConfig } of config.indexes) {
      const context = `index ${indexConfig.name}`;
      const [first, ...rest] = indexConfig.columns.map((column) => {
        if (!keyOf.has(column)) throw new Error(`${where}: ${context} has an expression column`);
        return on(column, context);
      });
      if (!first) throw new Error(`${where}: ${context} has no column`);
      const built = (indexConfig.unique ? uniqueIndex : index)(indexConfig.name).on(first, ...rest);
      extras.push(
        indexConfig.where
          ? built.where(carriedSql(indexConfig.where, (column) => on(column, context), `${where}, ${context}`))
          : built,
      );
    }
    return extras;
  }) as unknown as PgTableOf<Table>;
}

function buildColumn(column: SQLiteColumn, what: string) {
  if (column.generated) throw new Error(`${what}: generated columns are not carried over yet`);
  if (column.isUnique) throw new Error(`${what}: .unique() is not carried over yet (declare a uniqueIndex)`);
  const built = columnOfType(column, what);
  if (column.primary) built.primaryKey();
  if (column.notNull && !column.primary) built.notNull();
  // A default is the column's own type's (a literal from the SQLite schema) or SQL: either fits.
  if (column.hasDefault && column.default !== undefined)
    (built as { default(value: unknown): unknown }).default(defaultOf(column.default, what));
  return built;
}

/**
 * The PostgreSQL builder of a column. An INTEGER PRIMARY KEY is SQLite's rowid, numbered when an
 * insert leaves it out (AUTOINCREMENT or not): numbers from an identity, and rows copied from
 * SQLite keep theirs.
 */
function columnOfType(column: SQLiteColumn, what: string) {
  switch (column.columnType) {
    case "SQLiteText":
      return text(column.name);
    case "SQLiteTextJson":
      return jsonText(column.name);
    case "SQLiteBoolean":
      return boolean(column.name);
    case "SQLiteInteger": {
      const built = bigint(column.name, { mode: "number" });
      if (column.primary) built.generatedByDefaultAsIdentity();
      return built;
    }
    case "SQLiteReal":
      return doublePrecision(column.name);
    default:
      throw new Error(`${what}: drizzle's ${column.columnType} has no PostgreSQL counterpart here yet`);
  }
}

function defaultOf(value: unknown, what: string): unknown {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  const chunks = chunksOf(value);
  if (chunks?.every(isStringChunk)) {
    const written = chunks.map((chunk) => chunk.value.join("")).join("");
    const postgres = SQL_DEFAULTS[written];
    if (postgres === undefined)
      throw new Error(
        `${what}: the SQL default ${written} has no PostgreSQL equivalent in SQL_DEFAULTS (derive-schema.ts)`,
      );
    return sql.raw(postgres);
  }
  throw new Error(`${what}: a default of this kind is not carried over yet`);
}

/**
 * A `sql` template (a partial index's WHERE) built again, its columns those of the pg table. Its
 * text is carried over as written, so it must be SQL both engines read alike (no `= 0` for a
 * boolean): the migrations of both are applied and compared by the schema test.
 */
function carriedSql(value: unknown, column: (column: unknown) => PgColumn, what: string): SQL {
  const chunks = chunksOf(value);
  if (!chunks) throw new Error(`${what}: not a sql template`);
  return sql.join(
    chunks.map((chunk) => {
      if (isStringChunk(chunk)) return sql.raw(chunk.value.join(""));
      if (typeof chunk === "object" && chunk !== null && "columnType" in chunk) return column(chunk);
      throw new Error(`${what}: only text and columns are carried over in a sql template`);
    }),
  );
}
