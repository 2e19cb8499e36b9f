/**
 * The store revision an instance keeps in memory on PostgreSQL (src/store/postgres/revision-watch.ts),
 * on a real PostgreSQL: moved by the notices of writes made elsewhere; never trusted after a write
 * of this process that may move it until read again (a request that writes then reads sees its
 * write before the notice arrives), still trusted after writes that cannot (leads, the outbox);
 * forgotten while the notice connection is down.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresPool, REVISIONED_TABLES } from "../../src/store/postgres/pool.ts";
import { type RevisionWatch, watchStoreRevision } from "../../src/store/postgres/revision-watch.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { until } from "../helpers/wait-for.ts";

const RETRY_MS = 100;
let server: TestPostgres;
let url: string;
let elsewhere: pg.Client;
let pool: pg.Pool;
let watch: RevisionWatch;

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
  elsewhere = new pg.Client({ connectionString: url });
  await elsewhere.connect();
  pool = openPostgresPool({ url, poolMax: 2, poolTimeoutMs: 2_000 }, { afterWrite: () => watch.afterWrite() });
  watch = watchStoreRevision({ url, pool, retryMs: RETRY_MS, applicationName: "revision-watch-test" });
}, 60_000);
afterAll(async () => {
  await watch?.stop();
  await pool?.end();
  await elsewhere?.end().catch(() => undefined);
  await server?.stop();
});

/** One statement between BEGIN and COMMIT on a connection of the watched pool. */
async function inOneTransaction(statement: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(statement);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

const revisionIn = async (client: pg.Client | pg.Pool) =>
  Number(
    (await client.query<{ revision: number }>("SELECT revision FROM store_revision WHERE id = 1")).rows[0]?.revision,
  );

describe("the store revision an instance keeps", () => {
  it("is known once listening, and follows writes made elsewhere through their notices", async () => {
    await until(() => watch.known() !== null);
    const start = await revisionIn(elsewhere);
    expect(watch.known()).toBe(start);

    await elsewhere.query("UPDATE store_revision SET revision = revision + 5 WHERE id = 1");
    await until(() => watch.known() === start + 5);
    expect(await watch.read()).toBe(start + 5);
  });

  it("is not trusted after a write of this process until read again", async () => {
    await until(() => watch.known() !== null);
    const before = watch.known() ?? 0;
    await inOneTransaction("UPDATE store_revision SET revision = revision + 1 WHERE id = 1");
    // Right after the commit, before any notice could be handled: nothing kept, a read sees the write.
    expect(watch.known()).toBeNull();
    expect(await watch.read()).toBe(before + 1);
    await until(() => watch.known() === before + 1);
    // A read does not make it forget: the pool tells the watch of no SELECT (counted on a pool of
    // its own, as the watch's notice of the commit above may still come and make it read again).
    let told = 0;
    const counting = openPostgresPool({ url, poolMax: 1, poolTimeoutMs: 2_000 }, { afterWrite: () => (told += 1) });
    try {
      await counting.query("SELECT 1");
      await counting.query("SELECT revision FROM store_revision WHERE id = 1");
      expect(told).toBe(0);
      // A write naming a registry table is told (this one changes no row: no notice follows).
      await counting.query("UPDATE merchants SET ab_id = ab_id WHERE false");
      expect(told).toBe(1);
    } finally {
      await counting.end();
    }
  });

  it("stays trusted across writes that cannot move the revision, alone or in a transaction", async () => {
    await until(() => watch.known() !== null);
    const before = watch.known();
    await pool.query(
      `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
       VALUES ('watch-outbox-1', 'lead_notification', 'lead-x', 'pending', 0, '2026-11-27', '2026-11-27')`,
    );
    await inOneTransaction("UPDATE outbox SET attempts = attempts + 1 WHERE message_id = 'watch-outbox-1'");
    expect(watch.known()).toBe(before);
  });

  it("is not trusted after the commit of a transaction that moved it, though it was read between", async () => {
    await until(() => watch.known() !== null);
    const before = watch.known() ?? 0;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("UPDATE store_revision SET revision = revision + 1 WHERE id = 1");
      expect(watch.known()).toBeNull();
      // Another request reads before the commit: it sees the old revision and keeps it...
      expect(await watch.read()).toBe(before);
      expect(watch.known()).toBe(before);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    // ...which the commit makes untrusted: a read now sees the write.
    expect(watch.known()).toBeNull();
    expect(await watch.read()).toBe(before + 1);
  });

  it("names every table whose triggers move the revision (migration 0001), and the revision's row", async () => {
    const triggered = await pool.query<{ table: string }>(
      `SELECT DISTINCT c.relname AS table FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE NOT t.tgisinternal AND p.prosrc LIKE '%store_revision%' ORDER BY 1`,
    );
    expect([...triggered.rows.map((row) => row.table), "store_revision"].sort()).toEqual([...REVISIONED_TABLES].sort());
  });

  it("forgets while its notice connection is down, and knows again once listening", async () => {
    await until(() => watch.known() !== null);
    // The notice connection stays down until the database takes connections again (it would
    // otherwise come back within one retry, too soon to be seen down on a busy machine).
    const database = (await elsewhere.query<{ name: string }>("SELECT current_database() AS name")).rows[0]?.name;
    // From the server's maintenance database: a database cannot refuse connections from itself.
    const maintenanceUrl = new URL(url);
    maintenanceUrl.pathname = "/postgres";
    const maintenance = new pg.Client({ connectionString: maintenanceUrl.toString() });
    await maintenance.connect();
    const allowConnections = (allowed: boolean) =>
      maintenance.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS ${allowed}`);
    await allowConnections(false);
    try {
      await elsewhere.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'revision-watch-test'",
      );
      await until(() => watch.known() === null);
      // A write made while it does not listen: its notice is lost, yet the revision known afterwards is the new one.
      await elsewhere.query("UPDATE store_revision SET revision = revision + 2 WHERE id = 1");
    } finally {
      await allowConnections(true);
      await maintenance.end();
    }
    const now = await revisionIn(elsewhere);
    await until(() => watch.listening() && watch.known() !== null);
    expect(watch.known()).toBe(now);
  });
});
