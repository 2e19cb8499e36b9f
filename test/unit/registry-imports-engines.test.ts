/**
 * The real imports write the same registry on both engines: the demo seed through its official
 * files (SIRENE's geocoded establishments and legal units, the declarations and observations in
 * NDJSON, the operator's lifecycle steps, BODACC's announcements), then a SIRENE stock file of real
 * rows (INSEE's 2024 sample) and generated ones, imported twice, then as a newer stock (which
 * confirms what it lists unchanged), each through the domain's import
 * functions into a SQLite store and into a PostgreSQL store (src/store/merchant-registry-repository.ts
 * and src/store/postgres/merchant-registry-repository.ts). Then what the registry reads is compared,
 * deep-equal: every merchant whole, its audit log, the change feed in its order, the counts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MerchantLifecycleDeps, MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import { importSireneStock } from "../../src/import/sirene/import-sirene.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { seedDemoRegistry, seedDemoRegistryInto } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresRegistryMaintenance } from "../../src/store/postgres/registry-maintenance.ts";
import { postgresStore } from "../../src/store/postgres/store.ts";
import { countRegistry } from "../../src/store/registry-maintenance.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

const SEEDED_AT = new Date("2026-11-01T00:00:00Z");
const IMPORTED_AT = new Date("2026-11-20T09:00:00Z");
let dir: string;
let sqlite: Db;
let server: TestPostgres;
let pool: pg.Pool;
let onSqlite: MerchantRegistryStore;
let onPostgres: MerchantRegistryStore;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-imports-engines-"));
  sqlite = openDatabase(path.join(dir, "abeille.db"));
  server = await startTestPostgres();
  pool = openPostgresPool({ url: await server.createDatabase(), poolMax: 4, poolTimeoutMs: 10_000 });
  onSqlite = createMerchantRegistryRepository(sqlite);
  onPostgres = createPostgresMerchantRegistryRepository(postgresStore(pool));
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  sqlite?.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Deps of an import with ids drawn in order, the same on both engines. */
function importDeps(registry: MerchantRegistryStore): MerchantLifecycleDeps {
  let drawn = 0;
  let ids = 0;
  return {
    registry,
    communes: createCommuneLookup(),
    now: () => IMPORTED_AT,
    randomId: () => `ab_stk${String(++drawn).padStart(5, "0")}`,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`,
  };
}

async function everything(registry: MerchantRegistryStore, feed: () => Promise<unknown[]>) {
  const listed = await registry.list({ limit: 100_000 });
  const merchants = [];
  for (const { abId } of listed) {
    merchants.push({ registered: await registry.find(abId), events: await registry.events(abId) });
  }
  return { listed, merchants, feed: await feed() };
}

const FEED = "SELECT seq, ab_id, revision, change, changed_at FROM merchant_changes ORDER BY seq";

describe("the imports on SQLite and on PostgreSQL", () => {
  it("write the same registry: the demo seed's files, then a SIRENE stock file twice and as a newer stock", async () => {
    const options = { count: 60, seed: 13, now: SEEDED_AT, searchIndex: null, rosterFile: null };
    const seededOnSqlite = await seedDemoRegistry(sqlite, { ...options, dataDir: path.join(dir, "a") });
    const seededOnPostgres = await seedDemoRegistryInto(
      { registry: onPostgres, maintenance: createPostgresRegistryMaintenance(pool), sqlite: null },
      { ...options, dataDir: path.join(dir, "b") },
    );
    expect(seededOnSqlite.merchants).toBe(60);
    expect({ ...seededOnPostgres, searchIndexRebuilt: false }).toEqual({
      ...seededOnSqlite,
      searchIndexRebuilt: false,
    });

    const stock = path.join(dir, "StockEtablissement_utf8.csv");
    writeStockFile(stock, 400);
    const files = { establishments: stock, legalUnits: legalUnitsFileOf(stock) };
    for (const run of [1, 2]) {
      const reportOnSqlite = await importSireneStock(importDeps(onSqlite), files, "import:sirene");
      const reportOnPostgres = await importSireneStock(importDeps(onPostgres), files, "import:sirene");
      expect(reportOnPostgres).toEqual(reportOnSqlite);
      // The first run brings merchants in; the second finds them as they are.
      if (run === 1) expect(reportOnSqlite.created).toBeGreaterThan(50);
      else expect([reportOnSqlite.created, reportOnSqlite.unchanged]).toEqual([0, reportOnSqlite.unchanged]);
    }
    // A newer stock of the same rows confirms each merchant as of its date: the signals' dates
    // move (one statement a batch on PostgreSQL), the merchants' revisions, audit log and feed stay.
    const feedBefore = sqlite.$client.prepare(FEED).all().length;
    const newer = { ...files, fileDate: "2026-12-01" };
    const confirmedOnSqlite = await importSireneStock(importDeps(onSqlite), newer, "import:sirene");
    const confirmedOnPostgres = await importSireneStock(importDeps(onPostgres), newer, "import:sirene");
    expect(confirmedOnPostgres).toEqual(confirmedOnSqlite);
    expect(confirmedOnSqlite).toMatchObject({ stock_date: "2026-12-01T00:00:00.000Z", created: 0, updated: 0 });
    expect(confirmedOnSqlite.confirmed).toBeGreaterThan(50);
    expect(sqlite.$client.prepare(FEED).all().length).toBe(feedBefore);
    const confirmedDates =
      "SELECT DISTINCT verified_at, expires_at FROM signals WHERE key = 'siret_verified' AND source = 'official_file'";
    expect(sqlite.$client.prepare(confirmedDates).all()).toContainEqual({
      verified_at: "2026-12-01T00:00:00.000Z",
      expires_at: "2028-11-30T00:00:00.000Z",
    });

    const read = {
      sqlite: await everything(onSqlite, async () => sqlite.$client.prepare(FEED).all()),
      postgres: await everything(onPostgres, async () => (await pool.query(FEED)).rows),
    };
    expect(read.sqlite.listed.length).toBe(countRegistry(sqlite).merchants);
    expect(read.sqlite.listed.length).toBeGreaterThan(110);
    expect(read.sqlite.feed.length).toBeGreaterThan(100);
    expect(read.postgres.listed).toEqual(read.sqlite.listed);
    for (const [index, merchant] of read.sqlite.merchants.entries()) {
      expect(read.postgres.merchants[index], merchant.registered?.merchant.abId).toEqual(merchant);
    }
    expect(read.postgres.feed).toEqual(read.sqlite.feed);
    expect(await createPostgresRegistryMaintenance(pool).count()).toEqual(countRegistry(sqlite));
    const revision = "SELECT revision FROM store_revision WHERE id = 1";
    expect(Number((await pool.query<{ revision: string }>(revision)).rows[0]?.revision)).toBe(
      (sqlite.$client.prepare(revision).get() as { revision: number }).revision,
    );
  }, 120_000);
});
