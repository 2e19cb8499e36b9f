/**
 * What follows the registry's writes, on both engines: the store revision and the merchants'
 * touches move with each write (the triggers), the search feed lists the touched merchants in
 * order, the change feed pages in seq order, and a kept search card is read back only while its
 * merchant was not touched since it was built and it is still valid.
 */
import { describe, expect, it } from "vitest";
import type { KeptCard } from "../../src/domain/registry/search-cards.ts";
import { createChangeFeedRepository } from "../../src/store/change-feed-repository.ts";
import {
  createPostgresChangeFeed,
  createPostgresSearchCardStore,
  createPostgresSearchFeed,
} from "../../src/store/postgres/registry-feeds.ts";
import { createSearchCardStore } from "../../src/store/search-card-store.ts";
import { createSearchFeed } from "../../src/store/search-feed.ts";
import { insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

function feedsOf(store: OpenedStore) {
  if (store.sqlite) {
    return {
      search: createSearchFeed(store.sqlite),
      changes: createChangeFeedRepository(store.sqlite),
      cards: createSearchCardStore(store.sqlite),
    };
  }
  if (!store.postgres) throw new Error("no store");
  const { pool } = store.postgres;
  return {
    search: createPostgresSearchFeed(pool),
    changes: createPostgresChangeFeed(pool),
    cards: createPostgresSearchCardStore(pool),
  };
}

const card = (validUntil: string | null): KeptCard =>
  ({ status: "ACTIVE", sector: "bakery", merchant: {}, products: [], state: {}, validUntil }) as unknown as KeptCard;

for (const engine of storeEngines()) {
  describe(`the registry's feeds on ${engine.name}`, () => {
    it("moves the revision and the touches with each write; the search feed lists them in order", async () => {
      const store = await engine.open();
      const { search } = feedsOf(store);
      const start = await search.revision();
      await insertMerchantRow(store, "ab_feed0001");
      await insertMerchantRow(store, "ab_feed0002");
      await store.run("UPDATE merchants SET city = 'Lyon' WHERE ab_id = 'ab_feed0001'");
      expect(await search.revision()).toBe(start + 3);
      expect(await search.touchedAfter(start, 10)).toEqual([
        { abId: "ab_feed0002", touch: start + 2 },
        { abId: "ab_feed0001", touch: start + 3 },
      ]);
      expect(await search.countTouchedAfter(start, 1)).toBe(1);
      expect(await search.touchedAfter(start + 3, 10)).toEqual([]);
    });

    it("pages the change feed in seq order", async () => {
      const store = await engine.open();
      for (const [abId, change] of [
        ["ab_feed0001", "created"],
        ["ab_feed0002", "created"],
        ["ab_feed0001", "updated"],
      ]) {
        await store.run(
          "INSERT INTO merchant_changes (ab_id, revision, change, changed_at) VALUES ($1, 1, $2, '2026-11-26T10:00:00.000Z')",
          [abId, change],
        );
      }
      const { changes } = feedsOf(store);
      const first = await changes.after(0, 2);
      expect(first.map((row) => [row.abId, row.change])).toEqual([
        ["ab_feed0001", "created"],
        ["ab_feed0002", "created"],
      ]);
      const rest = await changes.after(first[1]?.seq ?? 0, 10);
      expect(rest.map((row) => [row.abId, row.change, row.changedAt])).toEqual([
        ["ab_feed0001", "updated", "2026-11-26T10:00:00.000Z"],
      ]);
    });

    it("reads a kept card back only while its merchant is untouched since and it is still valid", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_feed0001");
      await insertMerchantRow(store, "ab_feed0002");
      const { cards, search } = feedsOf(store);
      const built = await search.revision();
      await cards.write(
        new Map([
          ["ab_feed0001", card("2026-12-01T00:00:00.000Z")],
          ["ab_feed0002", card(null)],
        ]),
        "v1",
        built,
      );
      const read = async (now: string) => [...(await cards.read(["ab_feed0001", "ab_feed0002"], "v1", now)).keys()];
      expect(await read("2026-11-26T10:00:00.000Z")).toEqual(["ab_feed0001", "ab_feed0002"]);
      expect(await read("2026-12-02T00:00:00.000Z")).toEqual(["ab_feed0002"]);
      expect(await cards.expired("v1", "2026-12-02T00:00:00.000Z", 10)).toEqual(["ab_feed0001"]);
      await store.run("UPDATE merchants SET city = 'Lyon' WHERE ab_id = 'ab_feed0002'");
      expect(await read("2026-11-26T10:00:00.000Z")).toEqual(["ab_feed0001"]);
      expect(await cards.read([], "v1", "2026-11-26T10:00:00.000Z")).toEqual(new Map());
      expect(await cards.merchantIdsAfter(null, 1)).toEqual(["ab_feed0001"]);
      expect(await cards.merchantIdsAfter("ab_feed0001", 5)).toEqual(["ab_feed0002"]);

      expect(await cards.readCursor("v1")).toBeNull();
      await cards.writeCursor("v1", 7);
      await cards.writeCursor("v2", 9);
      await cards.dropOtherFormats("v2");
      expect([await cards.readCursor("v1"), await cards.readCursor("v2")]).toEqual([null, 9]);
      expect(await read("2026-11-26T10:00:00.000Z")).toEqual([]);
    });
  });
}
