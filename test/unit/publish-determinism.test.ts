/**
 * The same registry gives byte-identical documents whichever engine it is read from and whichever
 * thread renders them (issue 35): the demo registry published three times, from SQLite on this
 * thread, from PostgreSQL in two worker threads (batches of three merchants, so that each thread
 * renders merchants in another order and after other ones than the others do), and from
 * PostgreSQL on this thread; every document but the snapshot manifests (signed anew on each
 * issue: a fresh nonce) is the same in the three publications, a merchant whose two products
 * share a position included (PostgreSQL returns equal rows in no set order: the reads name one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RefreshInput } from "../../src/publish/publisher.ts";
import { runRefresh } from "../../src/publish/publisher.ts";
import type { PublishSettings } from "../../src/publish/settings.ts";
import { workerRunner } from "../../src/publish/worker-runner.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresPublishIndex } from "../../src/store/postgres/publish-index.ts";
import { createPostgresProfileLoader, createPostgresPublishSource } from "../../src/store/postgres/publish-source.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { publishedDocuments, readPublished } from "../helpers/published-packs.ts";

const NOW = new Date("2026-11-20T09:00:00.000Z");
const BASE_URL = "https://abeille.example";

let server: TestPostgres;
let scratch: string;
let db: Db;
let pool: pg.Pool;
let url: string;
/** The merchant whose two products share a position. */
let tied: string;

beforeAll(async () => {
  server = await startTestPostgres();
  scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-determinism-"));
  db = openDatabase(path.join(scratch, "abeille.db"));
  await seedDemoRegistry(db, { count: 60, seed: 11, now: NOW, dataDir: scratch, rosterFile: null });
  // Two products of a merchant at the same position (nothing in the schema forbids it): their
  // order must not be left to the engine.
  tied = db.$client
    .prepare(
      "SELECT ab_id FROM products WHERE ab_id IN (SELECT ab_id FROM merchants WHERE status = 'ACTIVE') GROUP BY ab_id HAVING count(*) >= 2 ORDER BY ab_id LIMIT 1",
    )
    .pluck()
    .get() as string;
  const [first, second] = db.$client
    .prepare("SELECT product_id FROM products WHERE ab_id = ? ORDER BY position LIMIT 2")
    .pluck()
    .all(tied) as string[];
  db.$client.prepare("UPDATE products SET position = 0 WHERE product_id IN (?, ?)").run(first, second);
  url = await server.createDatabase();
  pool = openPostgresPool({ url, poolMax: 4, poolTimeoutMs: 5_000 });
  await copySqliteToPostgres(db.$client, pool, { batchRows: 500 });
  // On PostgreSQL the row written last comes last among equals (a new tuple), on SQLite the row
  // inserted first comes first: the first row written again on PostgreSQL, the two engines give
  // the same rows in the other order, unless the reads say which comes first.
  await pool.query("UPDATE products SET updated_at = updated_at WHERE product_id = $1", [first]);
}, 180_000);
afterAll(async () => {
  await pool?.end();
  db?.$client.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function settingsOf(name: string): PublishSettings {
  return {
    publishDir: path.join(scratch, name, "publish"),
    refreshCron: null,
    refreshTimezone: null,
    refreshOnStart: false,
    snapshotRenewMarginSeconds: 3600,
    fastPath: true,
    refreshWorkers: null,
  };
}

function input(name: string, extra: Partial<RefreshInput>): RefreshInput {
  return {
    config: { baseUrl: BASE_URL, publicOrderRailEnabled: false, dataDir: path.join(scratch, name), databaseFile: "" },
    settings: settingsOf(name),
    now: NOW,
    nextRunAt: null,
    codeKey: "determinism",
    ...extra,
  };
}

/** Every published document but the snapshot manifests, with its bytes. */
function documentsOf(name: string): Map<string, Buffer> {
  const dir = settingsOf(name).publishDir;
  const found = new Map<string, Buffer>();
  for (const relative of publishedDocuments(dir).keys()) {
    if (relative.endsWith("/snapshot")) continue;
    found.set(relative, readPublished(dir, relative) ?? Buffer.alloc(0));
  }
  return found;
}

const onPostgres = (): RefreshInput["store"] => {
  const loader = createPostgresProfileLoader(pool);
  return {
    source: createPostgresPublishSource(pool),
    loadProfiles: (abIds) => loader.load(abIds),
    index: createPostgresPublishIndex(pool),
  };
};

describe("documents whichever engine and thread render them", () => {
  it("are byte for byte the same from SQLite here, PostgreSQL in two worker threads, and PostgreSQL here", async () => {
    const fromSqlite = await runRefresh(input("sqlite", { db }));
    const inWorkers = await runRefresh(
      input("postgres-workers", {
        store: onPostgres(),
        batchSize: 3,
        runner: workerRunner(
          {
            databaseFile: "",
            databaseUrl: url,
            dataDir: path.join(scratch, "postgres-workers"),
            baseUrl: BASE_URL,
            publicOrderRailEnabled: false,
          },
          settingsOf("postgres-workers"),
          2,
        ),
      }),
    );
    // The shared index now holds the workers' run: --full renders every merchant again here.
    const here = await runRefresh(input("postgres-here", { store: onPostgres(), full: true }));
    for (const run of [fromSqlite, inWorkers, here]) expect([run.rendered, run.failed]).toEqual([run.merchants, 0]);

    const reference = documentsOf("sqlite");
    expect(reference.has(`api/merchants/${tied}/jsonld`)).toBe(true);
    expect(reference.size).toBe(fromSqlite.merchants * 4);
    for (const name of ["postgres-workers", "postgres-here"]) {
      const other = documentsOf(name);
      expect([...other.keys()].sort(), name).toEqual([...reference.keys()].sort());
      const differ = [...reference].filter(([relative, body]) => !other.get(relative)?.equals(body));
      expect(
        differ.map(([relative]) => relative),
        name,
      ).toEqual([]);
    }
  }, 180_000);
});
