/**
 * Search follows trust that moves by itself, on every engine: two bakeries as relevant as each
 * other, the more trusted one's identity check (and the company age read with it) ending at an
 * instant. Before, it ranks first; at that instant no write happens, yet each hit's trust_level
 * already reads as resolve does (the result cards are valid until the check's end); once the sweep
 * of trust changes has recorded the merchant in the change feed and the engine's follower has
 * stepped, it ranks below the other and reads as resolve says, on:
 * - the embedded index in the store's SQLite file;
 * - the embedded index in an instance's own file, following PostgreSQL;
 * - Meilisearch, fed from PostgreSQL.
 * Each through the application as a server builds it (createApp), its clock the test's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { resolveMerchant } from "../../src/domain/registry/resolve-merchant.ts";
import { searchRegistry } from "../../src/domain/registry/search-registry.ts";
import type { SearchAnswer } from "../../src/schemas/registry.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { resolveDeps, searchDeps } from "../../src/wiring.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { type FixtureMerchant, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const EXPIRING = "ab_bake0001";
const STEADY = "ab_bake0002";
const CHECK_ENDS = "2026-06-01T10:00:00.000Z";
const BEFORE = new Date("2026-06-01T09:00:00.000Z");
const AFTER = new Date("2026-06-01T10:01:00.000Z");

/** The contract's twin bakeries (same words, same place): trust alone orders them. */
function twins(): FixtureMerchant[] {
  const [trusted, lessTrusted] = fixtureMerchants;
  if (trusted?.abId !== EXPIRING || lessTrusted?.abId !== STEADY) throw new Error("the fixture's bakeries moved");
  return [
    // Identity and a company of 25 years (8 + 12) and products (3): certified, until the check ends.
    { ...trusted, signals: { siret_verified: true, company_age_years: 25, has_products: true } },
    // Identity alone (8): verified, with no end.
    { ...lessTrusted, signals: { siret_verified: true } },
  ];
}

/** A store with the twins, the expiring bakery's official checks ending at CHECK_ENDS. */
function writeTwins(db: Db): void {
  insertFixtureMerchants(db, twins());
  db.$client
    .prepare("UPDATE signals SET expires_at = ? WHERE ab_id = ? AND key IN ('siret_verified', 'company_age_years')")
    .run(CHECK_ENDS, EXPIRING);
}

const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-trust-expiry-"));
let postgres: TestPostgres;
let meilisearch: TestMeilisearch;
let clock = BEFORE;
const now = () => clock;
const apps: App[] = [];

beforeAll(async () => {
  [postgres, meilisearch] = await Promise.all([startTestPostgres(), startTestMeilisearch()]);
}, 120_000);

afterAll(async () => {
  for (const app of apps) {
    await Promise.all([app.searchEngine.follower.stop(), app.cardKeeper.stop(), app.trustSweeper.stop()]);
    if (app.store.engine === "postgres") await app.store.close();
    else app.close();
  }
  await Promise.all([postgres?.stop(), meilisearch?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** A PostgreSQL database holding the twins (written on SQLite, copied over as `npm run db -- copy` does). */
async function postgresWithTwins(name: string): Promise<string> {
  const db = openDatabase(path.join(scratch, `${name}.db`));
  writeTwins(db);
  const url = await postgres.createDatabase();
  const pool = openPostgresPool({ url, poolMax: 2, poolTimeoutMs: 10_000 });
  try {
    await copySqliteToPostgres(db.$client, pool, { batchRows: 500 });
  } finally {
    await pool.end();
    db.$client.close();
  }
  return url;
}

function appOn(name: string, env: Record<string, string>): App {
  const app = createApp(loadConfig({ DATA_DIR: path.join(scratch, name), LOG_LEVEL: "warn", ...env }), { now });
  apps.push(app);
  return app;
}

const engines: { name: string; app: () => Promise<App> }[] = [
  {
    name: "the embedded index in the store's SQLite file",
    async app() {
      const app = appOn("sqlite", {});
      writeTwins(app.db);
      return app;
    },
  },
  {
    name: "the embedded index in an instance's own file, following PostgreSQL",
    app: async () => appOn("postgres", { DATABASE_URL: await postgresWithTwins("postgres") }),
  },
  {
    name: "Meilisearch fed from PostgreSQL",
    app: async () =>
      appOn("meilisearch", {
        DATABASE_URL: await postgresWithTwins("meilisearch"),
        MEILISEARCH_URL: meilisearch.url,
        MEILISEARCH_INDEX: "trust_expiry",
        MEILISEARCH_TIMEOUT_MS: "10000",
        SEARCH_FALLBACK: "none",
      }),
  },
];

/** What the background work does: the sweep, then the engine's follower and the card keeper. */
async function backgroundStep(app: App): Promise<number> {
  const { touched } = await app.trustSweeper.sweepOnce();
  expect((await app.searchEngine.follower.syncOnce()).state).toBe("ready");
  expect((await app.cardKeeper.syncOnce()).state).toBe("ready");
  return touched;
}

/** Each hit: its ab_id, trust_level and trust_score, in the answer's order. */
const hitsOf = (answer: SearchAnswer) =>
  answer.results.map((result) => [result.merchant.ab_id, result.merchant.trust_level, result.merchant.trust_score]);

/** What resolve says of the merchant at the instant, in the same terms. */
async function resolved(app: App, abId: string) {
  const { merchant } = (await resolveMerchant(resolveDeps(app), abId)).resolved;
  return [abId, merchant.trust.status, merchant.trust.score];
}

for (const engine of engines) {
  describe(`search on ${engine.name}`, () => {
    it("ranks and reads a merchant whose identity check ended as resolve does, once the sweep and the follower have stepped", async () => {
      clock = BEFORE;
      const app = await engine.app();
      expect(await backgroundStep(app)).toBe(0);
      const search = () => searchRegistry(searchDeps(app), { q: "boulangerie" });

      const before = await search();
      expect(hitsOf(before)).toEqual([
        [EXPIRING, "certified", 23],
        [STEADY, "verified", 8],
      ]);
      expect(hitsOf(before)).toEqual([await resolved(app, EXPIRING), await resolved(app, STEADY)]);

      // The check ends; nothing is written. Each hit's trust_level and trust_score come from its
      // result card, valid until that instant: already what resolve says.
      clock = AFTER;
      const expired = await resolved(app, EXPIRING);
      expect(expired).toEqual([EXPIRING, "declared", 3]);
      expect((await app.searchEngine.health()).lag).toMatchObject({ merchants: 0 });
      const between = await search();
      expect(hitsOf(between)).toContainEqual(expired);

      // The sweep records the merchant in the feed; the follower applies it with its trust of now.
      expect(await backgroundStep(app)).toBe(1);
      const after = await search();
      expect(hitsOf(after)).toEqual([
        [STEADY, "verified", 8],
        [EXPIRING, "declared", 3],
      ]);
      expect(hitsOf(after)).toEqual([await resolved(app, STEADY), expired]);
      const scores = after.results.map((result) => result.score);
      expect(scores[0]).toBeGreaterThan(scores[1] ?? 0);
    }, 120_000);
  });
}
