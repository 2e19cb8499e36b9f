/**
 * Search result cards kept in the store (src/domain/registry/keep-search-cards.ts), on a real
 * database seeded with demo merchants: the keeper builds every merchant's card, a search reads
 * them instead of the merchants' tables, and a card stops being served as soon as it could be
 * wrong (its merchant written since, its trust expired, another order-rail setting), until the
 * keeper has built it again.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createSearchCardKeeper } from "../../src/domain/registry/keep-search-cards.ts";
import type { MerchantRepository } from "../../src/domain/registry/merchant-store.ts";
import {
  buildKeptCards,
  cardFormat,
  createSearchCardCache,
  loadSearchCards,
} from "../../src/domain/registry/search-cards.ts";
import { searchRegistry } from "../../src/domain/registry/search-registry.ts";
import { createSearchFollower } from "../../src/search/follower.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { searchDeps } from "../../src/wiring.ts";

const root = path.resolve(import.meta.dirname, "../..");
const SEEDED_AT = new Date("2026-11-01T10:00:00.000Z");
const COUNT = 60;

let dataDir: string;
let app: App;
let clock: Date;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-kept-cards-"));
  clock = SEEDED_AT;
  app = createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "warn" }), { now: () => clock });
  await seedDemoRegistry(app.db, { count: COUNT, seed: 20261126, now: SEEDED_AT, dataDir, searchIndex: null });
  // The index's first build, which a serving app's follower makes in the background: searched
  // before it ends, the answer would be the part built so far (index_building).
  expect((await app.searchEngine.follower.syncOnce()).state).toBe("ready");
});

afterAll(() => {
  app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  clock = SEEDED_AT;
  const status = await app.cardKeeper.syncOnce();
  expect(status.state).toBe("ready");
});

const sqlite = () => app.db.$client;
const format = () => cardFormat(false, app.cardCode());
const allIds = () => sqlite().prepare("SELECT ab_id FROM merchants ORDER BY ab_id").pluck().all() as string[];
const keptRows = () => sqlite().prepare("SELECT count(*) FROM kept_cards").pluck().get() as number;
/** A card as JSON would carry it (kept cards went through JSON). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** Searches with these deps' merchants reads counted (and refused when `refuse`). */
function countingDeps(refuse: boolean) {
  const reads = { merchants: 0 };
  const merchants: MerchantRepository = {
    ...app.merchants,
    findMerchants(abIds) {
      reads.merchants += 1;
      if (refuse) throw new Error("the merchants table was read");
      return app.merchants.findMerchants(abIds);
    },
  };
  return { deps: { ...searchDeps(app), merchants, cards: createSearchCardCache() }, reads };
}

describe("kept search cards", () => {
  it("are built for every merchant by a full keep, equal to the cards built when shown", async () => {
    const ids = allIds();
    expect(ids).toHaveLength(COUNT);
    expect(keptRows()).toBe(COUNT);
    const kept = await app.keptCards.read(ids, format(), clock.toISOString());
    expect(kept.size).toBe(COUNT);
    const built = await buildKeptCards({ merchants: app.merchants, orderRailEnabled: false }, ids, clock);
    for (const abId of ids) expect(kept.get(abId)).toEqual(plain(built.get(abId)));
  });

  it("answer a search without reading the merchants, with the results a search building its cards gives", async () => {
    const query = { q: "boulangerie" };
    const fromKept = countingDeps(true);
    const kept = await searchRegistry(fromKept.deps, query);
    expect(kept.results).toHaveLength(kept.count);
    expect(kept.count).toBe(3);
    expect(fromKept.reads.merchants).toBe(0);

    const built = await searchRegistry({ ...countingDeps(false).deps, keptCards: null }, query);
    expect(kept).toEqual(built);
  });

  it("are not served for a merchant written since, which is shown as written until the keeper builds its card again", async () => {
    const [abId] = allIds();
    if (!abId) throw new Error("no merchant seeded");
    sqlite().prepare("UPDATE merchants SET business_name = 'Maison Renommée' WHERE ab_id = ?").run(abId);
    expect((await app.keptCards.read([abId], format(), clock.toISOString())).size).toBe(0);
    const { deps, reads } = countingDeps(false);
    expect((await loadSearchCards(deps, [abId])).get(abId)?.merchant.name).toBe("Maison Renommée");
    expect(reads.merchants).toBe(1);

    await app.cardKeeper.syncOnce();
    expect((await app.keptCards.read([abId], format(), clock.toISOString())).get(abId)?.merchant.name).toBe(
      "Maison Renommée",
    );
  });

  it("are not served past their validity (a counted signal's expiry, a company's anniversary), and the keeper renews them with the trust of that moment", async () => {
    const row = sqlite()
      .prepare(
        "SELECT ab_id, valid_until FROM kept_cards WHERE valid_until IS NOT NULL ORDER BY valid_until, ab_id LIMIT 1",
      )
      .get() as { ab_id: string; valid_until: string } | undefined;
    if (!row) throw new Error("no demo merchant has a signal that expires");
    const before = (await app.keptCards.read([row.ab_id], format(), clock.toISOString())).get(row.ab_id);
    clock = new Date(Date.parse(row.valid_until) + 1_000);
    expect((await app.keptCards.read([row.ab_id], format(), clock.toISOString())).size).toBe(0);
    await app.cardKeeper.syncOnce();
    const renewed = (await app.keptCards.read([row.ab_id], format(), clock.toISOString())).get(row.ab_id);
    const expected = await buildKeptCards({ merchants: app.merchants, orderRailEnabled: false }, [row.ab_id], clock);
    expect(renewed).toEqual(plain(expected.get(row.ab_id)));
    // The card ended with a signal's expiry or a calendar step (a company's anniversary): built anew at that moment.
    expect(renewed?.validUntil).not.toBe(before?.validUntil);
    expect(
      sqlite().prepare("SELECT count(*) FROM kept_cards WHERE valid_until <= ?").pluck().get(clock.toISOString()),
    ).toBe(0);
  });

  it("of another order-rail setting or another version of the code are not served; a keeper for those builds its own and drops them", async () => {
    const ids = allIds();
    const keeperOf = (orderRailEnabled: boolean, code: string) =>
      createSearchFollower({
        engine: createSearchCardKeeper({
          merchants: app.merchants,
          keptCards: app.keptCards,
          orderRailEnabled,
          cardCode: () => code,
          now: () => clock,
        }),
        feed: createSearchFeed(app.db),
      });
    for (const [orderRail, code] of [
      [true, app.cardCode()],
      [false, "the-next-version"],
    ] as const) {
      const other = cardFormat(orderRail, code);
      expect(other).not.toBe(format());
      expect((await app.keptCards.read(ids, other, clock.toISOString())).size).toBe(0);
      expect((await keeperOf(orderRail, code).syncOnce()).state).toBe("ready");
      expect((await app.keptCards.read(ids, other, clock.toISOString())).size).toBe(COUNT);
      expect((await app.keptCards.read(ids, format(), clock.toISOString())).size).toBe(0);
      expect(await app.keptCards.readCursor(other)).toBe(await app.keptCards.revision());
      // This app's keeper lost its cards and its cursor with them: it builds them again in full.
      expect(await app.keptCards.readCursor(format())).toBeNull();
      await app.cardKeeper.syncOnce();
      expect((await app.keptCards.read(ids, format(), clock.toISOString())).size).toBe(COUNT);
      expect((await app.keptCards.read(ids, other, clock.toISOString())).size).toBe(0);
    }
  });

  it("are built in full by `npm run search -- cards`, with the key the server uses", async () => {
    sqlite().prepare("DELETE FROM kept_cards").run();
    sqlite().prepare("DELETE FROM kept_card_cursors").run();
    const output = execFileSync(process.execPath, jobArgv(path.join(root, "jobs/search.ts"), "cards"), {
      cwd: root,
      // Vite sets BASE_URL to "/" in the test process: the job gets a URL of its own.
      env: { ...process.env, DATA_DIR: dataDir, BASE_URL: "http://localhost:4321", LOG_LEVEL: "warn" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).toMatch(/^The search cards are in step with the store at revision \d+ \(\d+\.\d s\)\.\n$/);
    expect(await app.keptCards.readCursor(format())).toBe(await app.keptCards.revision());
    expect((await app.keptCards.read(allIds(), format(), new Date().toISOString())).size).toBe(COUNT);
  });

  it("go with their merchant when it is deleted", () => {
    const abId = sqlite()
      .prepare("SELECT ab_id FROM merchants WHERE ab_id NOT IN (SELECT ab_id FROM leads) ORDER BY ab_id DESC LIMIT 1")
      .pluck()
      .get() as string;
    sqlite().prepare("DELETE FROM merchants WHERE ab_id = ?").run(abId);
    expect(sqlite().prepare("SELECT count(*) FROM kept_cards WHERE ab_id = ?").pluck().get(abId)).toBe(0);
    expect(keptRows()).toBe(COUNT - 1);
  });
});
