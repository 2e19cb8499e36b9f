/** A small, fully known merchant for the publish renderers' unit tests. */
import type { MerchantProfile, QaNode, Signal } from "../../src/domain/merchant.ts";
import { merchantView, type RenderOptions } from "../../src/publish/view.ts";

export const BASE = "https://abeille.example";
export const AB_ID = "ab_7tq2k9xa";
export const NOW = new Date("2026-05-10T09:00:00.000Z");

export function signal(key: string, overrides: Partial<Signal> = {}): Signal {
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

export function node(id: string, overrides: Partial<QaNode> = {}): QaNode {
  return {
    nodeId: id,
    intent: "contact",
    question: "Comment contacter l'agence ?",
    answer: "Par e-mail ou par téléphone du lundi au vendredi.\nSources : annuaire-entreprises.data.gouv.fr",
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

/** A contactable travel agency in Annecy (trust about 45), with products, hours and two Q&A clusters. */
export function tourismProfile(): MerchantProfile {
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
      website: "https://www.lacmontagne.example",
      description: "Agence de voyages spécialisée dans les séminaires et séjours de groupe autour du lac d'Annecy.",
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      brandUpdatedAt: null,
      hours: {
        monday: "09:00-12:00,14:00-18:00",
        Tuesday: "09:00-12:00,14:00-18:00",
        samedi: "10:00-12:00",
        dimanche: "fermé",
        holiday: "x",
      },
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones: ["Annecy", "Chambéry"],
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
        description: "Organisation complète de séminaires d'entreprise au bord du lac.",
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
      {
        productId: "6a1d9b65-9b47-4d2f-8e8f-2a1b6c7d8e92",
        brickId: `brk_${AB_ID}_visite-vieille-ville`,
        abId: AB_ID,
        slug: "visite-vieille-ville",
        brickType: "service",
        name: "Visite guidée de la vieille ville",
        description: "Deux heures dans les canaux et ruelles, pour les groupes.",
        priceCents: 123450,
        currency: "EUR",
        pricingModel: "from",
        inventoryStatus: "available",
        imageUrl: null,
        externalUrl: null,
        tags: ["visite_guidee"],
        isLocked: false,
        position: 1,
        updatedAt: "2026-04-20T10:00:00.000Z",
      },
      {
        productId: "7b2eac76-ac58-4e30-9f90-3b2c7d8e9fa3",
        brickId: `brk_${AB_ID}_guide-heure`,
        abId: AB_ID,
        slug: "guide-heure",
        brickType: "product",
        name: "Guide privé",
        description: "Un guide à l'heure.",
        priceCents: 6000,
        currency: "EUR",
        pricingModel: "hourly",
        inventoryStatus: "available",
        imageUrl: null,
        externalUrl: null,
        tags: [],
        isLocked: false,
        position: 2,
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
      signal("rcp_declared", { source: "merchant_declared", status: "unverified", verifiedAt: null }),
    ],
    clusters: [
      {
        clusterId: "0c5e2f7a-1b2c-4d3e-8f4a-5b6c7d8e9f01",
        abId: AB_ID,
        label: "Questions fréquentes",
        type: "custom",
        scope: "merchant",
        brickId: null,
        position: 0,
        updatedAt: "2026-04-25T10:00:00.000Z",
        nodes: [
          node("1d6f3a8b-2c3d-4e5f-9a0b-6c7d8e9f0a12", {
            humanVerifiedAt: "2026-04-26T10:00:00.000Z",
            verificationLevel: "human_verified",
            factLevel: "official_source",
            factSignal: "siret_verified",
          }),
          node("2e7a4b9c-3d4e-4f6a-8b1c-7d8e9f0a1b23", {
            intent: "prix",
            question: "Quel budget prévoir pour un séminaire ?",
            answerBluf: "Sur devis, selon le nombre de participants.",
            editedByMerchant: true,
            driftSeverity: "low",
            position: 1,
          }),
        ],
      },
      {
        clusterId: "3f8b5cad-4e5f-4a7b-9c2d-8e9f0a1b2c34",
        abId: AB_ID,
        label: "Séminaire au bord du lac : prix et délais",
        type: "custom",
        scope: "brick",
        brickId: `brk_${AB_ID}_seminaire-lac`,
        position: 1,
        updatedAt: "2026-04-25T10:00:00.000Z",
        nodes: [],
      },
    ],
  };
}

export function options(overrides: Partial<RenderOptions> = {}): RenderOptions {
  return { baseUrl: BASE, orderRailEnabled: false, now: NOW, ...overrides };
}

export function view(profile = tourismProfile(), overrides: Partial<RenderOptions> = {}) {
  return merchantView(profile, options(overrides));
}
