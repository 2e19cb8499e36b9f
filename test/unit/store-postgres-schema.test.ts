/**
 * One schema, two engines: the PostgreSQL schema is derived from src/store/schema.ts and kept up
 * to date; a database migrated on each engine has the same tables, columns (names, nullability,
 * defaults), primary keys, indexes and foreign keys, read from each engine's own catalog; and the
 * hand-written triggers (the store revision and merchant touches, the append-only audit log and
 * change feed) do the same thing on both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { PgDialect } from "drizzle-orm/pg-core";
import { check, foreignKey } from "drizzle-orm/sqlite-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import {
  drizzle,
  eq,
  getTableConfig,
  integer,
  real,
  sql,
  sqliteTable,
  text,
  uniqueIndex,
} from "../../src/store/drizzle.ts";
import { postgresTable, sqliteTables } from "../../src/store/postgres/derive-schema.ts";
import { drizzlePostgres, getPgTableConfig } from "../../src/store/postgres/drizzle.ts";
import { migrations as postgresMigrations } from "../../src/store/postgres/migrations/index.ts";
import * as postgresSchema from "../../src/store/postgres/schema.ts";
import * as sqliteSchema from "../../src/store/schema.ts";
import { migrationFiles, POSTGRES_ONLY_TABLES } from "../helpers/migration-files.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

let server: TestPostgres;
let postgres: pg.Client;
let sqlite: Database.Database;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-pg-schema-"));

beforeAll(async () => {
  server = await startTestPostgres();
  postgres = new pg.Client({ connectionString: await server.createDatabase() });
  await postgres.connect();
  sqlite = openDatabase(path.join(dataDir, "abeille.db")).$client;
});

afterAll(async () => {
  sqlite?.close();
  await postgres?.end();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface TableShape {
  columns: { name: string; type: string; nullable: boolean; default: string | null }[];
  primaryKey: string[];
  indexes: { name: string; unique: boolean; columns: string[]; where: string | null }[];
  foreignKeys: { columns: string[]; references: string; onDelete: string }[];
}

/** A predicate or default as both engines print it, without quotes, casts, table names or parentheses. */
function normalizeSql(text: string | null): string | null {
  if (text === null) return null;
  return text
    .replace(/::[a-z ]+/g, "")
    .replace(/[`"()]/g, "")
    .replace(/\b[a-z_]+\.(?=[a-z_])/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** A default is a literal (compared as written) or an expression (its value is checked below). */
function normalizeDefault(text: string | null): string | null {
  const normalized = normalizeSql(text);
  if (normalized === null) return null;
  return /^(-?\d+(\.\d+)?|true|false|'[^']*')$/.test(normalized) ? normalized : "<expression>";
}

function sqliteShape(table: string): TableShape {
  const columns = sqlite.prepare(`PRAGMA table_info(${table})`).all() as {
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
  }[];
  const indexList = sqlite.prepare(`PRAGMA index_list(${table})`).all() as {
    name: string;
    unique: number;
    origin: string;
    partial: number;
  }[];
  const indexes = indexList
    .filter((index) => index.origin === "c")
    .map((index) => {
      const sql = (
        sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(index.name) as {
          sql: string;
        }
      ).sql;
      const where = index.partial ? (/\sWHERE\s(.*)$/s.exec(sql)?.[1] ?? null) : null;
      const indexColumns = (sqlite.prepare(`PRAGMA index_info(${index.name})`).all() as { name: string }[]).map(
        (column) => column.name,
      );
      return { name: index.name, unique: index.unique === 1, columns: indexColumns, where: normalizeSql(where) };
    });
  const foreignKeys = (
    sqlite.prepare(`PRAGMA foreign_key_list(${table})`).all() as {
      table: string;
      from: string;
      to: string;
      on_delete: string;
    }[]
  ).map((key) => ({
    columns: [key.from],
    references: `${key.table}(${key.to})`,
    onDelete: key.on_delete.toLowerCase(),
  }));
  return {
    columns: columns.map((column) => ({
      name: column.name,
      type: column.type.toLowerCase(),
      // SQLite lets a non-INTEGER primary key column hold NULL unless declared NOT NULL; drizzle declares it.
      nullable: column.notnull === 0 && column.pk === 0,
      default: normalizeDefault(column.dflt_value),
    })),
    primaryKey: columns
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name),
    indexes: indexes.sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: foreignKeys.sort((a, b) => a.references.localeCompare(b.references)),
  };
}

async function postgresShape(table: string): Promise<TableShape> {
  const columns = await postgres.query<{ name: string; type: string; nullable: string; default: string | null }>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  const indexes = await postgres.query<{
    name: string;
    unique: boolean;
    primary: boolean;
    columns: string[];
    where: string | null;
  }>(
    `SELECT i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
            pg_get_expr(x.indpred, x.indrelid) AS where,
            array(SELECT a.attname::text FROM unnest(x.indkey) WITH ORDINALITY k(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.position) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND t.relname = $1`,
    [table],
  );
  const foreignKeys = await postgres.query<{ columns: string[]; references: string; on_delete: string }>(
    `SELECT array(SELECT a.attname::text FROM unnest(c.conkey) k(attnum)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
            f.relname || '(' || (SELECT string_agg(a.attname, ',') FROM unnest(c.confkey) k(attnum)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) || ')' AS references,
            CASE c.confdeltype WHEN 'a' THEN 'no action' WHEN 'c' THEN 'cascade' WHEN 'r' THEN 'restrict'
                               WHEN 'n' THEN 'set null' ELSE 'set default' END AS on_delete
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid
      WHERE c.contype = 'f' AND t.relname = $1`,
    [table],
  );
  return {
    columns: columns.rows.map((column) => ({
      name: column.name,
      type: column.type,
      nullable: column.nullable === "YES",
      default: normalizeDefault(column.default),
    })),
    primaryKey: indexes.rows.find((index) => index.primary)?.columns ?? [],
    indexes: indexes.rows
      .filter((index) => !index.primary)
      .map((index) => ({
        name: index.name,
        unique: index.unique,
        columns: index.columns,
        where: normalizeSql(index.where),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: foreignKeys.rows
      .map((key) => ({ columns: key.columns, references: key.references, onDelete: key.on_delete }))
      .sort((a, b) => a.references.localeCompare(b.references)),
  };
}

/** The PostgreSQL type each SQLite storage class may become (derive-schema.ts says which and why). */
const TYPES: Record<string, string[]> = {
  text: ["text"],
  integer: ["bigint", "boolean"],
  real: ["double precision"],
};

describe("the PostgreSQL schema", () => {
  it("names every table of src/store/schema.ts, each derived from it when it loads", () => {
    const derived = new Map(Object.entries(postgresSchema));
    expect([...derived.keys()]).toEqual(sqliteTables().map(({ exportName }) => exportName));
    for (const { exportName, table } of sqliteTables()) expect(derived.get(exportName)).toBe(postgresTable(table));
  });

  it("embeds exactly the PostgreSQL migrations drizzle-kit wrote", () => {
    const files = migrationFiles(path.resolve("src/store/postgres/migrations/sql"));
    expect(files.map((file) => file.id).slice(0, 2)).toEqual(["0000_init", "0001_store_triggers"]);
    expect(postgresMigrations).toEqual(files);
  });

  it("gives the repositories the same row types on both engines", () => {
    type Rows<Schema> = { [Name in keyof Schema]: Schema[Name] extends { $inferSelect: infer Row } ? Row : never };
    type Inserts<Schema> = {
      [Name in keyof Schema]: Schema[Name] extends { $inferInsert: infer Row } ? Row : never;
    };
    expectTypeOf<Rows<typeof postgresSchema>>().toEqualTypeOf<Rows<typeof sqliteSchema>>();
    expectTypeOf<Inserts<typeof postgresSchema>>().toEqualTypeOf<Inserts<typeof sqliteSchema>>();
  });

  it("creates the same tables as SQLite, with the same columns, keys, indexes and foreign keys", async () => {
    const sqliteNames = (
      sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as { name: string }[]
    ).map((row) => row.name);
    const postgresNames = (
      await postgres.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      )
    ).rows.map((row) => row.name);
    // The limits' table: on SQLite a file of its own (DATA_DIR/limits.db), never migrated.
    expect(postgresNames.filter((name) => !POSTGRES_ONLY_TABLES.includes(name))).toEqual(sqliteNames);
    expect(POSTGRES_ONLY_TABLES.filter((name) => postgresNames.includes(name))).toEqual(POSTGRES_ONLY_TABLES);
    expect(sqliteNames).toContain("schema_migrations");
    expect(sqliteNames).toHaveLength(sqliteTables().length + 1);

    for (const table of sqliteNames) {
      const onSqlite = sqliteShape(table);
      const onPostgres = await postgresShape(table);
      // Column order aside: SQLite appends the columns a later migration adds.
      const withoutTypes = (shape: TableShape) => ({
        ...shape,
        columns: shape.columns.map(({ type: _type, ...column }) => column).sort((a, b) => a.name.localeCompare(b.name)),
      });
      expect(withoutTypes(onPostgres), table).toEqual(withoutTypes(onSqlite));
      const postgresTypes = new Map(onPostgres.columns.map((column) => [column.name, column.type] as const));
      for (const column of onSqlite.columns)
        expect(TYPES[column.type], `${table}.${column.name}`).toContain(postgresTypes.get(column.name));
    }
  });

  it("keeps booleans as boolean and every other integer as bigint", async () => {
    for (const { table } of sqliteTables()) {
      const config = getTableConfig(table);
      const types = new Map(
        (await postgresShape(config.name)).columns.map((column) => [column.name, column.type] as const),
      );
      for (const column of config.columns) {
        const expected =
          column.columnType === "SQLiteBoolean"
            ? "boolean"
            : column.columnType === "SQLiteInteger"
              ? "bigint"
              : column.columnType === "SQLiteReal"
                ? "double precision"
                : "text";
        expect(types.get(column.name), `${config.name}.${column.name}`).toBe(expected);
      }
    }
  });

  it("fills settings.updated_at with the statement's UTC time, written as toISOString writes it, on both engines", async () => {
    const before = Date.now();
    sqlite.prepare("INSERT INTO settings (key, value) VALUES ('clock', 'x')").run();
    await postgres.query("INSERT INTO settings (key, value) VALUES ('clock', 'x')");
    const onSqlite = (
      sqlite.prepare("SELECT updated_at FROM settings WHERE key = 'clock'").get() as { updated_at: string }
    ).updated_at;
    const onPostgres = (
      await postgres.query<{ updated_at: string }>("SELECT updated_at FROM settings WHERE key = 'clock'")
    ).rows[0]?.updated_at;
    for (const written of [onSqlite, onPostgres]) {
      expect(written).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(written ?? "").toISOString()).toBe(written);
      expect(Math.abs(Date.parse(written ?? "") - before)).toBeLessThan(5_000);
    }
  });
});

/** Statements both engines read the same way (no parameters, literals only). */
const MERCHANT = (abId: string) =>
  `INSERT INTO merchants (ab_id, siret, legal_name, business_name, slug, naf_code, sector, status, street, postal_code,
     city, zones, languages, founded_on, terrain_photos, same_as, created_at, updated_at)
   VALUES ('${abId}', '12345678900011', 'Boulangerie ${abId}', 'Boulangerie ${abId}', '${abId}', '10.71C', 'boulangerie',
     'ACTIVE', '1 rue du Four', '69001', 'Lyon', '["69001"]', '["fr"]', '2001-01-01', '[]', '[]',
     '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z')`;
const WRITES = [
  MERCHANT("m1"),
  MERCHANT("m2"),
  "UPDATE merchants SET city = 'Villeurbanne' WHERE ab_id = 'm1'",
  `INSERT INTO qa_clusters (cluster_id, ab_id, label, type, scope, position, updated_at)
   VALUES ('c1', 'm2', 'Horaires', 'faq', 'merchant', 0, '2026-11-26T10:00:00.000Z')`,
  `INSERT INTO qa_nodes (node_id, cluster_id, intent, question, answer, answer_bluf, verification_level, fact_level, position)
   VALUES ('n1', 'c1', 'hours', 'Ouvert le dimanche ?', 'Non.', 'Non.', 'declared', 'declared', 0)`,
  `INSERT INTO signals (ab_id, key, status, proof_status, source, value, recorded_at)
   VALUES ('m1', 'siret_verified', 'verified', 'proven', 'sirene', 'true', '2026-11-26T10:00:00.000Z')`,
  "DELETE FROM signals WHERE ab_id = 'm1'",
  `INSERT INTO merchant_events (ab_id, at, actor, action, changes, revision)
   VALUES ('m1', '2026-11-26T10:00:00.000Z', 'operator', 'created', '{}', 1)`,
  `INSERT INTO merchant_changes (ab_id, revision, change, changed_at)
   VALUES ('m1', 1, 'created', '2026-11-26T10:00:00.000Z')`,
];

describe("the store's triggers on both engines", () => {
  beforeAll(async () => {
    for (const statement of WRITES) {
      sqlite.exec(statement);
      await postgres.query(statement);
    }
  });

  it("move the store revision by one per row written and record each merchant's last touch", async () => {
    // m1 inserted (1), m2 inserted (2), m1 updated (3), m2's cluster (4) and node (5), m1's signal written (6) and deleted (7).
    const expected = {
      revision: 7,
      touches: [
        { ab_id: "m1", touch: 7 },
        { ab_id: "m2", touch: 5 },
      ],
    };
    const onSqlite = {
      revision: (sqlite.prepare("SELECT revision FROM store_revision WHERE id = 1").get() as { revision: number })
        .revision,
      touches: sqlite.prepare("SELECT ab_id, touch FROM merchant_touches ORDER BY ab_id").all(),
    };
    const onPostgres = {
      revision: (await postgres.query<{ revision: number }>("SELECT revision FROM store_revision WHERE id = 1")).rows[0]
        ?.revision,
      touches: (await postgres.query("SELECT ab_id, touch FROM merchant_touches ORDER BY ab_id")).rows,
    };
    expect(onSqlite).toEqual(expected);
    // bigint columns come back as numbers through the pool's parser (store/postgres/pool.ts): here, as
    // strings from a bare client, which is why the pool sets one.
    expect({
      revision: Number(onPostgres.revision),
      touches: onPostgres.touches.map((row: { ab_id: string; touch: string }) => ({
        ...row,
        touch: Number(row.touch),
      })),
    }).toEqual(expected);
  });

  it("refuse to change or delete the audit log and the change feed", async () => {
    const refusals = [
      ["UPDATE merchant_events SET actor = 'someone else'", "merchant_events is append-only"],
      ["DELETE FROM merchant_events", "merchant_events is append-only"],
      ["UPDATE merchant_changes SET change = 'withdrawn'", "merchant_changes is append-only"],
      ["DELETE FROM merchant_changes", "merchant_changes is append-only"],
    ] as const;
    for (const [statement, message] of refusals) {
      expect(() => sqlite.exec(statement), statement).toThrow(message);
      await expect(postgres.query(statement), statement).rejects.toThrow(message);
    }
    await expect(postgres.query("TRUNCATE merchant_events")).rejects.toThrow("merchant_events is append-only");
    await expect(postgres.query("TRUNCATE merchant_changes")).rejects.toThrow("merchant_changes is append-only");
    expect((await postgres.query("SELECT actor FROM merchant_events")).rows).toEqual([{ actor: "operator" }]);
    expect((await postgres.query("SELECT change FROM merchant_changes")).rows).toEqual([{ change: "created" }]);
  });

  it("order text byte by byte on both, as the store's string comparisons expect", async () => {
    const words = ["a", "B", "é", "Z", "_", "2026-11-26T10:00:00.000Z", "2026-11-26T9:00:00.000Z"];
    const values = words.map((word) => `('${word}')`).join(", ");
    const onSqlite = (
      sqlite.prepare(`SELECT column1 AS word FROM (VALUES ${values}) ORDER BY word`).all() as { word: string }[]
    ).map((row) => row.word);
    const onPostgres = (
      await postgres.query<{ word: string }>(`SELECT word FROM (VALUES ${values}) AS t(word) ORDER BY word`)
    ).rows.map((row) => row.word);
    expect(onSqlite).toEqual(["2026-11-26T10:00:00.000Z", "2026-11-26T9:00:00.000Z", "B", "Z", "_", "a", "é"]);
    expect(onPostgres).toEqual(onSqlite);
  });
});

describe("derive-schema", () => {
  it("writes each kind of column, key and index of a SQLite table as its pgTable", () => {
    const parents = sqliteTable("parents", { id: integer("id").primaryKey({ autoIncrement: true }) });
    const children = sqliteTable(
      "children",
      {
        childId: text("child_id").primaryKey(),
        parentId: integer("parent_id")
          .notNull()
          .references(() => parents.id, { onDelete: "cascade" }),
        tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
        done: integer("done", { mode: "boolean" }).notNull().default(false),
        score: real("score"),
        label: text("label").notNull().default("x"),
        at: text("at").default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
      },
      (table) => [uniqueIndex("children_open").on(table.parentId, table.label).where(sql`${table.label} <> ''`)],
    );
    const config = getPgTableConfig(postgresTable(children));
    const dialect = new PgDialect();
    const written = (value: unknown) =>
      value !== null && typeof value === "object" && "getSQL" in value
        ? dialect.sqlToQuery((value as { getSQL(): Parameters<PgDialect["sqlToQuery"]>[0] }).getSQL()).sql
        : value;
    expect(config.name).toBe("children");
    expect(
      config.columns.map((column) => [
        column.name,
        column.getSQLType(),
        column.notNull,
        column.primary,
        written(column.default),
      ]),
    ).toEqual([
      ["child_id", "text", true, true, undefined],
      ["parent_id", "bigint", true, false, undefined],
      ["tags", "text", true, false, undefined],
      ["done", "boolean", true, false, false],
      ["score", "double precision", false, false, undefined],
      ["label", "text", true, false, "x"],
      [
        "at",
        "text",
        false,
        false,
        `to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
      ],
    ]);
    const [reference] = config.foreignKeys;
    expect(reference?.onDelete).toBe("cascade");
    expect(reference?.reference().foreignTable).toBe(postgresTable(parents));
    expect(reference?.reference().foreignColumns.map((column) => column.name)).toEqual(["id"]);
    expect(
      config.indexes.map(({ config: index }) => [
        index.name,
        index.unique,
        index.columns.map((column) => (column as { name: string }).name),
        written(index.where),
      ]),
    ).toEqual([["children_open", true, ["parent_id", "label"], `"children"."label" <> ''`]]);
    const [id] = getPgTableConfig(postgresTable(parents)).columns;
    expect([id?.name, id?.getSQLType(), id?.primary, id?.generatedIdentity?.type]).toEqual([
      "id",
      "bigint",
      true,
      "byDefault",
    ]);
    // The JSON column writes and reads as SQLite's text({ mode: "json" }) does.
    const tags = config.columns.find((column) => column.name === "tags");
    expect(tags?.mapToDriverValue(["a", "b"])).toBe('["a","b"]');
    expect(tags?.mapFromDriverValue('["a","b"]')).toEqual(["a", "b"]);
  });

  it("stops, naming the table and what it cannot carry over", () => {
    const other = sqliteTable("other", { a: text("a"), b: text("b") });
    const cases: [Record<string, unknown>, string][] = [
      [
        { t: sqliteTable("t", { n: integer("n") }, (table) => [check("positive", sql`${table.n} > 0`)]) },
        "table t: check constraints are not carried over to PostgreSQL yet",
      ],
      [
        { t: sqliteTable("t", { at: text("at").default(sql`(datetime('now'))`) }) },
        "table t, column at: the SQL default (datetime('now')) has no PostgreSQL equivalent in SQL_DEFAULTS (derive-schema.ts)",
      ],
      [
        {
          other,
          t: sqliteTable("t", { a: text("a"), b: text("b") }, (table) => [
            foreignKey({ columns: [table.a, table.b], foreignColumns: [other.a, other.b] }),
          ]),
        },
        "table t: foreign keys of several columns are not carried over yet",
      ],
      [
        { t: sqliteTable("t", { code: text("code").unique() }) },
        "table t, column code: .unique() is not carried over yet",
      ],
    ];
    for (const [schema, message] of cases)
      expect(() => {
        for (const { table } of sqliteTables(schema)) postgresTable(table);
      }, message).toThrow(message);
  });
});

describe("drizzle over both schemas", () => {
  it("writes and reads a merchant as the same values, its JSON as the same bytes", async () => {
    const row = {
      abId: "ab_drizzle",
      siret: "12345678900029",
      legalName: "Épicerie Drizzle",
      businessName: "Épicerie Drizzle",
      slug: "epicerie-drizzle",
      nafCode: "47.11B",
      sector: "epicerie",
      status: "ACTIVE",
      street: "2 place du Marché",
      postalCode: "69002",
      city: "Lyon",
      // Keys out of order on purpose: jsonb would sort them, text keeps them as written.
      brandVoice: { tone: "chaleureux", values: ["local"], do: [], dont: [], consumer_surface: "", is_published: true },
      hours: { sun: "closed", mon: "09:00-19:00", "1": "odd key" },
      zones: ["69002", "69001"],
      languages: ["fr"],
      foundedOn: "2010-05-01",
      terrainPhotos: [],
      sameAs: ["https://exemple.fr"],
      deliveryEnabled: true,
      deliveryRadiusKm: 2.5,
      listingReviewCount: 12,
      createdAt: "2026-11-26T10:00:00.000Z",
      updatedAt: "2026-11-26T10:00:00.000Z",
    } satisfies typeof sqliteSchema.merchants.$inferInsert;
    const onSqlite = drizzle(sqlite, { schema: sqliteSchema });
    const onPostgres = drizzlePostgres(postgres, { schema: postgresSchema });
    onSqlite.insert(sqliteSchema.merchants).values(row).run();
    await onPostgres.insert(postgresSchema.merchants).values(row);
    const fromSqlite = onSqlite
      .select()
      .from(sqliteSchema.merchants)
      .where(eq(sqliteSchema.merchants.abId, row.abId))
      .get();
    const [fromPostgres] = await onPostgres
      .select()
      .from(postgresSchema.merchants)
      .where(eq(postgresSchema.merchants.abId, row.abId));
    expect(fromSqlite).toMatchObject({ ...row, revision: 1, paymentSetup: false, timezone: "Europe/Paris" });
    expect(fromPostgres).toEqual(fromSqlite);
    const rawSqlite = sqlite.prepare("SELECT hours, brand_voice FROM merchants WHERE ab_id = ?").get(row.abId);
    const rawPostgres = (await postgres.query("SELECT hours, brand_voice FROM merchants WHERE ab_id = $1", [row.abId]))
      .rows[0];
    expect(rawPostgres).toEqual(rawSqlite);
    expect(rawSqlite).toEqual({ hours: JSON.stringify(row.hours), brand_voice: JSON.stringify(row.brandVoice) });
  });
});
