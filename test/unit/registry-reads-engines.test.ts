/**
 * The registry's reads give the same answers on both engines: a demo registry seeded through the
 * imports on SQLite, copied to PostgreSQL by the copy command's function, then every merchant read
 * through each engine's repositories (src/store/merchant-repository.ts and publish-source.ts;
 * src/store/postgres/merchant-repository.ts and publish-source.ts): profiles, lead targets, lists,
 * trust signals, clusters, the publication's stamps, dates and batch profiles, deep-equal.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantReads } from "../../src/store/merchant-repository.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { createPostgresMerchantRepository } from "../../src/store/postgres/merchant-repository.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresProfileLoader, createPostgresPublishSource } from "../../src/store/postgres/publish-source.ts";
import { createProfileLoader, createPublishSource } from "../../src/store/publish-source.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

const NOW = "2026-11-26T10:00:00.000Z";
let dataDir: string;
let sqlite: Db;
let server: TestPostgres;
let pool: pg.Pool;
let abIds: string[];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-reads-engines-"));
  sqlite = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(sqlite, {
    count: 60,
    seed: 13,
    now: new Date("2026-11-01T00:00:00Z"),
    dataDir,
    searchIndex: null,
  });
  server = await startTestPostgres();
  pool = openPostgresPool({ url: await server.createDatabase(), poolMax: 4, poolTimeoutMs: 10_000 });
  await copySqliteToPostgres(sqlite.$client, pool, { batchRows: 500 });
  abIds = sqlite.$client.prepare("SELECT ab_id FROM merchants ORDER BY ab_id").pluck().all() as string[];
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  sqlite?.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the registry's reads on SQLite and on PostgreSQL", () => {
  it("read the same profiles, lead targets, lists, signals and clusters of every merchant", async () => {
    // The SQLite store's reads, synchronous (the port answers the same through Promises).
    const onSqlite = createMerchantReads(sqlite);
    const onPostgres = createPostgresMerchantRepository(pool);
    expect(abIds).toHaveLength(60);
    expect(await onPostgres.revision()).toBe(onSqlite.revision());
    for (const abId of abIds) {
      const profile = onSqlite.findProfile(abId);
      expect(await onPostgres.findProfile(abId)).toEqual(profile);
      for (const withProducts of [true, false]) {
        expect(await onPostgres.findLeadTarget(abId, { withProducts })).toEqual(
          onSqlite.findLeadTarget(abId, { withProducts }),
        );
      }
      expect(await onPostgres.findClusters(abId)).toEqual(onSqlite.findClusters(abId));
      const clusterId = profile?.clusters[0]?.clusterId;
      if (clusterId) expect(await onPostgres.findCluster(clusterId)).toEqual(onSqlite.findCluster(clusterId));
    }
    const byId = <T extends { abId: string }>(items: T[]) => [...items].sort((a, b) => a.abId.localeCompare(b.abId));
    expect(byId(await onPostgres.findMerchants(abIds))).toEqual(byId(onSqlite.findMerchants(abIds)));
    expect(await onPostgres.findProducts(abIds)).toEqual(onSqlite.findProducts(abIds));
    const sorted = (map: Map<string, unknown>) => new Map([...map].sort(([a], [b]) => a.localeCompare(b)));
    expect(sorted(await onPostgres.findTrustSignals(abIds))).toEqual(sorted(onSqlite.findTrustSignals(abIds)));
    expect(sorted(await onPostgres.findSignal(abIds, "siret_verified"))).toEqual(
      sorted(onSqlite.findSignal(abIds, "siret_verified")),
    );
    expect(await onPostgres.findProfile("ab_nothing0")).toBeNull();
  });

  it("give the publication the same stamps, dates, touches and batch profiles", async () => {
    const onSqlite = createPublishSource(sqlite);
    const onPostgres = createPostgresPublishSource(pool);
    expect(await onPostgres.count()).toBe(await onSqlite.count());
    expect(await onPostgres.stampsAfter("", 1_000)).toEqual(await onSqlite.stampsAfter("", 1_000));
    expect(await onPostgres.stampsOf(abIds.slice(0, 7))).toEqual(await onSqlite.stampsOf(abIds.slice(0, 7)));
    expect(await onPostgres.stampOf(abIds[3] ?? "")).toEqual(await onSqlite.stampOf(abIds[3] ?? ""));
    expect(await onPostgres.modificationsAfter("", 1_000, NOW)).toEqual(
      await onSqlite.modificationsAfter("", 1_000, NOW),
    );
    expect(await onPostgres.touchedSince(0)).toEqual(await onSqlite.touchedSince(0));
    const batch = abIds.slice(10, 30);
    expect(await createPostgresProfileLoader(pool).load(batch)).toEqual(createProfileLoader(sqlite).load(batch));
  });
});
