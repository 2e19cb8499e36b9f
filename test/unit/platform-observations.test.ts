/**
 * The platform-observations door (src/domain/merchants/record-platform-observation.ts, its bulk
 * import and src/schemas/platform-observation.ts): what the platform saw of a merchant is stored
 * with the source its catalog gives each signal, written once with its audit event and change-feed
 * row, refused line by line with each faulty field named, and the same file twice changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import { importObservations } from "../../src/domain/merchants/import-observations.ts";
import type { MerchantDecisionDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { recordPlatformObservation } from "../../src/domain/merchants/record-platform-observation.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import {
  createMerchantRegistryRepository,
  createMerchantRegistryView,
} from "../../src/store/merchant-registry-repository.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-observations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date("2026-11-20T09:00:00.000Z");
const SIRET = "12345678200010";
const declaration = {
  siret: SIRET,
  legal_name: "SARL Boulangerie Martin",
  business_name: "Boulangerie Martin",
  naf_code: "10.71C",
  address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
  founded_on: "2015-03-02",
  products: [
    {
      slug: "pain-de-campagne",
      name: "Pain de campagne",
      description: "Au levain.",
      brick_type: "product",
      pricing_model: "fixed",
      price_cents: 420,
    },
  ],
};
const observation = {
  siret: SIRET,
  observed_at: "2026-11-19T08:00:00Z",
  website: { domain_age_years: 7 },
  listing: { rating: 4.6, review_count: 212, photos_count: 18 },
  terrain_photos: ["https://photos.abeille.example/m/1.jpg"],
  same_as: ["https://www.facebook.com/boulangerie.martin"],
  payment: { ready: true, account_id: "acct_1Ab2Cd3Ef4Gh5Ij" },
  signals: [
    {
      key: "listing_rating",
      status: "verified",
      value: 4.6,
      source_url: "https://maps.example/boulangerie-martin",
      recorded_at: "2026-11-19T08:00:00Z",
      verified_at: "2026-11-19T08:00:00Z",
      expires_at: null,
    },
    { key: "rne_verified", status: "verified", value: true, recorded_at: "2026-11-18T08:00:00Z" },
  ],
  qa_clusters: [
    {
      label: "Pain de campagne : prix et délais",
      type: "custom",
      product_slug: "pain-de-campagne",
      updated_at: "2026-11-19T08:00:00Z",
      nodes: [
        {
          intent: "prix",
          question: "Combien coûte le pain de campagne ?",
          answer: "4,20 € la pièce.",
          answer_bluf: "4,20 €.",
          verification_level: "machine_checked",
          fact_level: "declared",
        },
      ],
    },
  ],
};

let db: Db;
let deps: MerchantDecisionDeps & { registry: ReturnType<typeof createMerchantRegistryView> };
let abId: string;
let runs = 0;
beforeEach(() => {
  db = openDatabase(path.join(dir, `abeille-${runs++}.db`));
  deps = { registry: createMerchantRegistryView(db), communes: createCommuneLookup(), now: () => NOW };
  abId = addMerchant(deps, declaration, "operator:test").abId;
});

function issuesOf(input: unknown): [string, string][] {
  try {
    recordPlatformObservation(deps, input, "import:test");
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return (error.details.issues ?? [{ path: "(none)", message: error.code }]).map((issue) => [
      issue.path,
      issue.message,
    ]);
  }
  return [];
}

describe("a platform observation", () => {
  it("stores what the platform saw, each signal with its catalog source, and the Q&A on the product", () => {
    expect(recordPlatformObservation(deps, observation, "import:test")).toEqual({
      abId,
      changed: [
        "domainAgeYears",
        "listingRating",
        "listingReviewCount",
        "listingPhotosCount",
        "terrainPhotos",
        "sameAs",
        "paymentSetup",
        "paymentAccountId",
        "signals",
        "qa_clusters",
      ],
      revision: 2,
    });
    const stored = deps.registry.find(abId);
    const m = stored?.merchant;
    expect([m?.domainAgeYears, m?.listingRating, m?.listingReviewCount, m?.listingPhotosCount]).toEqual([
      7, 4.6, 212, 18,
    ]);
    expect([m?.terrainPhotos, m?.sameAs, m?.paymentSetup, stored?.paymentAccountId]).toEqual([
      ["https://photos.abeille.example/m/1.jpg"],
      ["https://www.facebook.com/boulangerie.martin"],
      true,
      "acct_1Ab2Cd3Ef4Gh5Ij",
    ]);
    const signal = (key: string) => stored?.signals.find((candidate) => candidate.key === key);
    expect(signal("listing_rating")).toEqual({
      key: "listing_rating",
      status: "verified",
      proofStatus: "machine_consistent",
      source: "platform_observed",
      sourceUrl: "https://maps.example/boulangerie-martin",
      value: 4.6,
      verifiedAt: "2026-11-19T08:00:00.000Z",
      recordedAt: "2026-11-19T08:00:00.000Z",
      expiresAt: null,
    });
    expect([signal("rne_verified")?.source, signal("rne_verified")?.proofStatus]).toEqual([
      "official_api",
      "official_source_verified",
    ]);
    const product = stored?.products[0];
    expect(stored?.clusters.map((cluster) => [cluster.scope, cluster.brickId, cluster.nodes.length])).toEqual([
      ["brick", product?.brickId, 1],
    ]);
    const last = deps.registry.events(abId).at(-1);
    expect([last?.action, last?.actor, last?.revision, last?.reason]).toEqual([
      "observed",
      "import:test",
      2,
      "observation de la plateforme du 2026-11-19T08:00:00.000Z",
    ]);
    expect(
      db.$client
        .prepare("SELECT revision, change FROM merchant_changes WHERE ab_id = ? ORDER BY revision")
        .raw()
        .all(abId),
    ).toEqual([
      [1, "created"],
      [2, "updated"],
    ]);
  });

  it("changes nothing the second time it is recorded", () => {
    recordPlatformObservation(deps, observation, "import:test");
    expect(recordPlatformObservation(deps, observation, "import:test")).toEqual({ abId, changed: [], revision: 2 });
    expect(deps.registry.events(abId).length).toBe(2);
  });

  it("refuses what an official file proves, keys outside the catalog or the sector, and unknown products", () => {
    const signal = { status: "verified", value: true, recorded_at: "2026-11-19T08:00:00Z" };
    expect(
      issuesOf({
        ...observation,
        signals: [
          { ...signal, key: "siret_verified" },
          { ...signal, key: "bodacc_clean" },
          { ...signal, key: "made_up_signal" },
        ],
      }),
    ).toEqual([
      ["signals.0.key", "is proved by an official file (npm run import -- sirene | bodacc), not by an observation"],
      ["signals.1.key", "is proved by an official file (npm run import -- sirene | bodacc), not by an observation"],
      ["signals.2.key", "is not a signal of the catalog (src/domain/trust/signal-catalog.ts)"],
    ]);
    // ORIAS registration is for insurance brokers, not a bakery; the Q&A names a product it does not sell.
    expect(
      issuesOf({
        ...observation,
        signals: [{ ...signal, key: "orias_registered" }],
        qa_clusters: [{ ...observation.qa_clusters[0], product_slug: "croissant" }],
      }),
    ).toEqual([
      ["signals.0.key", "does not apply to the sector alimentation"],
      ["qa_clusters.0.product_slug", "is not a product of this merchant"],
    ]);
    expect(
      issuesOf({ ...observation, payment: { ready: true, account_id: null }, listing: { rating: 6, photos_count: 1 } }),
    ).toEqual([
      ["listing.rating", "Too big: expected number to be <=5"],
      ["listing.review_count", "Invalid input: expected number, received undefined"],
      ["payment", "a ready payment needs its account_id"],
    ]);
    expect(deps.registry.find(abId)?.revision).toBe(1);
  });

  it("takes a verified answer only with the official signal it rests on, one the merchant has; an edited one is declared", () => {
    const [cluster] = observation.qa_clusters;
    const answer = { ...cluster?.nodes[0], intent: "preuve", question: "Êtes-vous inscrits au RNE ?", answer: "Oui." };
    const withNodes = (...nodes: Record<string, unknown>[]) => ({
      ...observation,
      qa_clusters: [{ ...cluster, nodes }],
    });
    expect(
      issuesOf(
        withNodes(
          { ...answer, fact_level: "verified" },
          { ...answer, fact_level: "verified", fact_signal: "listing_rating" },
          { ...answer, fact_level: "observed", fact_signal: "rne_verified" },
          { ...answer, fact_level: "verified", fact_signal: "rne_verified", edited_by_merchant: true },
        ),
      ),
    ).toEqual([
      ["qa_clusters.0.nodes.0.fact_signal", "is required for a verified answer: the signal it rests on"],
      [
        "qa_clusters.0.nodes.1.fact_signal",
        "is not a signal an official source proves (src/domain/trust/signal-catalog.ts)",
      ],
      ["qa_clusters.0.nodes.2.fact_signal", "is given for a verified answer only"],
      ["qa_clusters.0.nodes.3.fact_level", "must be declared for an answer the merchant edited"],
    ]);
    // territorial_address_verified is an official check, but this merchant has none recorded.
    expect(
      issuesOf(withNodes({ ...answer, fact_level: "verified", fact_signal: "territorial_address_verified" })),
    ).toEqual([
      ["qa_clusters.0.nodes.0.fact_signal", "is not a verified signal of this merchant (territorial_address_verified)"],
    ]);
    expect(deps.registry.find(abId)?.revision).toBe(1);
    // rne_verified comes in with the same observation: the answer rests on it.
    recordPlatformObservation(
      deps,
      withNodes({ ...answer, fact_level: "verified", fact_signal: "rne_verified" }),
      "import:test",
    );
    const stored = deps.registry.find(abId)?.clusters[0]?.nodes[0];
    expect([stored?.factLevel, stored?.factSignal]).toEqual(["verified", "rne_verified"]);
  });

  it("names no merchant it does not know, and leaves an archived one alone", () => {
    expect(() => recordPlatformObservation(deps, { ...observation, siret: "73282932000074" }, "import:test")).toThrow(
      "No merchant has SIRET 73282932000074; import or add it first",
    );
    changeMerchantStatus(deps, abId, { status: "ARCHIVED", reason: "fermeture" }, "operator:test");
    expect(() => recordPlatformObservation(deps, observation, "import:test")).toThrow(
      `Merchant ${abId} is archived; an archived merchant is not observed`,
    );
  });
});

describe("the observations import", () => {
  it("applies good lines, reports each bad one with its number, and resumes after the last recorded line", async () => {
    const lines = [
      JSON.stringify(observation),
      "{not json",
      "",
      JSON.stringify({ ...observation, siret: "73282932000074" }),
      JSON.stringify({ ...observation, listing: null }),
    ].map((text, index) => ({ number: index + 1, text }));
    const stored = new Map<string, number>();
    const checkpoints = {
      read: async (key: string) => stored.get(key) ?? 0,
      write: async (key: string, line: number) => void stored.set(key, line),
    };
    const changed: string[] = [];
    const run = () =>
      importObservations(
        { ...deps, registry: createMerchantRegistryRepository(db), checkpoints },
        (async function* () {
          yield* lines;
        })(),
        { importKey: "observations-1", actor: "import:test", onChanged: (id) => changed.push(id) },
      );
    const report = await run();
    expect(report).toEqual({
      read: 4,
      created: 0,
      updated: 2,
      unchanged: 0,
      resumed: 0,
      rejected: [
        { line: 2, issues: [{ path: "", message: expect.stringMatching(/^the line is not JSON/) }] },
        { line: 4, issues: [{ path: "", message: "No merchant has SIRET 73282932000074; import or add it first" }] },
      ],
    });
    expect(changed).toEqual([abId, abId]);
    expect(deps.registry.find(abId)?.merchant.listingRating).toBeNull();
    expect(await run()).toEqual({ read: 4, created: 0, updated: 0, unchanged: 0, resumed: 4, rejected: [] });
  });
});
