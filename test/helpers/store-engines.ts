/**
 * The store's two engines for contract tests (docs/several-machines.md: one contract, both
 * engines): each gives a fresh migrated store, SQLite in a temporary file or PostgreSQL in a
 * database of the tests' throwaway server (test/helpers/postgres.ts), and raw SQL to set a scene
 * (`$1`-numbered parameters on both). Call `storeEngines()` at the top of a test file: it starts
 * PostgreSQL before the file's tests and stops it after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { type PostgresStore, postgresStore } from "../../src/store/postgres/store.ts";
import type { StoreDb } from "../../src/store/store-db.ts";
import { startTestPostgres, type TestPostgres } from "./postgres.ts";

export interface OpenedStore {
  /** The store itself on its engine (the other is null). */
  sqlite: Db | null;
  postgres: PostgresStore | null;
  /** The one query builder of the repositories shared by both engines (src/store/store-db.ts), on this one. */
  storeDb: StoreDb;
  /** The same store opened again, as another process or machine would. */
  another(): OpenedStore;
  run(sql: string, values?: unknown[]): Promise<void>;
  rows<T>(sql: string, values?: unknown[]): Promise<T[]>;
}

export interface StoreEngine {
  name: "SQLite" | "PostgreSQL";
  open(): Promise<OpenedStore>;
}

/** A port's methods answering Promises, from a synchronous implementation (what the SQLite store answers). */
export function asynchronous<Port extends object>(
  port: Port,
): {
  [Method in keyof Port]: Port[Method] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
} {
  return Object.fromEntries(
    Object.entries(port).map(([name, method]) => [
      name,
      (...args: unknown[]) => Promise.resolve().then(() => (method as (...a: unknown[]) => unknown).apply(port, args)),
    ]),
  ) as never;
}

const sqliteParameters = (sql: string) => sql.replace(/\$\d+/g, "?");
/** SQLite has no booleans: a boolean parameter is written as 1 or 0, as the store writes them. */
const sqliteValues = (values: unknown[]) => values.map((value) => (typeof value === "boolean" ? Number(value) : value));

export function storeEngines(): StoreEngine[] {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-store-engines-"));
  let server: TestPostgres | null = null;
  const closers: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  let files = 0;

  const sqliteStore = (file: string): OpenedStore => {
    const db = openDatabase(file);
    closers.push(() => {
      db.$client.close();
    });
    return {
      sqlite: db,
      postgres: null,
      storeDb: db,
      another: () => sqliteStore(file),
      async run(sql, values = []) {
        db.$client.prepare(sqliteParameters(sql)).run(...sqliteValues(values));
      },
      async rows<T>(sql: string, values: unknown[] = []) {
        return db.$client.prepare(sqliteParameters(sql)).all(...sqliteValues(values)) as T[];
      },
    };
  };
  const postgresOpened = (url: string): OpenedStore => {
    const pool: pg.Pool = openPostgresPool({ url, poolMax: 4, poolTimeoutMs: 5_000 });
    closers.push(() => pool.end());
    const postgres = postgresStore(pool);
    return {
      sqlite: null,
      postgres,
      storeDb: postgres.storeDb,
      another: () => postgresOpened(url),
      async run(sql, values = []) {
        await pool.query(sql, values);
      },
      async rows<T>(sql: string, values: unknown[] = []) {
        return (await pool.query(sql, values)).rows as T[];
      },
    };
  };

  return [
    { name: "SQLite", open: async () => sqliteStore(path.join(scratch, `store-${files++}.db`)) },
    {
      name: "PostgreSQL",
      async open() {
        if (!server) throw new Error("storeEngines() must be called at the top of the test file");
        return postgresOpened(await server.createDatabase());
      },
    },
  ];
}

/** A merchant row with what the schema requires, for the tables that refer to merchants. */
export async function insertMerchantRow(
  store: OpenedStore,
  abId: string,
  extra: { paymentSetup?: boolean; paymentAccountId?: string | null } = {},
): Promise<void> {
  await store.run(
    `INSERT INTO merchants (ab_id, siret, legal_name, business_name, slug, naf_code, sector, status, street, postal_code,
       city, zones, languages, founded_on, terrain_photos, same_as, created_at, updated_at, payment_setup, payment_account_id)
     VALUES ($1, '73282932000074', 'Boulangerie Test SARL', 'Boulangerie Test', 'boulangerie-test', '10.71C', 'bakery',
       'ACTIVE', '1 rue de la Paix', '75002', 'Paris', '[]', '["fr"]', '2010-01-01', '[]', '[]',
       '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z', $2, $3)`,
    [abId, extra.paymentSetup ?? false, extra.paymentAccountId ?? null],
  );
}
