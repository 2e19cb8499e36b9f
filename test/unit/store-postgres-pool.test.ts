/**
 * The node-postgres pool as the store opens it (src/store/postgres/pool.ts): a saturated pool
 * rejects after poolTimeoutMs instead of hanging (what a 503 with Retry-After is built on), bigint
 * reads as a JS number as SQLite's integers do, and an idle connection the server ends (a restart)
 * neither ends the process nor the pool.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../src/errors/service-error.ts";
import { isPoolTimeout, openPostgresPool, STORE_RETRY_AFTER_SECONDS } from "../../src/store/postgres/pool.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

let server: TestPostgres;
let url: string;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

function open(settings: {
  poolMax: number;
  poolTimeoutMs: number;
  statementTimeoutMs?: number;
  applicationName?: string;
}): pg.Pool {
  const pool = openPostgresPool({ url, applicationName: "abeille-pool-test", ...settings });
  pools.push(pool);
  return pool;
}

describe("openPostgresPool", () => {
  it("rejects a query after poolTimeoutMs when every connection is busy, and serves again once one is free", async () => {
    const pool = open({ poolMax: 1, poolTimeoutMs: 200 });
    const held = await pool.connect();
    const started = Date.now();
    const error = await pool.query("SELECT 1").catch((caught: unknown) => caught);
    const waited = Date.now() - started;
    // Answered as the catalog's 503 with a Retry-After, never left waiting.
    expect(error).toBeInstanceOf(ServiceError);
    expect([(error as ServiceError).code, (error as ServiceError).details]).toEqual([
      "STORE_UNAVAILABLE",
      { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS },
    ]);
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(2_000);
    held.release();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    expect(isPoolTimeout(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isPoolTimeout(new Error("division by zero"))).toBe(false);
  });

  it("ends a statement that runs past statementTimeoutMs, answered as the database not answering", async () => {
    const pool = open({ poolMax: 1, poolTimeoutMs: 1_000, statementTimeoutMs: 100 });
    await expect(pool.query("SELECT pg_sleep(2)")).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
    // A mistake in a statement is not an outage: it stays the error it is.
    await expect(pool.query("SELECT 1/0")).rejects.toThrow("division by zero");
    expect((await pool.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
  });

  it("reads bigint as a number, and refuses one past 2^53 rather than read it wrong", async () => {
    const pool = open({ poolMax: 1, poolTimeoutMs: 1_000 });
    const { rows } = await pool.query(
      "SELECT revision, count(*) AS rows, 9007199254740991::bigint AS largest FROM store_revision GROUP BY revision",
    );
    expect(rows).toEqual([{ revision: 0, rows: 1, largest: 9007199254740991 }]);
    await expect(pool.query("SELECT 9007199254740992::bigint AS past")).rejects.toThrow(
      "bigint 9007199254740992 is past Number.MAX_SAFE_INTEGER",
    );
  });

  it("survives the server ending its idle connections, and opens new ones", async () => {
    const pool = open({ poolMax: 2, poolTimeoutMs: 1_000, applicationName: "abeille-restarted" });
    await Promise.all([pool.query("SELECT pg_sleep(0.05)"), pool.query("SELECT pg_sleep(0.05)")]);
    expect(pool.idleCount).toBe(2);
    const admin = open({ poolMax: 1, poolTimeoutMs: 1_000 });
    const ended = await admin.query(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'abeille-restarted' AND state = 'idle'",
    );
    expect(ended.rows).toEqual([{ ended: true }, { ended: true }]);
    // Each idle connection's end reaches the pool as an error event: logged by the pool's own
    // listener (without one, the event would end this process), and the connection dropped.
    const deadline = Date.now() + 5_000;
    while (pool.totalCount > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pool.totalCount).toBe(0);
    expect((await pool.query("SELECT 3 AS three")).rows).toEqual([{ three: 3 }]);
  });

  it("answers 503 STORE_UNAVAILABLE at once while PostgreSQL is stopped, and serves again once it is back", async () => {
    const pool = open({ poolMax: 2, poolTimeoutMs: 1_000 });
    expect((await pool.query("SELECT 4 AS four")).rows).toEqual([{ four: 4 }]);
    const lent = await pool.connect();
    await server.pause();
    try {
      const started = Date.now();
      await expect(pool.query("SELECT 5")).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      // The connection lent before the stop fails the same way.
      await expect(lent.query("SELECT 6")).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      await expect(pool.connect()).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      lent.release(true);
      await server.resume();
    }
    expect((await pool.query("SELECT 7 AS seven")).rows).toEqual([{ seven: 7 }]);
  }, 60_000);

  it("still answers the callback form of a query (as pg's own helpers call it)", async () => {
    const pool = open({ poolMax: 1, poolTimeoutMs: 1_000 });
    const rows = await new Promise((resolve, reject) => {
      void pool.query("SELECT 8 AS eight", (error: Error | undefined, result: pg.QueryResult) =>
        error ? reject(error) : resolve(result.rows),
      );
    });
    expect(rows).toEqual([{ eight: 8 }]);
  });
});
