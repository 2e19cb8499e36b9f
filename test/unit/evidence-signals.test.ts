import { describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { describeEvidence, isEvidenceSignal } from "../../src/domain/evidence/signal-evidence.ts";
import type { MerchantProfile, Signal } from "../../src/domain/merchant.ts";
import { EVIDENCE_SIGNALS, type EvidenceSignal } from "../../src/domain/trust/signal-catalog.ts";
import { evidenceDataSchema } from "../../src/schemas/signing.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");

function signal(key: string, overrides: Partial<Signal> = {}): Signal {
  return {
    key,
    status: "verified",
    proofStatus: "official_source_verified",
    source: "official_api",
    sourceUrl: null,
    value: true,
    verifiedAt: "2026-09-01T08:00:00.000Z",
    recordedAt: "2026-09-01T08:00:00.000Z",
    expiresAt: null,
    ...overrides,
  };
}

const declared = { source: "merchant_declared", proofStatus: "merchant_declared" } as const;
const observed = { source: "platform_observed", proofStatus: "machine_consistent" } as const;

/** A bakery (sector alimentation) with a few verified, failed, expired and capped signals. */
function bakery(signals: Signal[]): MerchantProfile {
  return {
    merchant: {
      abId: "ab_b4k3ry01",
      siret: "73282932000074",
      legalName: "BOULANGERIE DU PORT SARL",
      businessName: "Boulangerie du Port",
      slug: "boulangerie-du-port",
      nafCode: "10.71C",
      nafCode2025: null,
      sector: "alimentation",
      status: "ACTIVE",
      rcs: null,
      vatIntracom: null,
      street: "3 quai Duperré",
      postalCode: "17000",
      city: "La Rochelle",
      phone: null,
      email: "contact@boulangerie.example",
      website: "https://boulangerie.example",
      description: "Boulangerie artisanale.",
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
      foundedOn: "2012-04-01",
      domainAgeYears: null,
      listingRating: null,
      listingReviewCount: null,
      listingPhotosCount: 0,
      terrainPhotos: [],
      sameAs: [],
      paymentSetup: false,
      closure: null,
      createdAt: "2025-01-10T10:00:00.000Z",
      updatedAt: "2026-10-02T10:00:00.000Z",
    },
    territorialProof: null,
    products: [],
    signals,
    clusters: [],
  };
}

function evidence(profile: MerchantProfile, key: EvidenceSignal) {
  const assessment = assessMerchant(profile.merchant, profile.signals, { orderRailEnabled: false, now: NOW });
  return describeEvidence({ profile, assessment, signal: key, now: NOW });
}

describe("evidence pages", () => {
  it("answers every one of the 26 signals in the evidence schema, even with no record at all", () => {
    expect(EVIDENCE_SIGNALS).toHaveLength(26);
    const empty = bakery([]);
    for (const key of EVIDENCE_SIGNALS) {
      const page = evidence(empty, key);
      expect(evidenceDataSchema.safeParse(page).success).toBe(true);
      expect(["unverified", "not_applicable"]).toContain(page.status);
      expect(page.contribution.counted).toBe(0);
      expect(page.explanation).toMatch(/\.$/);
    }
  });

  it("says not_applicable for a signal outside the merchant's sector, even when one was recorded", () => {
    const page = evidence(bakery([signal("orias_registered")]), "orias_registered");
    expect(page.status).toBe("not_applicable");
    expect(page.applies_to).toEqual(["assurance", "immobilier"]);
    expect(page.contribution).toMatchObject({ component: "expertise", points: 0, counted: 0 });
    expect(page.explanation).toMatch(/applies only to the assurance, immobilier sectors.*alimentation/);
  });

  it("says unverified with the official source to check when nothing was recorded", () => {
    const page = evidence(bakery([]), "rne_verified");
    expect(page).toMatchObject({
      status: "unverified",
      proof_status: null,
      source: "official_api",
      source_url: "https://data.inpi.fr/entreprises/732829320",
      verified_at: null,
      recorded_at: null,
    });
  });

  it("tells what a verified signal added to its component and by which rule", () => {
    const page = evidence(bakery([signal("siret_verified")]), "siret_verified");
    expect(page).toMatchObject({
      status: "verified",
      proof_status: "official_source_verified",
      verified_at: "2026-09-01T08:00:00.000Z",
      value: true,
      contribution: { component: "trust", rule: "8 points when the SIRET is active in SIRENE", points: 8, counted: 8 },
    });
    expect(page.explanation).toBe(
      "The signal was verified against an official source on 2026-09-01 and adds 8 points to the trust component (rule: 8 points when the SIRET is active in SIRENE).",
    );
  });

  it("shows the points a signal lost to the component cap", () => {
    // Expertise: rcp 5 + compliance 3 + schema 2 + multi 2 + alimconfiance 5 + has_products 3 + completeness 5
    // + depth 4 = 29, so the last signals in catalog order lose 4 points to the cap of 25.
    const profile = bakery([
      signal("has_products", observed),
      signal("brick_completeness", { ...observed, value: 1 }),
      signal("product_depth_score", { ...observed, value: 1 }),
      signal("compliance_documents", declared),
      signal("schema_org_valid", observed),
      signal("multi_protocol_ready", observed),
      signal("rcp_declared", declared),
      signal("alimconfiance_score", { value: 4 }),
    ]);
    const page = evidence(profile, "alimconfiance_score");
    expect(page.contribution.points).toBe(5);
    expect(page.contribution.counted).toBe(1);
    expect(page.explanation).toMatch(/gives 5 points but only 1 count because the expertise component is capped at 25/);
    const assessment = assessMerchant(profile.merchant, profile.signals, { orderRailEnabled: false, now: NOW });
    expect(assessment.trust.breakdown.expertise).toBe(25);
  });

  it("counts nothing for failed, unverified and expired records and says why", () => {
    const profile = bakery([
      signal("bodacc_clean", { status: "failed" }),
      signal("website_present", { ...observed, status: "unverified" }),
      signal("territorial_address_verified", { expiresAt: "2026-10-01T00:00:00.000Z" }),
    ]);
    const failed = evidence(profile, "bodacc_clean");
    expect(failed).toMatchObject({ status: "failed", contribution: { counted: 0 } });
    expect(failed.explanation).toMatch(/failed/);
    const unverified = evidence(profile, "website_present");
    expect(unverified).toMatchObject({ status: "unverified", proof_status: "machine_consistent" });
    expect(unverified.explanation).toMatch(/recorded on 2026-09-01 but is not verified/);
    const expired = evidence(profile, "territorial_address_verified");
    expect(expired).toMatchObject({
      status: "expired",
      expires_at: "2026-10-01T00:00:00.000Z",
      contribution: { counted: 0 },
    });
    expect(expired.explanation).toMatch(/expired on 2026-10-01/);
  });

  it("withholds values that are personal data", () => {
    const page = evidence(
      bakery([signal("contact_email_verified", { ...observed, value: "jeanne.martin@example.fr" })]),
      "contact_email_verified",
    );
    expect(page.value).toBeNull();
    expect(page.value_withheld).toBe(true);
    expect(JSON.stringify(page)).not.toContain("jeanne.martin");
  });

  it("accounts for every point of the trust score across evidence pages and the other credentials", () => {
    const profile = bakery([
      signal("siret_verified"),
      signal("bodacc_clean"),
      signal("company_age_years", { value: 14 }),
      signal("listing_verified", observed),
      signal("alimconfiance_score", { value: 3 }),
    ]);
    const assessment = assessMerchant(profile.merchant, profile.signals, { orderRailEnabled: false, now: NOW });
    const fromEvidence = EVIDENCE_SIGNALS.reduce((sum, key) => sum + evidence(profile, key).contribution.counted, 0);
    const fromOthers = assessment.trust.contributions
      .filter((item) => !isEvidenceSignal(item.signal))
      .reduce((sum, item) => sum + item.counted, 0);
    expect(fromEvidence + fromOthers).toBe(assessment.trust.breakdown.total);
    expect(fromEvidence).toBe(8 + 4 + 3 + 3);
  });

  it("recognises exactly the 26 evidence signals", () => {
    expect(isEvidenceSignal("siret_verified")).toBe(true);
    expect(isEvidenceSignal("company_age_years")).toBe(false);
    expect(isEvidenceSignal("nope")).toBe(false);
  });
});
