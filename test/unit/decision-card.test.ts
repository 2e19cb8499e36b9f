import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash, sha256Hex } from "../../src/domain/canonical-json.ts";
import type { MerchantProfile, QaNode, Signal } from "../../src/domain/merchant.ts";
import {
  buildDecisionCard,
  cardTexts,
  type DecisionCardDeps,
  decisionCardHash,
  frenchHours,
  shortDescription,
  wordCount,
} from "../../src/domain/registry/decision-card.ts";
import { ServiceError } from "../../src/errors/service-error.ts";
import { decisionCardDocumentSchema } from "../../src/schemas/decision-card.ts";
import type { MerchantRepository } from "../../src/store/merchant-repository.ts";

const BASE = "https://abeille.example";
const AB_ID = "ab_7tq2k9xa";
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

function node(id: string, overrides: Partial<QaNode> = {}): QaNode {
  return {
    nodeId: id,
    intent: "contact",
    question: "Comment contacter l'agence ?",
    answer: "Par e-mail ou par téléphone du lundi au vendredi. Sources : annuaire-entreprises.data.gouv.fr",
    answerBluf: "Par e-mail ou téléphone en semaine.",
    claimSentence: "",
    verificationLevel: "unverified",
    factLevel: "declared",
    factSignal: null,
    factSourceUrl: null,
    editedByMerchant: false,
    driftSeverity: null,
    humanVerifiedAt: null,
    position: 0,
    ...overrides,
  };
}

/** A contactable travel agency in Annecy, trust about 40, no brand voice. */
function tourismProfile(): MerchantProfile {
  return {
    merchant: {
      abId: AB_ID,
      siret: "73282932000074",
      legalName: "LAC ET MONTAGNE EVENEMENTS SARL",
      businessName: "Lac & Montagne Événements",
      slug: "lac-et-montagne-evenements-annecy",
      nafCode: "79.11Z",
      nafCode2025: null,
      sector: "tourisme",
      status: "ACTIVE",
      rcs: "RCS Annecy 732 829 320",
      vatIntracom: "FR44732829320",
      street: "4 quai Eustache Chappuis",
      postalCode: "74000",
      city: "Annecy",
      phone: "+33 4 50 00 00 00",
      email: "contact@lacmontagne.example",
      website: "https://lacmontagne.example",
      description: "Agence de voyages spécialisée dans les séminaires et séjours de groupe autour du lac d'Annecy.",
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      brandUpdatedAt: null,
      hours: { monday: "09:00-18:00", Tuesday: "09:00-18:00", samedi: "10:00-12:00", dimanche: "fermé", holiday: "x" },
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones: ["74", "73"],
      areasDeclaredAt: "2025-09-01T00:00:00.000Z",
      deliveryEnabled: false,
      deliveryRadiusKm: null,
      languages: ["fr", "en"],
      foundedOn: "2014-03-01",
      domainAgeYears: 9,
      listingRating: 4.6,
      listingReviewCount: 84,
      listingPhotosCount: 12,
      terrainPhotos: [],
      sameAs: ["https://annuaire-entreprises.data.gouv.fr/entreprise/732829320"],
      paymentSetup: false,
      closure: null,
      createdAt: "2025-01-10T10:00:00.000Z",
      updatedAt: "2026-04-02T10:00:00.000Z",
    },
    territorialProof: {
      latitude: 45.8992,
      longitude: 6.1294,
      inseeCode: "74010",
      postalCode: "74000",
      cityNormalized: "annecy",
      geocodingSource: "ban",
      geocodingScore: 0.93,
      verified: true,
      verifiedAt: "2026-03-01T08:00:00.000Z",
      population: 130721,
      departmentCode: "74",
      regionCode: "84",
      epciCode: "200066793",
    },
    products: [
      {
        productId: "5f0c8a54-8a36-4c1e-9d7e-1f0a5b6c7d81",
        brickId: `brk_${AB_ID}_seminaire-lac`,
        abId: AB_ID,
        slug: "seminaire-lac",
        brickType: "service",
        name: "Séminaire au bord du lac",
        description: `${"Organisation complète de séminaires d'entreprise au bord du lac, avec hébergement, salles équipées, activités de cohésion et restauration locale ".repeat(2)}sur mesure.`,
        priceCents: null,
        currency: "EUR",
        pricingModel: "on_quote",
        inventoryStatus: "on_quote",
        imageUrl: null,
        externalUrl: null,
        tags: ["seminaire", "groupe"],
        isLocked: false,
        position: 0,
        updatedAt: "2026-04-20T10:00:00.000Z",
      },
    ],
    signals: [
      signal("siret_verified", { sourceUrl: "https://annuaire-entreprises.data.gouv.fr/etablissement/73282932000074" }),
      signal("bodacc_clean"),
      signal("company_age_years", { value: 12 }),
      signal("contact_email_verified", { source: "platform_observed" }),
      signal("listing_verified", { source: "platform_observed" }),
      signal("listing_review_count", { source: "platform_observed", value: 84 }),
      signal("listing_rating", { source: "platform_observed", value: 4.6 }),
      signal("website_present", { source: "platform_observed", expiresAt: "2026-08-01T00:00:00.000Z" }),
      signal("territorial_address_verified", { expiresAt: "2026-06-01T00:00:00.000Z" }),
      signal("rne_verified", { expiresAt: "2026-05-01T00:00:00.000Z" }),
      signal("cgv_published", { source: "merchant_declared" }),
      signal("rcp_declared", { source: "merchant_declared" }),
    ],
    clusters: [
      {
        clusterId: "9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d",
        abId: AB_ID,
        label: "Questions fréquentes",
        type: "custom",
        scope: "merchant",
        brickId: null,
        position: 0,
        updatedAt: "2026-04-01T10:00:00.000Z",
        nodes: [
          node("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"),
          node("2a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", {
            intent: "preuve",
            question: "L'agence est-elle immatriculée ?",
            answerBluf: "Oui, SIRET actif au répertoire SIRENE.",
            factLevel: "official_source_verified",
            factSignal: "siret_verified",
            factSourceUrl: "https://annuaire-entreprises.data.gouv.fr/etablissement/73282932000074",
            humanVerifiedAt: "2026-03-02T08:00:00.000Z",
            position: 1,
          }),
        ],
      },
    ],
  };
}

/** A merchant that can take orders: trust well above 55, payment set up, active. */
function orderReadyProfile(): MerchantProfile {
  const profile = tourismProfile();
  profile.merchant.paymentSetup = true;
  profile.signals = [
    ...profile.signals.filter((item) => item.expiresAt === null),
    signal("officer_identity"),
    signal("contact_verified", { source: "platform_observed" }),
    signal("ab_account_verified", { source: "platform_observed" }),
    signal("external_review_received", { source: "platform_observed" }),
    signal("terrain_media_snapshot", { source: "platform_observed" }),
    signal("has_products", { source: "platform_observed" }),
    signal("brick_completeness", { source: "platform_observed", value: 1 }),
    signal("product_depth_score", { source: "platform_observed", value: 1 }),
    signal("schema_org_valid", { source: "platform_observed" }),
    signal("multi_protocol_ready", { source: "platform_observed" }),
    signal("reviewsite_rating", { source: "platform_observed", value: 4.7 }),
    signal("garantie_financiere_declared", { source: "merchant_declared" }),
  ];
  return profile;
}

function fakeRepository(profiles: MerchantProfile[]): MerchantRepository {
  const byId = new Map(profiles.map((profile) => [profile.merchant.abId, profile]));
  return {
    findProfile: async (abId) => byId.get(abId) ?? null,
    findLeadTarget: async (abId, { withProducts }) => {
      const profile = byId.get(abId);
      if (!profile) return null;
      const signals = profile.signals.filter((signal) => signal.status === "verified");
      return { merchant: profile.merchant, signals, products: withProducts ? profile.products : [] };
    },
    findMerchants: async (abIds) => abIds.flatMap((abId) => byId.get(abId)?.merchant ?? []),
    findProducts: async (abIds) => abIds.flatMap((abId) => byId.get(abId)?.products ?? []),
    findTrustSignals: async (abIds) =>
      new Map(
        abIds.map((abId) => [abId, (byId.get(abId)?.signals ?? []).filter((signal) => signal.status === "verified")]),
      ),
    findSignal: async (abIds, key) =>
      new Map(
        abIds.flatMap((abId) => {
          const found = byId.get(abId)?.signals.find((signal) => signal.key === key);
          return found ? [[abId, found] as const] : [];
        }),
      ),
    findCluster: async (clusterId) =>
      profiles.flatMap((profile) => profile.clusters).find((cluster) => cluster.clusterId === clusterId) ?? null,
    findClusters: async (abId) => byId.get(abId)?.clusters ?? [],
    revision: async () => 0,
  };
}

function deps(profile: MerchantProfile, overrides: Partial<DecisionCardDeps> = {}): DecisionCardDeps {
  return {
    merchants: fakeRepository([profile]),
    baseUrl: BASE,
    orderRailEnabled: false,
    now: () => NOW,
    ...overrides,
  };
}

describe("buildDecisionCard: document shape", () => {
  it("passes the DecisionCard schema", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    const parsed = decisionCardDocumentSchema.safeParse(document);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("has exactly the spec's top-level and decision_card keys", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(Object.keys(document)).toEqual([
      "decision_card",
      "ab_brand_voice",
      "merchant_brand_voice",
      "ab_id",
      "version",
      "identity",
      // Issue 34: the official sources that speak for the merchant, and how fresh each is.
      "merchant",
      "trust",
      "actionability",
      "lead_contract",
      "order_contract",
      "credentials",
      "reviewers",
      "merchant_clusters",
    ]);
    expect(Object.keys(document.decision_card)).toEqual([
      "version",
      "schema_version",
      "ab_id",
      "generated_at",
      "content_hash",
      "identity",
      "merchant",
      "trust",
      "actionability",
      "lead_contract",
      "order_contract",
      "brand_capsule",
      "verification_capsule",
      "knowledge_capsule",
      "plugin_capabilities",
      "provenance",
      "bricks_inventory",
      "merchant_signals",
      "territorial_proof",
      "_links",
    ]);
    expect(document.version).toBe("2026-04");
    expect(document.decision_card.version).toBe("merchant-decision-card/v2");
    expect(document.decision_card.schema_version).toBe("2.4.1");
  });

  it("repeats identity, trust, actionability and both contracts at the top level unchanged", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(document.identity).toBe(document.decision_card.identity);
    expect(document.merchant).toBe(document.decision_card.merchant);
    expect(document.trust).toBe(document.decision_card.trust);
    expect(document.actionability).toBe(document.decision_card.actionability);
    expect(document.lead_contract).toBe(document.decision_card.lead_contract);
    expect(document.order_contract).toBe(document.decision_card.order_contract);
  });

  it("builds identity links under the base URL, with SIREN and NAF division derived", async () => {
    const { identity } = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(identity.legal_identifiers.siren).toEqual({ value: "732829320", derived_from: "siret" });
    expect(identity.legal_identifiers.siret.verified).toBe(true);
    expect(identity.legal_identifiers.naf_code).toEqual({ value: "79.11Z", division: "79" });
    expect(identity.canonical_microsite_url).toBe(`${BASE}/m/${AB_ID}/`);
    expect(identity.ai_md_url).toBe(`${BASE}/m/${AB_ID}/ai.md`);
    expect(identity.ai_digest_url).toBe(`${BASE}/api/merchants/${AB_ID}/ai-digest`);
    expect(identity.jsonld_url).toBe(`${BASE}/api/merchants/${AB_ID}/jsonld`);
    expect(identity.fanout_url).toBe(`${BASE}/api/merchants/${AB_ID}/clusters`);
    expect(identity.address).toBe("4 quai Eustache Chappuis, 74000 Annecy");
  });

  it("publishes the trust thresholds and the threshold reasons of the score", async () => {
    const { trust } = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(trust.thresholds).toEqual({ basic: 10, order: 15, merchant_ready: 15, marketplace: 20, iax: 85 });
    expect(trust.trust_level).toBe("certified");
    expect(trust.probation).toBe(false);
    expect(trust.score).toBe(trust.breakdown.total);
    expect(trust.score).toBeGreaterThan(20);
    expect(trust.score).toBeLessThan(85);
    expect(trust.reasons).toEqual(["trust_score_below_iax_threshold"]);
  });

  it("links the card to itself, resolve, JSON-LD, ai.md and the signed manifest", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    expect(card._links).toEqual({
      self: `${BASE}/api/merchants/${AB_ID}/decision-card`,
      resolve: `${BASE}/api/registry/resolve/${AB_ID}`,
      jsonld: `${BASE}/api/merchants/${AB_ID}/jsonld`,
      ai_md: `${BASE}/m/${AB_ID}/ai.md`,
      manifest: `${BASE}/api/registry/verify/${AB_ID}`,
    });
  });

  it("reports an unknown or archived merchant as MERCHANT_NOT_FOUND", async () => {
    const archived = tourismProfile();
    archived.merchant.status = "ARCHIVED";
    for (const [profile, abId] of [
      [tourismProfile(), "ab_00000000"],
      [archived, AB_ID],
    ] as const) {
      try {
        await buildDecisionCard(deps(profile), abId);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ServiceError);
        expect((error as ServiceError).code).toBe("MERCHANT_NOT_FOUND");
      }
    }
  });
});

describe("buildDecisionCard: content hash", () => {
  it("stays the same across calls with a different clock while the content is unchanged", async () => {
    const profile = tourismProfile();
    const first = await buildDecisionCard(deps(profile, { now: () => new Date("2026-05-10T09:00:00.000Z") }), AB_ID);
    const second = await buildDecisionCard(deps(profile, { now: () => new Date("2026-05-25T17:30:00.000Z") }), AB_ID);
    expect(first.decision_card.generated_at).not.toBe(second.decision_card.generated_at);
    expect(first.decision_card.provenance.manifest_generated_at).not.toBe(
      second.decision_card.provenance.manifest_generated_at,
    );
    expect(first.decision_card.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second.decision_card.content_hash).toBe(first.decision_card.content_hash);
  });

  it("changes when a product name changes", async () => {
    const profile = tourismProfile();
    const before = (await buildDecisionCard(deps(profile), AB_ID)).decision_card.content_hash;
    const renamed = tourismProfile();
    const product = renamed.products[0];
    if (!product) throw new Error("fixture has a product");
    product.name = "Séminaire lacustre";
    const after = (await buildDecisionCard(deps(renamed), AB_ID)).decision_card.content_hash;
    expect(after).not.toBe(before);
  });

  it("hashes the card without generated_at, content_hash and provenance.manifest_generated_at", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    const { generated_at: _g, content_hash: _c, provenance, ...rest } = card;
    const { manifest_generated_at: _m, ...stableProvenance } = provenance;
    expect(card.content_hash).toBe(contentHash({ ...rest, provenance: stableProvenance }));
    expect(decisionCardHash(card)).toBe(card.content_hash);
  });

  it("keeps each member's canonical text, and computes again the text of a member replaced since", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    const texts = cardTexts(card);
    expect(texts.byObject.get(card.identity)).toBe(canonicalJson(card.identity));
    expect(texts.byObject.get(card.verification_capsule)).toBe(canonicalJson(card.verification_capsule));
    expect(texts.hashed.generated_at).toBeUndefined();
    expect(texts.hashed.content_hash).toBeUndefined();
    const { manifest_generated_at: _m, ...stableProvenance } = card.provenance;
    expect(texts.hashed.provenance).toBe(canonicalJson(stableProvenance));

    const before = card.content_hash;
    card.trust = { ...card.trust, score: card.trust.score === 50 ? 51 : 50 };
    expect(cardTexts(card).byObject.get(card.trust)).toBe(canonicalJson(card.trust));
    const { generated_at: _g, content_hash: _c, provenance, ...rest } = card;
    const { manifest_generated_at: _n, ...stable } = provenance;
    expect(decisionCardHash(card)).toBe(contentHash({ ...rest, provenance: stable }));
    expect(decisionCardHash(card)).not.toBe(before);
  });

  it("moves when a signal expires, because the verified facts changed", async () => {
    const profile = tourismProfile();
    const before = await buildDecisionCard(deps(profile, { now: () => new Date("2026-05-10T00:00:00Z") }), AB_ID);
    const after = await buildDecisionCard(deps(profile, { now: () => new Date("2026-06-02T00:00:00Z") }), AB_ID);
    expect(after.decision_card.content_hash).not.toBe(before.decision_card.content_hash);
  });
});

describe("buildDecisionCard: actionability and contracts", () => {
  it("blocks contact for an LLM-written description nobody reviewed and says how to unblock it", async () => {
    const profile = tourismProfile();
    profile.merchant.descriptionLlmUnreviewed = true;
    const document = await buildDecisionCard(deps(profile), AB_ID);
    const { actionability } = document;
    expect(actionability.can_contact).toBe(false);
    expect(actionability.blocked_actions).toContain("contact");
    expect(actionability.blocked_because).toContain("description_llm_unreviewed");
    expect(actionability.next_best_action).toEqual({
      code: "review_description",
      title: expect.any(String),
      impact: "unlocks_contact",
      unblock_score_delta: null,
    });
    expect(document.decision_card.merchant_signals.description).toBeNull();
    expect(decisionCardDocumentSchema.safeParse(document).success).toBe(true);
  });

  it("lets an agent contact a verified merchant with a reviewed description", async () => {
    const { actionability, decision_card } = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(actionability.can_contact).toBe(true);
    expect(actionability.blocked_actions).not.toContain("contact");
    expect(actionability.can_verify).toBe(true);
    expect(actionability.active_plugins).toEqual([]);
    expect(decision_card.merchant_signals.description).toContain("séminaires");
  });

  it("has no order contract and order_rail_disabled while the order rail is closed", async () => {
    const document = await buildDecisionCard(deps(orderReadyProfile(), { orderRailEnabled: false }), AB_ID);
    expect(document.order_contract).toBeNull();
    expect(document.decision_card.order_contract).toBeNull();
    expect(document.actionability.can_order).toBe(false);
    expect(document.actionability.blocked_actions).toContain("order");
    expect(document.actionability.blocked_because).toContain("order_rail_disabled");
  });

  it("describes create-order with min_trust 55 once the rail is open and the merchant can take orders", async () => {
    const document = await buildDecisionCard(deps(orderReadyProfile(), { orderRailEnabled: true }), AB_ID);
    expect(document.trust.score).toBeGreaterThanOrEqual(55);
    expect(document.actionability.can_order).toBe(true);
    expect(document.order_contract).toMatchObject({
      endpoint: `${BASE}/api/orders/create`,
      method: "POST",
      min_trust: 55,
      required_fields: ["merchant_id", "product_ids", "quantities", "fulfillment_type"],
    });
    expect(decisionCardDocumentSchema.safeParse(document).success).toBe(true);
  });

  it("keeps the order contract null with the rail open when the merchant cannot take orders", async () => {
    const document = await buildDecisionCard(deps(tourismProfile(), { orderRailEnabled: true }), AB_ID);
    expect(document.order_contract).toBeNull();
    expect(document.actionability.blocked_because).not.toContain("order_rail_disabled");
    expect(document.actionability.blocked_because).toContain("payment_not_setup");
  });

  it("carries the tourisme lead contract with the endpoint's real required fields", async () => {
    const { lead_contract: contract } = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(contract.example_payload.ab_id).toBe(AB_ID);
    expect(contract.sector_fields.map((field) => field.name)).toEqual([
      "event_type",
      "nb_participants",
      "date_souhaitee",
      "budget_range",
      "destination",
    ]);
    expect(contract.base_fields.filter((field) => field.required).map((field) => field.name)).toEqual([
      "contact_name",
      "contact_email",
      "lead_type",
    ]);
  });

  it("has a null brand capsule and blocks view_brand when no brand voice is published", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(document.decision_card.brand_capsule).toBeNull();
    expect(document.actionability.can_view_brand).toBe(false);
    expect(document.actionability.blocked_actions).toContain("view_brand");
    expect(document.actionability.blocked_because).toContain("brand_voice_not_declared");
    expect(document.merchant_brand_voice).toEqual({ consumer_surface: "ai_digest", is_published: false });
    expect(document.ab_brand_voice.slogan).toBe("Le registre des commerçants vérifiés");
  });

  it("shows a published brand voice as the brand capsule", async () => {
    const profile = tourismProfile();
    profile.merchant.brandVoice = {
      tone: "chaleureux",
      values: ["proximité"],
      do: ["tutoyer les équipes"],
      dont: ["promettre la météo"],
      consumer_surface: "microsite",
      is_published: true,
    };
    profile.merchant.brandUpdatedAt = "2026-04-03T10:00:00.000Z";
    const document = await buildDecisionCard(deps(profile), AB_ID);
    expect(document.decision_card.brand_capsule).toEqual({
      tone: "chaleureux",
      values: ["proximité"],
      do: ["tutoyer les équipes"],
      dont: ["promettre la météo"],
      consumer_surface: "microsite",
    });
    expect(document.actionability.can_view_brand).toBe(true);
    expect(document.merchant_brand_voice).toEqual({ consumer_surface: "microsite", is_published: true });
    expect(document.decision_card.provenance.brand_updated_at).toBe("2026-04-03T10:00:00.000Z");
  });
});

describe("buildDecisionCard: verification, knowledge and inventory", () => {
  it("lists at most five verified evidence signals, official sources first, none declared or expired", async () => {
    const capsule = (await buildDecisionCard(deps(orderReadyProfile()), AB_ID)).decision_card.verification_capsule;
    const top = capsule.top_credentials;
    expect(top.length).toBe(5);
    expect(top.map((item) => item.signal).slice(0, 3)).toEqual(["siret_verified", "bodacc_clean", "officer_identity"]);
    expect(top.every((item) => item.status === "verified")).toBe(true);
    expect(top.map((item) => item.proof_status)).not.toContain("merchant_declared");
    expect(top[0]?.evidence_url).toBe(`${BASE}/api/verify/siret_verified/${AB_ID}`);
    expect(capsule.evidence_endpoints).toHaveLength(26);
    expect(capsule.evidence_endpoints).toContain(`${BASE}/api/verify/terrain_media_snapshot/${AB_ID}`);
    expect(capsule.manifest_url).toBe(`${BASE}/api/registry/verify/${AB_ID}`);
    expect(capsule.jwks_url).toBe(`${BASE}/.well-known/ab-public-keys.json`);
  });

  it("leaves an expired signal out of top credentials and marks it expired in credentials", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    const top = document.decision_card.verification_capsule.top_credentials.map((item) => item.signal);
    expect(top).not.toContain("rne_verified");
    expect(top).toContain("territorial_address_verified");
  });

  it("sets next_refresh_at to the earliest signal expiry still ahead", async () => {
    const capsule = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card.verification_capsule;
    expect(capsule.next_refresh_at).toBe("2026-06-01T00:00:00.000Z");
    const none = (await buildDecisionCard(deps(orderReadyProfile()), AB_ID)).decision_card.verification_capsule;
    expect(none.next_refresh_at).toBeNull();
  });

  it("lists credential keys only, in catalog order, keeping a merchant declaration's own source", async () => {
    const { credentials } = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    expect(credentials.map((item) => item.key)).toEqual([
      "siret_verified",
      "bodacc_clean",
      "contact_email_verified",
      "cgv_published",
      "company_age_years",
      "listing_review_count",
      "listing_rating",
    ]);
    expect(credentials.find((item) => item.key === "cgv_published")).toMatchObject({
      source: "merchant_declared",
      proof_status: "merchant_declared",
      evidence_url: null,
    });
    expect(credentials.find((item) => item.key === "bodacc_clean")?.evidence_url).toBe(
      `${BASE}/api/verify/bodacc_clean/${AB_ID}`,
    );
  });

  it("puts the best-backed questions first in the knowledge capsule, with cite URLs", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    const clusterId = "9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d";
    expect(card.knowledge_capsule.top_questions).toEqual([
      {
        question: "L'agence est-elle immatriculée ?",
        answer_bluf: "Oui, SIRET actif au répertoire SIRENE.",
        confidence: "verified",
        source_url: `${BASE}/api/clusters/${clusterId}#2a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d`,
      },
      {
        question: "Comment contacter l'agence ?",
        answer_bluf: "Par e-mail ou téléphone en semaine.",
        confidence: "declared",
        source_url: `${BASE}/api/clusters/${clusterId}#1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d`,
      },
    ]);
    expect(card.knowledge_capsule.cluster_summary).toEqual([
      { cluster_id: clusterId, label: "Questions fréquentes", scope: "merchant", node_count: 2 },
    ]);
  });

  it("describes cluster nodes with answer hash, word count, grounding and verification", async () => {
    const document = await buildDecisionCard(deps(tourismProfile()), AB_ID);
    const [cluster] = document.merchant_clusters;
    expect(cluster?.node_count).toBe(2);
    const [declared, official] = cluster?.nodes ?? [];
    expect(declared?.answer_hash).toBe(sha256Hex(declared?.answer ?? ""));
    expect(declared?.word_count).toBe(wordCount(declared?.answer ?? ""));
    expect(declared?.grounding).toEqual({ grounded: false, evidence: null, grounding_stats: null });
    expect(official?.grounding.grounded).toBe(true);
    expect(official?.verification).toEqual({
      fact_level: "verified",
      fact_source_url: "https://annuaire-entreprises.data.gouv.fr/etablissement/73282932000074",
      human_reviewed_at: "2026-03-02T08:00:00.000Z",
      edited_by_merchant: false,
      rests_on: { signal: "siret_verified", status: "verified", expires_at: null },
    });
    expect(document.reviewers).toEqual([]);
  });

  it("lists products as bricks with a short description cut on a word", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    const [brick] = card.bricks_inventory;
    expect(brick).toMatchObject({
      brick_id: `brk_${AB_ID}_seminaire-lac`,
      brick_type: "service",
      price_cents: null,
      currency: "EUR",
      pricing_model: "on_quote",
      inventory_status: "on_quote",
      is_locked: false,
    });
    expect([...(brick?.description_short ?? "")].length).toBeLessThanOrEqual(160);
    expect(brick?.description_short.endsWith("…")).toBe(true);
  });

  it("reports signals with French weekday hours, whole years in business and the territorial proof", async () => {
    const card = (await buildDecisionCard(deps(tourismProfile()), AB_ID)).decision_card;
    expect(card.merchant_signals.hours).toEqual({
      lundi: "09:00-18:00",
      mardi: "09:00-18:00",
      samedi: "10:00-12:00",
      dimanche: "fermé",
    });
    expect(card.merchant_signals.years_in_business).toBe(12);
    expect(card.territorial_proof.insee_code).toBe("74010");
    expect(card.provenance.source_updated_at).toBe("2026-04-20T10:00:00.000Z");
    expect(card.provenance.signable_fields).toEqual([
      "identity",
      "trust",
      "verification_capsule",
      "knowledge_capsule",
      "brand_capsule",
      "provenance",
    ]);
  });

  it("gives an all-null territorial proof when none is recorded", async () => {
    const profile = tourismProfile();
    profile.territorialProof = null;
    const document = await buildDecisionCard(deps(profile), AB_ID);
    expect(document.decision_card.territorial_proof.verified).toBe(false);
    expect(document.decision_card.territorial_proof.latitude).toBeNull();
    expect(decisionCardDocumentSchema.safeParse(document).success).toBe(true);
  });
});

describe("decision card helpers", () => {
  it("shortDescription keeps short text, cuts long text after a whole word with an ellipsis", () => {
    expect(shortDescription("  Pain   au levain  ")).toBe("Pain au levain");
    const long = "mot ".repeat(60);
    const short = shortDescription(long);
    expect([...short].length).toBeLessThanOrEqual(160);
    expect(short).toMatch(/ mot…$/);
    expect([...shortDescription("x".repeat(300))].length).toBe(160);
    // Characters, not UTF-16 units: 100 emoji (200 units) are kept whole, 200 are cut to 160.
    expect(shortDescription("😀".repeat(100))).toBe("😀".repeat(100));
    expect(shortDescription("😀".repeat(200))).toBe(`${"😀".repeat(159)}…`);
    expect(shortDescription("x".repeat(160))).toBe("x".repeat(160));
    expect(shortDescription("x".repeat(161))).toBe(`${"x".repeat(159)}…`);
  });

  it("frenchHours maps English and French day names to lowercase French weekdays", () => {
    expect(frenchHours({ Sunday: "fermé", MONDAY: "8h-12h" })).toEqual({ lundi: "8h-12h", dimanche: "fermé" });
    expect(frenchHours(null)).toBeNull();
  });
});
