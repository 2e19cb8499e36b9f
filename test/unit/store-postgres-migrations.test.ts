/**
 * The PostgreSQL migrations applied safely (src/store/postgres/migrate.ts): all in one
 * transaction under an advisory lock, recorded in schema_migrations; twice is a no-op; two
 * migrators at once apply them once; a migration that fails halfway leaves nothing behind; a
 * database whose text does not order byte by byte is refused, saying how to create one.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteTables } from "../../src/store/postgres/derive-schema.ts";
import { applyPostgresMigrations, DatabaseSetupError } from "../../src/store/postgres/migrate.ts";
import { migrations } from "../../src/store/postgres/migrations/index.ts";
import { POSTGRES_ONLY_TABLES } from "../helpers/migration-files.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

let server: TestPostgres;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

function poolFor(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return pool;
}

/** Every embedded migration, from drizzle-kit's first and the hand-written triggers on. */
const ALL = migrations.map((migration) => migration.id);

async function publicTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  );
  return rows.map((row) => row.name);
}

async function recorded(pool: pg.Pool): Promise<string[]> {
  return (await pool.query<{ id: string }>("SELECT id FROM schema_migrations ORDER BY id")).rows.map((row) => row.id);
}

describe("applyPostgresMigrations", () => {
  it("migrates an empty database once; a second run applies nothing", async () => {
    const pool = poolFor(await server.createEmptyDatabase());
    expect(ALL.slice(0, 2)).toEqual(["0000_init", "0001_store_triggers"]);
    expect(await applyPostgresMigrations(pool)).toEqual(ALL);
    expect(await applyPostgresMigrations(pool)).toEqual([]);
    expect(await recorded(pool)).toEqual(ALL);
    // The store's tables, schema_migrations and the tables only PostgreSQL has.
    expect(await publicTables(pool)).toHaveLength(sqliteTables().length + 1 + POSTGRES_ONLY_TABLES.length);
    const { rows } = await pool.query<{ applied_at: string }>("SELECT applied_at FROM schema_migrations");
    for (const row of rows) expect(row.applied_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The seeded store revision row is there once, not once per run.
    expect((await pool.query("SELECT id, revision::int FROM store_revision")).rows).toEqual([{ id: "1", revision: 0 }]);
  });

  it("lets one of two migrators starting together apply the migrations; the other waits and finds them done", async () => {
    const url = await server.createEmptyDatabase();
    const [first, second] = [poolFor(url), poolFor(url)];
    // Separate pools, separate sessions: as two instances starting at once.
    const results = await Promise.all([applyPostgresMigrations(first), applyPostgresMigrations(second)]);
    expect(results.map((applied) => applied.length).sort()).toEqual([0, ALL.length]);
    expect(results.flat()).toEqual(ALL);
    expect(await recorded(first)).toEqual(ALL);
  });

  it("leaves nothing of a migration that fails halfway, nor of the ones applied before it in the same run", async () => {
    const pool = poolFor(await server.createEmptyDatabase());
    const failing = {
      id: "9999_fails_halfway",
      statements: [
        "CREATE TABLE half_done (id integer)",
        "ALTER TABLE merchants ADD COLUMN extra text",
        "SELECT 1 / 0",
      ],
    };
    const attempt = applyPostgresMigrations(pool, [...migrations, failing]);
    await expect(attempt).rejects.toBeInstanceOf(DatabaseSetupError);
    await expect(attempt).rejects.toThrow("migration 9999_fails_halfway failed, nothing applied: division by zero");
    expect(await publicTables(pool)).toEqual([]);

    // On a migrated database: the failing one leaves the schema and the record as they were.
    expect(await applyPostgresMigrations(pool)).toEqual(ALL);
    await expect(applyPostgresMigrations(pool, [...migrations, failing])).rejects.toThrow("division by zero");
    expect(await recorded(pool)).toEqual(ALL);
    expect(await publicTables(pool)).not.toContain("half_done");
    const extra = await pool.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'merchants' AND column_name = 'extra'",
    );
    expect(extra.rows).toEqual([]);
    // And the next start applies what is pending as usual.
    expect(await applyPostgresMigrations(pool)).toEqual([]);
  });

  it("refuses a database whose text does not order byte by byte, or is not UTF-8, saying how to create one", async () => {
    const admin = poolFor(server.url("postgres"));
    await admin.query(
      "CREATE DATABASE icu_ordered TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'fr-FR'",
    );
    await admin.query("CREATE DATABASE latin TEMPLATE template0 ENCODING 'LATIN1' LOCALE 'C'");
    const icu = poolFor(server.url("icu_ordered"));
    const latin = poolFor(server.url("latin"));
    const howTo =
      "Create it with CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' (docs/deployment.md)";
    await expect(applyPostgresMigrations(icu)).rejects.toThrow(
      `DATABASE_URL's database cannot hold the store: its collation is an ICU one, which does not order text byte by byte. ${howTo}`,
    );
    await expect(applyPostgresMigrations(latin)).rejects.toThrow(
      `DATABASE_URL's database cannot hold the store: its encoding is LATIN1, not UTF8. ${howTo}`,
    );
    expect(await publicTables(icu)).toEqual([]);
  });
});
