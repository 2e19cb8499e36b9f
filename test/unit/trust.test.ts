import { describe, expect, it } from "vitest";
import { sectors } from "../../src/domain/sectors.ts";
import { computeTrust, type ScorableSignal } from "../../src/domain/trust/compute-trust.ts";
import { EVIDENCE_SIGNALS, signalCatalog, signalDefinition } from "../../src/domain/trust/signal-catalog.ts";
import { isSignalExpired } from "../../src/domain/trust/signal-expiry.ts";

const now = new Date("2026-11-01T00:00:00Z");
const verified = (key: string, value: ScorableSignal["value"] = true): ScorableSignal => ({
  key,
  status: "verified",
  value,
});

describe("the signal catalog", () => {
  it("serves evidence for exactly the spec's 26 signals", () => {
    expect(EVIDENCE_SIGNALS).toHaveLength(26);
    const evidence = signalCatalog.filter((definition) => definition.evidence).map((definition) => definition.key);
    expect(new Set(evidence)).toEqual(new Set(EVIDENCE_SIGNALS));
  });

  it("lists the spec's credential keys as credentials", () => {
    const credentials = signalCatalog.filter((definition) => definition.credential).map((definition) => definition.key);
    for (const key of [
      "siret_verified",
      "company_age_years",
      "contact_email_verified",
      "contact_verified",
      "bodacc_clean",
      "listing_review_count",
      "listing_rating",
      "has_products",
      "cgv_published",
      "ab_account_verified",
      "rgpd_compliant",
      "brick_completeness",
      "mentions_legales_complete",
      "ia_act_compliant",
      "privacy_policy_valid",
      "product_depth_score",
      "has_terms_brick",
    ]) {
      expect(credentials).toContain(key);
    }
  });

  it("has unique keys", () => {
    const keys = signalCatalog.map((definition) => definition.key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("computeTrust", () => {
  it("scores nothing without signals", () => {
    expect(computeTrust([], "batiment", now).breakdown).toEqual({
      experience: 0,
      expertise: 0,
      authority: 0,
      trust: 0,
      total: 0,
    });
  });

  it("adds each verified signal's points to its component", () => {
    const { breakdown, contributions } = computeTrust(
      [verified("siret_verified"), verified("company_age_years", 12), verified("listing_rating", 4.6)],
      "batiment",
      now,
    );
    expect(breakdown).toEqual({ experience: 9, expertise: 0, authority: 5, trust: 8, total: 22 });
    expect(contributions.map((contribution) => contribution.signal)).toEqual([
      "siret_verified",
      "company_age_years",
      "listing_rating",
    ]);
  });

  it("ignores unverified, failed and expired signals", () => {
    const { breakdown } = computeTrust(
      [
        { key: "siret_verified", status: "unverified", value: true },
        { key: "bodacc_clean", status: "failed", value: false },
        { key: "rne_verified", status: "verified", value: true, expiresAt: "2026-10-01T00:00:00Z" },
      ],
      "batiment",
      now,
    );
    expect(breakdown.total).toBe(0);
  });

  it("ignores sector signals outside their sectors", () => {
    expect(computeTrust([verified("orias_registered")], "batiment", now).breakdown.total).toBe(0);
    expect(computeTrust([verified("orias_registered")], "assurance", now).breakdown.expertise).toBe(4);
  });

  it("ignores keys the catalog does not know", () => {
    expect(computeTrust([verified("made_up_signal")], "batiment", now).breakdown.total).toBe(0);
  });

  it("caps each component at 25 and records what counted", () => {
    const trustSignals = signalCatalog
      .filter((definition) => definition.component === "trust")
      .map((d) => verified(d.key));
    const { breakdown, contributions } = computeTrust(trustSignals, "batiment", now);
    expect(breakdown.trust).toBe(25);
    const counted = contributions.reduce((sum, contribution) => sum + contribution.counted, 0);
    expect(counted).toBe(25);
    expect(contributions.some((contribution) => contribution.counted < contribution.points)).toBe(true);
  });

  it("gives the same result whatever the order of the signals", () => {
    const signals = signalCatalog.map((definition) => verified(definition.key, 5));
    const forward = computeTrust(signals, "assurance", now);
    const backward = computeTrust([...signals].reverse(), "assurance", now);
    expect(backward).toEqual(forward);
  });

  it("lets a merchant of every sector reach 100, and never more", () => {
    const signals = signalCatalog.map((definition) => verified(definition.key, 1000));
    for (const sector of Object.keys(sectors)) {
      expect(computeTrust(signals, sector, now).breakdown.total).toBe(100);
    }
  });

  it("follows the stepped rules for age, reviews and ratings", () => {
    const age = signalDefinition("company_age_years");
    expect([0.5, 2, 5, 10, 20].map((years) => age?.points(years))).toEqual([1, 3, 6, 9, 12]);
    const rating = signalDefinition("listing_rating");
    expect([3.4, 3.5, 4, 4.5].map((value) => rating?.points(value))).toEqual([0, 2, 4, 5]);
    const completeness = signalDefinition("brick_completeness");
    expect([0, 0.5, 1, 7, -1].map((value) => completeness?.points(value))).toEqual([0, 3, 5, 5, 0]);
  });
});

describe("isSignalExpired, the one expiry rule", () => {
  it("counts a signal expired from its expiry instant on, and one without expiry never", () => {
    const at = "2026-11-24T10:00:00.000Z";
    expect(isSignalExpired({ expiresAt: at }, "2026-11-24T09:59:59.999Z")).toBe(false);
    expect(isSignalExpired({ expiresAt: at }, at)).toBe(true);
    expect(isSignalExpired({ expiresAt: null }, "2999-01-01T00:00:00.000Z")).toBe(false);
  });
});
