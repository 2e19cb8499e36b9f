import { describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import type { MerchantProfile } from "../../src/domain/merchant.ts";
import { createSearchCardCache, type SearchCard } from "../../src/domain/registry/search-cards.ts";
import { type SearchDeps, searchRegistry } from "../../src/domain/registry/search-registry.ts";
import type { SearchIndex } from "../../src/search/search-index.ts";
import type { MerchantRepository } from "../../src/store/merchant-repository.ts";
import { AB_ID, BASE, tourismProfile } from "./publish-fixtures.ts";

const card = (name: string, validUntil: string | null = null): SearchCard =>
  ({
    status: "ACTIVE",
    merchant: { ab_id: "ab_aaaaaaaa", name },
    products: [],
    actions: [],
    state: {},
    validUntil,
  }) as unknown as SearchCard;

describe("search card cache", () => {
  it("returns a card written at the same store revision", () => {
    const cache = createSearchCardCache(10);
    cache.write("ab_aaaaaaaa", 3, card("Boulangerie Martin"));
    expect(cache.read("ab_aaaaaaaa", 3, "2026-05-10T09:00:00.000Z")?.merchant.name).toBe("Boulangerie Martin");
  });

  it("forgets every card once the store revision moves", () => {
    const cache = createSearchCardCache(10);
    cache.write("ab_aaaaaaaa", 3, card("Boulangerie Martin"));
    cache.write("ab_bbbbbbbb", 3, card("Fromagerie Petit"));
    expect(cache.read("ab_aaaaaaaa", 4, "2026-05-10T09:00:00.000Z")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("does not serve a card past its validity (a counted signal expired)", () => {
    const cache = createSearchCardCache(10);
    cache.write("ab_aaaaaaaa", 1, card("Boulangerie Martin", "2026-06-01T00:00:00.000Z"));
    expect(cache.read("ab_aaaaaaaa", 1, "2026-05-31T23:59:59.000Z")).toBeDefined();
    expect(cache.read("ab_aaaaaaaa", 1, "2026-06-01T00:00:00.000Z")).toBeUndefined();
  });

  it("builds a missing value once and serves it until the revision moves; a build that throws keeps nothing", () => {
    const cache = createSearchCardCache(10);
    let builds = 0;
    const build = () => {
      builds += 1;
      return card(`Boulangerie ${builds}`);
    };
    expect(cache.readOrBuild("ab_aaaaaaaa", 1, undefined, build).merchant.name).toBe("Boulangerie 1");
    expect(cache.readOrBuild("ab_aaaaaaaa", 1, undefined, build).merchant.name).toBe("Boulangerie 1");
    expect(cache.readOrBuild("ab_aaaaaaaa", 2, undefined, build).merchant.name).toBe("Boulangerie 2");
    expect(() =>
      cache.readOrBuild("ab_bbbbbbbb", 2, undefined, () => {
        throw new Error("no such merchant");
      }),
    ).toThrow("no such merchant");
    expect(cache.read("ab_bbbbbbbb", 2)).toBeUndefined();
    expect(builds).toBe(2);
  });

  it("evicts the least recently used card beyond its size", () => {
    const cache = createSearchCardCache(2);
    cache.write("ab_aaaaaaaa", 1, card("A"));
    cache.write("ab_bbbbbbbb", 1, card("B"));
    cache.read("ab_aaaaaaaa", 1, "2026-05-10T09:00:00.000Z"); // A is now the most recent
    cache.write("ab_cccccccc", 1, card("C"));
    expect(cache.size).toBe(2);
    expect(cache.read("ab_bbbbbbbb", 1, "2026-05-10T09:00:00.000Z")).toBeUndefined();
    expect(cache.read("ab_aaaaaaaa", 1, "2026-05-10T09:00:00.000Z")).toBeDefined();
  });

  it("loads a missing card once through an asynchronous read, and serves it after", async () => {
    const cache = createSearchCardCache(10);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return card("A");
    };
    expect((await cache.readOrLoad("ab_aaaaaaaa", 1, undefined, load)).merchant.name).toBe("A");
    expect((await cache.readOrLoad("ab_aaaaaaaa", 1, undefined, load)).merchant.name).toBe("A");
    expect(loads).toBe(1);
    const many = await cache.readThroughLoading(["ab_aaaaaaaa", "ab_bbbbbbbb"], 1, undefined, async (missing) => {
      expect(missing).toEqual(["ab_bbbbbbbb"]);
      return new Map([["ab_bbbbbbbb", card("B")]]);
    });
    expect([...many.keys()].sort()).toEqual(["ab_aaaaaaaa", "ab_bbbbbbbb"]);
  });

  it("does not keep a card loaded at a revision older than the one it follows (a write landed during the read)", async () => {
    const cache = createSearchCardCache(10);
    let finishSlowLoad: (value: SearchCard) => void = () => {};
    const slow = cache.readOrLoad(
      "ab_aaaaaaaa",
      1,
      undefined,
      () => new Promise((resolve) => (finishSlowLoad = resolve)),
    );
    // Meanwhile another request reads at the next revision and keeps its card.
    await cache.readOrLoad("ab_bbbbbbbb", 2, undefined, async () => card("B"));
    finishSlowLoad(card("A, as of revision 1"));
    expect((await slow).merchant.name).toBe("A, as of revision 1");
    expect(cache.read("ab_bbbbbbbb", 2)?.merchant.name).toBe("B");
    expect(cache.read("ab_aaaaaaaa", 2)).toBeUndefined();
  });
});

/** One merchant behind a fake index and repository whose revision and reads the test controls. */
function searchWorld(profile: MerchantProfile) {
  const world = { revision: 1, reads: 0, now: new Date("2026-05-10T09:00:00.000Z"), profile };
  const verified = () => world.profile.signals.filter((signal) => signal.status === "verified");
  const merchants = {
    revision: async () => world.revision,
    findMerchants: async (abIds: string[]) => {
      world.reads += 1;
      return abIds.includes(AB_ID) ? [world.profile.merchant] : [];
    },
    findTrustSignals: async (abIds: string[]) => new Map(abIds.map((abId) => [abId, verified()])),
    findProducts: async () => world.profile.products,
  } as unknown as MerchantRepository;
  const search: SearchIndex = {
    name: "fake",
    search: () => ({
      hits: [{ abId: AB_ID, score: 1, distanceKm: null, matchedProductIds: [], matched: ["name"] }],
      estimatedTotal: 1,
    }),
    refresh: () => {},
  } as unknown as SearchIndex;
  const deps: SearchDeps = {
    search,
    places: { find: () => ({ place: null, reason: "no places in this test", suggestions: [] }) },
    merchants,
    cards: createSearchCardCache(),
    keptCards: null,
    cardCode: () => "test",
    baseUrl: BASE,
    orderRailEnabled: false,
    now: () => world.now,
  };
  const trustNow = () =>
    assessMerchant(world.profile.merchant, verified(), { orderRailEnabled: false, now: world.now }).trust.breakdown
      .total;
  const firstResult = async () => (await searchRegistry(deps, { q: "gite" } as never)).results[0];
  return { world, trustNow, firstResult };
}

describe("search results built from cached cards", () => {
  it("reads the store once for repeated searches at one revision", async () => {
    const { world, firstResult } = searchWorld(tourismProfile());
    await firstResult();
    await firstResult();
    await firstResult();
    expect(world.reads).toBe(1);
  });

  it("shows the merchant as written after the store revision moves", async () => {
    const { world, firstResult } = searchWorld(tourismProfile());
    expect((await firstResult())?.merchant.name).toBe(world.profile.merchant.businessName);
    world.profile = {
      ...world.profile,
      merchant: { ...world.profile.merchant, businessName: "Gîte Renommé" },
    };
    world.revision += 1;
    expect((await firstResult())?.merchant.name).toBe("Gîte Renommé");
  });

  it("drops a signal's points from trust_score once the signal expires, without any write", async () => {
    const { world, trustNow, firstResult } = searchWorld(tourismProfile());
    const before = (await firstResult())?.merchant.trust_score;
    expect(before).toBe(trustNow());
    // territorial_address_verified expires on 2026-06-01 in the fixture.
    world.now = new Date("2026-06-02T00:00:00.000Z");
    const after = (await firstResult())?.merchant.trust_score;
    expect(after).toBe(trustNow());
    expect(after).toBeLessThan(before ?? 0);
    expect(world.reads).toBe(2);
  });
});
