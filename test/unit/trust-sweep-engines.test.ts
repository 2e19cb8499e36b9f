/**
 * The sweep of trust changes over a store, on both engines (src/domain/trust/trust-sweep.ts, its
 * port in src/store/trust-sweep-store.ts and src/store/postgres/trust-sweep-store.ts): it records
 * a touch of the merchants whose trust moved by itself since the last sweep (a verified signal's
 * expiry, a company's age step at midnight), once, at one store revision per page, remembers
 * where it got to (after a stop it walks the time it missed, day by day), pages a crowd of changes
 * at one instant, lets two sweeps run at once without touching a merchant twice, and reads the
 * signals through its two indexes.
 */
import { describe, expect, it } from "vitest";
import {
  sweepTrustChanges,
  TRUST_SWEEP_MARGIN_MS,
  type TrustSweepDeps,
  type TrustSweepPosition,
} from "../../src/domain/trust/trust-sweep.ts";
import { createMerchantRepository } from "../../src/store/merchant-repository.ts";
import { createLeaderFence } from "../../src/store/postgres/leader-fence.ts";
import { createPostgresMerchantRepository } from "../../src/store/postgres/merchant-repository.ts";
import { numbered } from "../../src/store/postgres/transaction.ts";
import { createPostgresTrustSweepStore, POSTGRES_TRUST_SWEEP_SQL } from "../../src/store/postgres/trust-sweep-store.ts";
import { createTrustSweepStore, SQLITE_TRUST_SWEEP_SQL } from "../../src/store/trust-sweep-store.ts";
import { insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const RECORDED = "2024-05-01T00:00:00.000Z";

function sweepOf(store: OpenedStore, at: () => Date, pageSize?: number): TrustSweepDeps {
  const ports = store.sqlite
    ? { store: createTrustSweepStore(store.sqlite), merchants: createMerchantRepository(store.sqlite) }
    : store.postgres
      ? {
          store: createPostgresTrustSweepStore(store.postgres.pool, createLeaderFence(store.postgres.pool)),
          merchants: createPostgresMerchantRepository(store.postgres.pool),
        }
      : null;
  if (!ports) throw new Error("no store");
  return { ...ports, now: at, ...(pageSize === undefined ? {} : { pageSize }) };
}

async function signal(
  store: OpenedStore,
  abId: string,
  key: string,
  value: unknown,
  options: { status?: string; expiresAt?: string | null } = {},
): Promise<void> {
  await store.run(
    `INSERT INTO signals (ab_id, key, status, proof_status, source, value, recorded_at, expires_at)
     VALUES ($1, $2, $3, 'official_source_verified', 'official_file', $4, $5, $6)`,
    [abId, key, options.status ?? "verified", JSON.stringify(value), RECORDED, options.expiresAt ?? null],
  );
}

async function revision(store: OpenedStore): Promise<number> {
  const [row] = await store.rows<{ revision: number }>("SELECT revision FROM store_revision WHERE id = 1");
  return Number(row?.revision);
}

async function touches(store: OpenedStore): Promise<Map<string, number>> {
  const rows = await store.rows<{ ab_id: string; touch: number }>("SELECT ab_id, touch FROM merchant_touches");
  return new Map(rows.map((row) => [row.ab_id, Number(row.touch)]));
}

/** The merchants touched after `revision`, by ab_id. */
async function touchedAfter(store: OpenedStore, after: number): Promise<string[]> {
  return [...(await touches(store)).entries()]
    .filter(([, touch]) => touch > after)
    .map(([abId]) => abId)
    .sort();
}

const lessMargin = (iso: string) => new Date(Date.parse(iso) - TRUST_SWEEP_MARGIN_MS).toISOString();

for (const engine of storeEngines()) {
  describe(`the sweep of trust changes on ${engine.name}`, () => {
    it("touches, once, the merchants whose trust moved by itself since the last sweep, and remembers where it got to", async () => {
      const store = await engine.open();
      for (const abId of ["ab_swp0001", "ab_swp0002", "ab_swp0003", "ab_swp0004"]) await insertMerchantRow(store, abId);
      await signal(store, "ab_swp0001", "siret_verified", true, { expiresAt: "2026-06-01T10:00:00.000Z" });
      // A failed check that "expires" reads the same before and after: not a change.
      await signal(store, "ab_swp0002", "siret_verified", false, {
        status: "failed",
        expiresAt: "2026-06-01T10:00:00.000Z",
      });
      await signal(store, "ab_swp0003", "siret_verified", true, { expiresAt: "2026-06-01T12:00:00.000Z" });
      await signal(store, "ab_swp0004", "siret_verified", true);
      let clock = new Date("2026-06-01T09:00:00.000Z");
      const deps = sweepOf(store, () => clock);

      // The first sweep starts now: nothing before it is swept.
      expect(await sweepTrustChanges(deps)).toEqual({ touched: 0, through: lessMargin("2026-06-01T09:00:00.000Z") });
      const start = await revision(store);

      clock = new Date("2026-06-01T10:00:30.000Z");
      expect(await sweepTrustChanges(deps)).toEqual({ touched: 1, through: lessMargin("2026-06-01T10:00:30.000Z") });
      expect(await revision(store)).toBe(start + 1);
      expect(await touchedAfter(store, start)).toEqual(["ab_swp0001"]);
      expect((await touches(store)).get("ab_swp0001")).toBe(start + 1);

      // Swept again at the same time, or by a sweep that starts over from the store: nothing more.
      expect(await sweepTrustChanges(deps)).toEqual({ touched: 0, through: lessMargin("2026-06-01T10:00:30.000Z") });
      expect(await sweepTrustChanges(sweepOf(store.another(), () => clock))).toMatchObject({ touched: 0 });
      expect(await revision(store)).toBe(start + 1);

      clock = new Date("2026-06-01T12:30:00.000Z");
      expect(await sweepTrustChanges(deps)).toEqual({ touched: 1, through: lessMargin("2026-06-01T12:30:00.000Z") });
      expect(await touchedAfter(store, start + 1)).toEqual(["ab_swp0003"]);
      const [position] = await store.rows<{ position: string }>("SELECT position FROM trust_sweeps");
      expect(JSON.parse(position?.position ?? "null") as TrustSweepPosition).toEqual({
        through: lessMargin("2026-06-01T12:30:00.000Z"),
        window: null,
      });
    });

    it("walks the days a stop missed, a company's age step at its midnight included", async () => {
      const store = await engine.open();
      for (const abId of ["ab_age0001", "ab_age0002", "ab_age0003"]) await insertMerchantRow(store, abId);
      // Turns 2 on 2 June 2026 (1 point, then 3); the other turns 3 that day (3 points still).
      await signal(store, "ab_age0001", "company_age_years", "2024-06-02");
      await signal(store, "ab_age0002", "company_age_years", "2023-06-02");
      await signal(store, "ab_age0003", "siret_verified", true, { expiresAt: "2026-06-03T15:00:00.000Z" });
      let clock = new Date("2026-06-01T12:00:00.000Z");
      const deps = sweepOf(store, () => clock);
      await sweepTrustChanges(deps);
      const start = await revision(store);

      clock = new Date("2026-06-04T08:00:00.000Z");
      expect(await sweepTrustChanges(deps)).toMatchObject({ touched: 2 });
      expect(await touchedAfter(store, start)).toEqual(["ab_age0001", "ab_age0003"]);
      // Each day its own stretch: the midnight's step first, the afternoon's expiry after.
      const touched = await touches(store);
      expect(touched.get("ab_age0001")).toBe(start + 1);
      expect(touched.get("ab_age0003")).toBe(start + 2);
    });

    it("pages a crowd of changes at one instant, and two sweeps at once touch each merchant once", async () => {
      const store = await engine.open();
      const midnight = "2026-06-02T00:00:00.000Z";
      const ids = Array.from({ length: 15 }, (_, index) => `ab_crd${String(index + 1).padStart(4, "0")}`);
      for (const abId of ids) await insertMerchantRow(store, abId);
      // Twelve checks end at midnight; six companies turn 2 then, three of them among the twelve.
      for (const abId of ids.slice(0, 12)) {
        await signal(store, abId, "siret_verified", true, { expiresAt: midnight });
      }
      for (const abId of ids.slice(9)) await signal(store, abId, "company_age_years", "2024-06-02");
      let clock = new Date("2026-06-01T12:00:00.000Z");
      await sweepTrustChanges(sweepOf(store, () => clock, 4));
      const start = await revision(store);

      clock = new Date("2026-06-02T01:00:00.000Z");
      const reports = await Promise.all([
        sweepTrustChanges(sweepOf(store, () => clock, 4)),
        sweepTrustChanges(sweepOf(store.another(), () => clock, 4)),
      ]);
      expect(reports.reduce((sum, report) => sum + report.touched, 0)).toBe(15);
      expect(await touchedAfter(store, start)).toEqual(ids);
      // Four pages of four (the last one short), each its own store revision.
      expect(await revision(store)).toBe(start + 4);
    });

    it("stopped between two pages, goes on from there at its next sweep", async () => {
      const store = await engine.open();
      const ids = Array.from({ length: 10 }, (_, index) => `ab_stp${String(index + 1).padStart(4, "0")}`);
      for (const abId of ids) {
        await insertMerchantRow(store, abId);
        await signal(store, abId, "siret_verified", true, { expiresAt: "2026-06-01T10:00:00.000Z" });
      }
      let clock = new Date("2026-06-01T09:00:00.000Z");
      await sweepTrustChanges(sweepOf(store, () => clock, 4));
      const start = await revision(store);

      clock = new Date("2026-06-01T11:00:00.000Z");
      const stopped = new AbortController();
      stopped.abort();
      expect(
        await sweepTrustChanges(
          sweepOf(store, () => clock, 4),
          { signal: stopped.signal },
        ),
      ).toEqual({
        touched: 4,
        through: lessMargin("2026-06-01T09:00:00.000Z"),
      });
      expect(await touchedAfter(store, start)).toEqual(ids.slice(0, 4));
      expect(await sweepTrustChanges(sweepOf(store, () => clock, 4))).toEqual({
        touched: 6,
        through: lessMargin("2026-06-01T11:00:00.000Z"),
      });
      expect(await touchedAfter(store, start)).toEqual(ids);
    });

    it("reads the signals through its two indexes (ranges, not a scan of every merchant)", async () => {
      const store = await engine.open();
      // A registry of 20,000 SIRENE merchants, each with its identity check (ending on one of 700
      // days) and its company's creation date (one of 9,000 days), written by one statement each.
      const generated = store.sqlite
        ? {
            numbers: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)",
            from: "FROM n",
            id: "'ab_gen' || printf('%05d', i)",
            day: (from: string, spread: number) => `date('${from}', '+' || (i % ${spread}) || ' days')`,
          }
        : {
            numbers: "",
            from: "FROM generate_series(1, 20000) AS n(i)",
            id: "'ab_gen' || lpad(i::text, 5, '0')",
            day: (from: string, spread: number) => `to_char(date '${from}' + (i % ${spread}), 'YYYY-MM-DD')`,
          };
      // On PostgreSQL without the touch triggers (a row each, 40,000 of them: tens of seconds here).
      const bulk = async (statement: string) => {
        const pool = store.postgres?.pool;
        if (!pool) return store.run(statement);
        const client = await pool.connect();
        try {
          await client.query("SET session_replication_role = replica");
          await client.query(statement);
        } finally {
          await client.query("RESET session_replication_role");
          client.release();
        }
      };
      await bulk(
        `${generated.numbers} INSERT INTO merchants (ab_id, siret, legal_name, business_name, slug, naf_code, sector, status,
           street, postal_code, city, zones, languages, founded_on, terrain_photos, same_as, created_at, updated_at)
         SELECT ${generated.id}, '73282932000074', 'Test SARL', 'Test', ${generated.id}, '10.71C', 'bakery', 'ACTIVE',
           '1 rue de la Paix', '75002', 'Paris', '[]', '["fr"]', '2010-01-01', '[]', '[]',
           '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' ${generated.from}`,
      );
      for (const [key, value, expiresAt] of [
        ["siret_verified", "'true'", `${generated.day("2026-01-01", 700)} || 'T10:00:00.000Z'`],
        ["company_age_years", `'"' || ${generated.day("2000-01-01", 9000)} || '"'`, "NULL"],
      ]) {
        await bulk(
          `${generated.numbers} INSERT INTO signals (ab_id, key, status, proof_status, source, value, recorded_at, expires_at)
           SELECT ${generated.id}, '${key}', 'verified', 'official_source_verified', 'official_file', ${value},
             '${RECORDED}', ${expiresAt} ${generated.from}`,
        );
      }
      await store.run("ANALYZE signals");
      const parameters = {
        afterAt: "2026-06-01T00:00:00.000Z",
        afterAbId: null,
        until: "2026-06-02T00:00:00.000Z",
        limit: 10,
        key: "company_age_years",
        values: ['"2024-06-02"'],
      };
      const sqlite = store.sqlite?.$client;
      if (sqlite) {
        const plan = (statement: string, values: Record<string, unknown>) =>
          (sqlite.prepare(`EXPLAIN QUERY PLAN ${statement}`).all(values) as { detail: string }[]).map(
            (row) => row.detail,
          );
        const { afterAt, afterAbId, until, limit, key, values } = parameters;
        expect(plan(SQLITE_TRUST_SWEEP_SQL.expiring, { afterAt, afterAbId, until, limit }).join("\n")).toMatch(
          /SEARCH signals USING COVERING INDEX signals_expiring \(expires_at>\? AND expires_at<\?\)/,
        );
        expect(
          plan(SQLITE_TRUST_SWEEP_SQL.recordedAs, {
            key,
            values: JSON.stringify(values),
            afterAbId: "",
            limit,
          }).join("\n"),
        ).toMatch(/SEARCH signals USING COVERING INDEX signals_recorded \(key=\? AND value=\? AND ab_id>\?\)/);
        return;
      }
      const plan = async (statement: string, values: Record<string, unknown>) => {
        const sent = numbered(statement, values);
        const rows = await store.rows<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${sent.text}`, sent.values);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      };
      const { afterAt, afterAbId, until, limit, key, values } = parameters;
      expect(await plan(POSTGRES_TRUST_SWEEP_SQL.expiring, { afterAt, afterAbId, until, limit })).toMatch(
        /Index Only Scan using signals_expiring on signals/,
      );
      expect(await plan(POSTGRES_TRUST_SWEEP_SQL.recordedAs, { key, values, afterAbId: "", limit })).toMatch(
        /(Index Only Scan using|Bitmap Index Scan on) signals_recorded[\s\S]*Index Cond: \(\(key = 'company_age_years'::text\) AND \(value = ANY/,
      );
    });
  });
}
