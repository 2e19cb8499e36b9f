import { describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { compareLoaded, compareMerchants } from "../../src/domain/compare/compare-merchants.ts";
import { haversineKm } from "../../src/domain/geo.ts";
import type { MerchantProfile, Signal } from "../../src/domain/merchant.ts";
import type { LoadedMerchant } from "../../src/domain/registry/resolve-merchant.ts";
import { ServiceError } from "../../src/errors/service-error.ts";
import type { MerchantRepository } from "../../src/store/merchant-repository.ts";

const BASE = "https://abeille.example";
const NOW = new Date("2026-05-10T09:00:00.000Z");

function signal(key: string, overrides: Partial<Signal> = {}): Signal {
  const source = overrides.source ?? "official_api";
  return {
    key,
    status: "verified",
    proofStatus:
      source === "official_api"
        ? "official_source_verified"
        : source === "platform_observed"
          ? "machine_consistent"
          : "merchant_declared",
    source,
    sourceUrl: null,
    value: true,
    verifiedAt: "2026-03-01T08:00:00.000Z",
    recordedAt: "2026-03-01T08:00:00.000Z",
    expiresAt: null,
    ...overrides,
  };
}

function profile(
  abId: string,
  options: { lat: number | null; lng: number | null; signals: Signal[]; products: number; rating: number | null },
): MerchantProfile {
  return {
    merchant: {
      abId,
      siret: "73282932000074",
      legalName: `LEGAL ${abId}`,
      businessName: `Merchant ${abId}`,
      slug: abId,
      nafCode: "10.71C",
      nafCode2025: null,
      sector: "alimentation",
      status: "ACTIVE",
      rcs: null,
      vatIntracom: null,
      street: "1 rue de la Paix",
      postalCode: "75002",
      city: "Paris",
      phone: null,
      email: "contact@example.fr",
      website: null,
      description: "Boulangerie.",
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      brandUpdatedAt: null,
      hours: null,
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones: [],
      areasDeclaredAt: null,
      deliveryEnabled: false,
      deliveryRadiusKm: null,
      languages: ["fr"],
      foundedOn: "2010-01-01",
      domainAgeYears: null,
      listingRating: options.rating,
      listingReviewCount: options.rating === null ? null : 10,
      listingPhotosCount: 0,
      terrainPhotos: [],
      sameAs: [],
      paymentSetup: false,
      closure: null,
      createdAt: "2025-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    },
    territorialProof:
      options.lat === null || options.lng === null
        ? null
        : {
            latitude: options.lat,
            longitude: options.lng,
            inseeCode: null,
            postalCode: null,
            cityNormalized: null,
            geocodingSource: null,
            geocodingScore: null,
            verified: true,
            verifiedAt: null,
            population: null,
            departmentCode: null,
            regionCode: null,
            epciCode: null,
          },
    products: Array.from({ length: options.products }, (_, index) => ({
      productId: `00000000-0000-4000-8000-00000000000${index}`,
      brickId: `10000000-0000-4000-8000-00000000000${index}`,
      abId,
      slug: `p${index}`,
      brickType: "product",
      name: `Pain ${index}`,
      description: "Un pain.",
      priceCents: 250,
      currency: "EUR",
      pricingModel: "fixed",
      inventoryStatus: "in_stock",
      imageUrl: null,
      externalUrl: null,
      tags: ["pain"],
      isLocked: false,
      position: index,
      updatedAt: "2026-01-01T00:00:00.000Z",
    })),
    signals: options.signals,
    clusters: [],
  };
}

function load(item: MerchantProfile): LoadedMerchant {
  return {
    profile: item,
    assessment: assessMerchant(item.merchant, item.signals, { orderRailEnabled: false, now: NOW }),
  };
}

const strong = profile("ab_strong01", {
  lat: 48.8698,
  lng: 2.3311,
  rating: 4.2,
  products: 2,
  signals: [
    signal("siret_verified"),
    signal("bodacc_clean"),
    signal("company_age_years", { value: 16 }),
    signal("listing_verified", { source: "platform_observed" }),
    signal("contact_email_verified", { source: "platform_observed" }),
  ],
});
const near = profile("ab_near0001", {
  lat: 48.8567,
  lng: 2.3509,
  rating: 4.8,
  products: 4,
  signals: [
    signal("siret_verified"),
    signal("website_present", { source: "platform_observed" }),
    signal("rcp_declared", { source: "merchant_declared" }),
  ],
});
const unplaced = profile("ab_nogeo001", {
  lat: null,
  lng: null,
  rating: null,
  products: 0,
  signals: [signal("siret_verified")],
});

describe("compareLoaded", () => {
  const comparison = compareLoaded([load(strong), load(near), load(unplaced)], {
    baseUrl: BASE,
    orderRailEnabled: false,
    now: NOW,
    point: { lat: 48.8566, lng: 2.3522 },
  });

  it("keeps the input order and reports each merchant's trust, evidence, distance and products", () => {
    expect(comparison.merchants.map((item) => item.ab_id)).toEqual(["ab_strong01", "ab_near0001", "ab_nogeo001"]);
    const [first] = comparison.merchants;
    expect(first?.trust.score).toBe(first?.trust.breakdown.total);
    expect(first?.evidence.official_source_verified).toBe(3);
    expect(first?.evidence.machine_consistent).toBe(2);
    expect(first?.evidence.verified_signals).toBe(5);
    expect(first?.evidence.top_credentials[0]?.proof_status).toBe("official_source_verified");
    expect(first?.products).toEqual({
      count: 2,
      items: [
        { id: "00000000-0000-4000-8000-000000000000", name: "Pain 0", price: "2.50 EUR" },
        { id: "00000000-0000-4000-8000-000000000001", name: "Pain 1", price: "2.50 EUR" },
      ],
    });
  });

  it("counts a merchant declaration separately from verified proof", () => {
    expect(comparison.merchants[1]?.evidence).toMatchObject({
      official_source_verified: 1,
      machine_consistent: 1,
      merchant_declared: 1,
    });
  });

  it("measures distances from the point, null without coordinates", () => {
    expect(comparison.merchants[1]?.distance_km).toBeLessThan(0.2);
    expect(comparison.merchants[0]?.distance_km).toBeGreaterThan(1.5);
    expect(comparison.merchants[2]?.distance_km).toBeNull();
  });

  it("names the leaders of each criterion", () => {
    expect(comparison.leaders.trust_score).toEqual(["ab_strong01"]);
    expect(comparison.leaders.distance_km).toEqual(["ab_near0001"]);
    expect(comparison.leaders.rating).toEqual(["ab_near0001"]);
    expect(comparison.leaders.products).toEqual(["ab_near0001"]);
    expect(comparison.leaders.verified_evidence).toEqual(["ab_strong01"]);
  });

  it("reports ties and criteria nobody has a value for", () => {
    const twins = compareLoaded(
      [load(unplaced), load({ ...unplaced, merchant: { ...unplaced.merchant, abId: "ab_nogeo002" } })],
      {
        baseUrl: BASE,
        orderRailEnabled: false,
        now: NOW,
        point: null,
      },
    );
    expect(twins.leaders.trust_score).toEqual(["ab_nogeo001", "ab_nogeo002"]);
    expect(twins.leaders.distance_km).toEqual([]);
    expect(twins.leaders.rating).toEqual([]);
    expect(twins.point).toBeNull();
  });
});

describe("compareMerchants", () => {
  const repository = (profiles: MerchantProfile[]) =>
    ({
      findProfile: async (abId: string) => profiles.find((item) => item.merchant.abId === abId) ?? null,
    }) as unknown as MerchantRepository;

  it("names every missing merchant in one MERCHANT_NOT_FOUND", async () => {
    const deps = { merchants: repository([strong]), baseUrl: BASE, orderRailEnabled: false, now: () => NOW };
    try {
      await compareMerchants(deps, { abIds: ["ab_strong01", "ab_missing1", "ab_missing2"] });
      expect.unreachable();
    } catch (failure) {
      expect(failure).toBeInstanceOf(ServiceError);
      expect((failure as ServiceError).code).toBe("MERCHANT_NOT_FOUND");
      expect((failure as ServiceError).message).toContain("ab_missing1, ab_missing2");
    }
  });

  it("treats an archived merchant as missing", async () => {
    const archived = { ...near, merchant: { ...near.merchant, status: "ARCHIVED" as const } };
    const deps = { merchants: repository([strong, archived]), baseUrl: BASE, orderRailEnabled: false, now: () => NOW };
    await expect(compareMerchants(deps, { abIds: ["ab_strong01", "ab_near0001"] })).rejects.toThrow(/ab_near0001/);
  });
});

describe("haversineKm", () => {
  it("measures Paris to Lyon", () => {
    expect(haversineKm({ lat: 48.8566, lng: 2.3522 }, { lat: 45.764, lng: 4.8357 })).toBeCloseTo(392, -1);
  });
});
