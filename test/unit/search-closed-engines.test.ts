/**
 * Only what is in business (issue 37): a merchant SIRENE records closed, or whose company the
 * BODACC says is gone, is never a search hit, on either store engine and either search engine.
 * Real rows, given the SIRENs of two seeded merchants: INSEE's closed ASIE INFINY (etat F, dateDebut
 * 2020-11-04) and the BODACC's "Jugement de clôture pour insuffisance d'actif" of DJ BATIMENT
 * (test/fixtures/official). Each store (SQLite, PostgreSQL, the same seed copied) takes the same
 * decisions through its own batch; then the search reads of both engines leave the two out, and so
 * do the embedded index and Meilisearch built from each.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyBodaccAnnouncements } from "../../src/domain/merchants/apply-bodacc-announcements.ts";
import { applyOfficialEstablishment } from "../../src/domain/merchants/apply-official-establishment.ts";
import type { MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import { announcementOf } from "../../src/import/bodacc/announcements.ts";
import { establishmentOf } from "../../src/import/sirene/establishments.ts";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import type { SearchIndex, SearchQuery } from "../../src/search/search-index.ts";
import { createSearchSource, type SearchSource } from "../../src/search/source.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresSearchFeed } from "../../src/store/postgres/registry-feeds.ts";
import { createPostgresSearchSource } from "../../src/store/postgres/search-source.ts";
import { postgresStore } from "../../src/store/postgres/store.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/official");
const NOW = new Date("2026-11-26T10:00:00.000Z");
const now = () => NOW;

let dir: string;
let sqlite: Db;
let server: TestPostgres;
let pool: pg.Pool;
let meilisearch: TestMeilisearch;
/** [ab_id, SIRET, business name] of the merchant SIRENE closes, the one BODACC closes, and one left open. */
let closedInSirene: [string, string, string];
let closedInBodacc: [string, string, string];
let open: [string, string, string];

/** INSEE's closed ASIE INFINY row (the fixture's last), given this SIRET. */
function closedSireneRow(siret: string) {
  const lines = readFileSync(path.join(FIXTURES, "StockEtablissement_2019.csv"), "utf8").trim().split("\n");
  const cells = (line: string) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)]
      .map((match) => (match[1] ?? "").replace(/^"|"$/g, "").replaceAll('""', '"'))
      .slice(0, (lines[0] as string).split(",").length);
  const header = cells(lines[0] as string);
  const values = cells(lines.at(-1) as string);
  const row = Object.fromEntries(header.map((name, index) => [name, values[index] ?? ""]));
  expect([row.enseigne1Etablissement, row.etatAdministratifEtablissement, row.dateDebut]).toEqual([
    "ASIE INFINY",
    "F",
    "2020-11-04",
  ]);
  return establishmentOf({ ...row, siren: siret.slice(0, 9), nic: siret.slice(9), siret });
}

/** The BODACC's real liquidation closure (DJ BATIMENT, v1 records page), about this SIREN. */
function liquidationClosure(siren: string) {
  const page = readFileSync(path.join(FIXTURES, "bodacc-v1-records-page.json"), "utf8")
    .replaceAll("833 310 592", `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`)
    .replaceAll("833310592", siren);
  const record = (JSON.parse(page) as { records: { fields: Record<string, unknown> }[] }).records[0]?.fields ?? {};
  const reading = announcementOf(record);
  if (!("announcement" in reading)) throw new Error(reading.error);
  return reading.announcement;
}

async function closeBoth(registry: MerchantRegistryStore): Promise<void> {
  const deps = { communes: createCommuneLookup(), now };
  const establishment = closedSireneRow(closedInSirene[1]);
  await registry.applyBatch({ sirets: [closedInSirene[1]] }, (view) =>
    applyOfficialEstablishment({ ...deps, registry: view }, establishment, "import:sirene"),
  );
  const siren = closedInBodacc[1].slice(0, 9);
  await registry.applyBatch({ sirens: [siren] }, (view) =>
    applyBodaccAnnouncements(
      { ...deps, registry: view },
      siren,
      [liquidationClosure(siren)],
      { from: "2020-11-30", to: "2020-11-30" },
      "import:bodacc",
    ),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-closed-engines-"));
  sqlite = openDatabase(path.join(dir, "abeille.db"));
  await seedDemoRegistry(sqlite, {
    count: 30,
    seed: 37,
    now: new Date("2026-11-01T00:00:00Z"),
    dataDir: dir,
    searchIndex: null,
  });
  server = await startTestPostgres();
  pool = openPostgresPool({ url: await server.createDatabase(), poolMax: 4, poolTimeoutMs: 10_000 });
  await copySqliteToPostgres(sqlite.$client, pool, { batchRows: 500 });
  const picked = sqlite.$client
    .prepare(
      `SELECT ab_id, siret, business_name FROM merchants WHERE status = 'ACTIVE' AND closure IS NULL
       ORDER BY ab_id LIMIT 3`,
    )
    .raw()
    .all() as [string, string, string][];
  [closedInSirene, closedInBodacc, open] = picked as [typeof open, typeof open, typeof open];
  meilisearch = await startTestMeilisearch();
}, 180_000);

afterAll(async () => {
  await meilisearch?.close();
  await pool?.end();
  await server?.stop();
  sqlite?.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const byName = (name: string): SearchQuery => ({ text: name, tags: [], near: null, limit: 10 });
const hitIds = async (index: SearchIndex, name: string) =>
  (await index.search(byName(name))).hits.map((hit) => hit.abId);

describe("a merchant closed in SIRENE or the BODACC, on SQLite and on PostgreSQL", () => {
  const sources: [string, () => SearchSource][] = [
    ["SQLite", () => createSearchSource(sqlite)],
    ["PostgreSQL", () => createPostgresSearchSource(pool)],
  ];

  it("is recorded closed the same way by both stores, and stays listed", async () => {
    await closeBoth(createMerchantRegistryRepository(sqlite));
    await closeBoth(createPostgresMerchantRegistryRepository(postgresStore(pool)));
    for (const registry of [
      createMerchantRegistryRepository(sqlite),
      createPostgresMerchantRegistryRepository(postgresStore(pool)),
    ]) {
      const sirene = await registry.find(closedInSirene[0]);
      expect(sirene?.merchant.status).toBe("ACTIVE");
      expect(sirene?.merchant.closure).toEqual({
        closedOn: "2020-11-04",
        source: "sirene",
        sourceUrl:
          "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret",
        label: "Établissement fermé (état administratif F)",
        announcementId: null,
        recordedAt: NOW.toISOString(),
      });
      const bodacc = await registry.find(closedInBodacc[0]);
      expect(bodacc?.merchant.status).toBe("ACTIVE");
      expect(bodacc?.merchant.closure).toEqual({
        closedOn: "2020-11-19",
        source: "bodacc",
        sourceUrl: "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:A202002333642",
        label: "Jugement de clôture pour insuffisance d'actif",
        announcementId: "A202002333642",
        recordedAt: NOW.toISOString(),
      });
      expect((await registry.find(open[0]))?.merchant.closure).toBeNull();
    }
  });

  it.each(sources)("is left out of the search reads on %s", async (_engine, source) => {
    const asked = [closedInSirene[0], closedInBodacc[0], open[0]];
    const listed = await source().listedDocuments(asked, NOW);
    expect(listed.documents.map((document) => document.abId)).toEqual([open[0]]);
    expect(listed.unlisted).toEqual([closedInSirene[0], closedInBodacc[0]]);
    const order = (await source().listedByTrust(NOW)).map((entry) => entry.abId);
    expect(order).toContain(open[0]);
    expect(order).not.toContain(closedInSirene[0]);
    expect(order).not.toContain(closedInBodacc[0]);
    expect((await source().registrySnapshot(NOW)).merchants.has(closedInBodacc[0])).toBe(false);
  });

  it("is no hit of the embedded index built from the store", async () => {
    const index = createEmbeddedSearchIndex(sqlite, { now });
    await index.rebuild();
    expect(await hitIds(index, open[2])).toContain(open[0]);
    expect(await hitIds(index, closedInSirene[2])).not.toContain(closedInSirene[0]);
    expect(await hitIds(index, closedInBodacc[2])).not.toContain(closedInBodacc[0]);
  });

  it.each([
    [
      "SQLite",
      () =>
        createMeilisearchSearchIndex(createSearchSource(sqlite), {
          url: meilisearch.url,
          indexUid: "closed_sqlite",
          now,
        }),
      () => createSearchFeed(sqlite),
    ],
    [
      "PostgreSQL",
      () =>
        createMeilisearchSearchIndex(createPostgresSearchSource(pool), {
          url: meilisearch.url,
          indexUid: "closed_postgres",
          now,
        }),
      () => createPostgresSearchFeed(pool),
    ],
  ] as const)("is no hit of Meilisearch fed from %s", async (_engine, engine, feed) => {
    const index = engine();
    expect((await createSearchFollower({ engine: index, feed: feed() }).syncOnce()).state).toBe("ready");
    expect(await hitIds(index, open[2])).toContain(open[0]);
    expect(await hitIds(index, closedInSirene[2])).not.toContain(closedInSirene[0]);
    expect(await hitIds(index, closedInBodacc[2])).not.toContain(closedInBodacc[0]);
  });
});
