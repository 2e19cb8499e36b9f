import { describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { nextAnniversary, yearsBetween } from "../../src/domain/calendar.ts";
import { checkTransition } from "../../src/domain/merchants/lifecycle.ts";
import { computeTrust } from "../../src/domain/trust/compute-trust.ts";
import {
  identityVerifiedAt,
  signalChangesAt,
  signalCountsAt,
  signalStatusAt,
  signalValueAt,
} from "../../src/domain/trust/signal-expiry.ts";

/** The rule every surface reads: what a signal says at an instant (src/domain/trust/signal-expiry.ts). */

const identity = (expiresAt: string | null, status = "verified") => ({
  key: "siret_verified",
  status,
  value: true,
  expiresAt,
});
const merchant = {
  abId: "ab_plomb001",
  status: "PROBATION" as const,
  sector: "batiment",
  email: null,
  paymentSetup: false,
  descriptionLlmUnreviewed: false,
  brandVoice: null,
  closure: null,
};

describe("a signal at an instant", () => {
  const expiry = "2021-11-29T00:00:00.000Z";

  it("counts a verified signal until its expiry instant, and reads it expired from that instant on", () => {
    expect(signalStatusAt(identity(expiry), "2021-11-28T23:59:59.999Z")).toBe("verified");
    expect(signalCountsAt(identity(expiry), "2021-11-28T23:59:59.999Z")).toBe(true);
    expect(signalStatusAt(identity(expiry), expiry)).toBe("expired");
    expect(signalCountsAt(identity(expiry), expiry)).toBe(false);
    expect(signalStatusAt(identity(null), "2099-01-01T00:00:00.000Z")).toBe("verified");
    // A failed check stays failed, expired or not; it never counts.
    expect(signalStatusAt(identity(expiry, "failed"), "2030-01-01T00:00:00.000Z")).toBe("failed");
    expect(signalCountsAt(identity(null, "failed"), "2020-01-01T00:00:00.000Z")).toBe(false);
  });

  it("says the identity is verified only while its check is current", () => {
    const signals = [identity(expiry), { key: "bodacc_clean", status: "verified", value: true, expiresAt: null }];
    expect(identityVerifiedAt(signals, "2021-11-01T00:00:00.000Z")).toBe(true);
    expect(identityVerifiedAt(signals, "2026-11-26T00:00:00.000Z")).toBe(false);
  });

  it("drops the merchant to declared at the instant its identity check expires, and says when beforehand", () => {
    const signals = [identity(expiry)];
    const before = assessMerchant(merchant, signals, {
      orderRailEnabled: false,
      now: new Date("2021-11-28T12:00:00Z"),
    });
    expect(before.trustLevel).toBe("verified");
    expect(before.validUntil).toBe(expiry);
    expect(before.trust.contributions.map((item) => item.signal)).toEqual(["siret_verified"]);
    const after = assessMerchant(merchant, signals, { orderRailEnabled: false, now: new Date(expiry) });
    expect(after.trustLevel).toBe("declared");
    expect(after.validUntil).toBeNull();
    expect(after.trust.breakdown.total).toBe(0);
    expect(after.assessedAt).toBe(expiry);
  });

  it("refuses ACTIVE without a current identity check, whatever the status the merchant had", () => {
    const facts = (at: string) => ({
      identityVerified: identityVerifiedAt([identity(expiry)], at),
      descriptionReviewed: true,
      reason: null,
    });
    expect(checkTransition("PROBATION", "ACTIVE", facts("2021-11-01T00:00:00.000Z"))).toEqual({ allowed: true });
    expect(checkTransition("PROBATION", "ACTIVE", facts("2026-11-26T00:00:00.000Z"))).toEqual({
      allowed: false,
      reason: "PROBATION -> ACTIVE: the identity is not verified (siret_verified)",
    });
    expect(checkTransition("PAUSED", "ACTIVE", facts(expiry)).allowed).toBe(false);
  });
});

describe("a company's age, read at the instant", () => {
  const age = {
    key: "company_age_years",
    status: "verified",
    value: "2005-12-06",
    expiresAt: "2027-01-01T00:00:00.000Z",
  };

  it("is recorded as the creation date and counted in whole years when read", () => {
    expect(signalValueAt(age, new Date("2026-11-26T10:00:00Z"))).toBe(20);
    expect(signalValueAt(age, new Date("2026-12-06T00:00:00Z"))).toBe(21);
    // A value recorded as years (before the date was kept) reads as it is.
    expect(signalValueAt({ key: "company_age_years", value: 7 }, new Date("2026-11-26T10:00:00Z"))).toBe(7);
    expect(signalValueAt({ key: "siret_verified", value: true }, new Date())).toBe(true);
  });

  it("earns its points at the instant of reading: 20 years on the twentieth anniversary, not at the import", () => {
    const points = (at: string) =>
      computeTrust([{ ...age, value: "2006-12-06" }], "batiment", new Date(at)).contributions[0]?.points;
    expect(points("2026-12-05T23:59:59Z")).toBe(9);
    expect(points("2026-12-06T00:00:00Z")).toBe(12);
  });

  it("changes on its next anniversary or its expiry, whichever comes first", () => {
    expect(signalChangesAt(age, new Date("2026-11-26T10:00:00Z"))).toBe("2026-12-06T00:00:00.000Z");
    expect(signalChangesAt(age, new Date("2026-12-07T00:00:00Z"))).toBe("2027-01-01T00:00:00.000Z");
    expect(signalChangesAt(identity("2027-01-01T00:00:00.000Z"), new Date("2028-01-01T00:00:00Z"))).toBeNull();
  });
});

describe("calendar", () => {
  it("yearsBetween counts whole years and moves on the anniversary only", () => {
    expect(yearsBetween("2014-03-01", new Date("2026-02-28T23:59:59Z"))).toBe(11);
    expect(yearsBetween("2014-03-01", new Date("2026-03-01T00:00:00Z"))).toBe(12);
    expect(yearsBetween("2030-01-01", new Date("2026-03-01T00:00:00Z"))).toBe(0);
  });

  it("nextAnniversary is the next one strictly after the instant", () => {
    expect(nextAnniversary("2005-12-06", new Date("2026-11-26T00:00:00Z"))).toBe("2026-12-06T00:00:00.000Z");
    expect(nextAnniversary("2005-12-06", new Date("2026-12-06T00:00:00Z"))).toBe("2027-12-06T00:00:00.000Z");
    expect(nextAnniversary("not a date", new Date())).toBeNull();
  });
});
