/**
 * What the sweep of trust changes reads as a change (src/domain/trust/trust-sweep.ts), as pure
 * rules: the dates whose anniversary falls at a midnight (calendar.ts), the company ages that move
 * the points that day (signal-expiry.ts calendarStepsAt), and whether a merchant's trust total or
 * identity reads otherwise within a stretch of time (trustReadsOtherwise). The sweep over a store,
 * on both engines: trust-sweep-engines.test.ts.
 */
import { describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { datesWithAnniversaryAt, isUtcMidnight, nextAnniversary, nextUtcMidnight } from "../../src/domain/calendar.ts";
import type { ScorableSignal } from "../../src/domain/trust/compute-trust.ts";
import { calendarStepsAt, nextSignalChange } from "../../src/domain/trust/signal-expiry.ts";
import { trustReadsOtherwise } from "../../src/domain/trust/trust-sweep.ts";

const verified = (key: string, value: ScorableSignal["value"], expiresAt: string | null = null): ScorableSignal => ({
  key,
  status: "verified",
  value,
  expiresAt,
});

describe("the calendar's steps", () => {
  it("fall on UTC midnights: the next one after an instant, and whether an instant is one", () => {
    expect(nextUtcMidnight(new Date("2026-06-01T12:34:56.789Z"))).toBe("2026-06-02T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2026-06-01T00:00:00.000Z"))).toBe("2026-06-02T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2026-12-31T23:59:59.999Z"))).toBe("2027-01-01T00:00:00.000Z");
    expect(isUtcMidnight("2026-06-02T00:00:00.000Z")).toBe(true);
    expect(isUtcMidnight("2026-06-02T00:00:00.001Z")).toBe(false);
  });

  it("are the dates whose anniversary is that midnight, as nextAnniversary reads them, 29 February included", () => {
    expect(datesWithAnniversaryAt(new Date("2026-06-02T00:00:00.000Z"), 3)).toEqual([
      "2025-06-02",
      "2024-06-02",
      "2023-06-02",
    ]);
    // 1 March of a common year: 29 February's anniversary moves there.
    const march = new Date("2027-03-01T00:00:00.000Z");
    expect(datesWithAnniversaryAt(march, 4)).toEqual([
      "2026-03-01",
      "2025-03-01",
      "2024-03-01",
      "2024-02-29",
      "2023-03-01",
    ]);
    expect(nextAnniversary("2024-02-29", new Date("2027-02-28T23:59:59.999Z"))).toBe(march.toISOString());
    // In a leap year, 29 February is its own day.
    expect(datesWithAnniversaryAt(new Date("2028-03-01T00:00:00.000Z"), 4)).not.toContain("2024-02-29");
    expect(datesWithAnniversaryAt(new Date("2028-02-29T00:00:00.000Z"), 4)).toEqual(["2024-02-29"]);
  });

  it("that move trust are a company turning 2, 5, 10 or 20 that day (the ages where its points change)", () => {
    expect(calendarStepsAt(new Date("2026-06-02T00:00:00.000Z"))).toEqual([
      { key: "company_age_years", values: ["2024-06-02", "2021-06-02", "2016-06-02", "2006-06-02"] },
    ]);
    // A company founded on 29 February 2024 turns 5 on 1 March 2029.
    expect(calendarStepsAt(new Date("2029-03-01T00:00:00.000Z"))).toEqual([
      {
        key: "company_age_years",
        values: ["2027-03-01", "2024-03-01", "2024-02-29", "2019-03-01", "2009-03-01"],
      },
    ]);
  });
});

describe("a merchant's trust reads otherwise within a stretch of time", () => {
  const expiry = "2026-06-01T10:00:00.000Z";
  const identity = [verified("siret_verified", true, expiry), verified("company_age_years", "2001-03-01", expiry)];

  it("when a counted signal expires in it, not before nor after it", () => {
    expect(trustReadsOtherwise(identity, "alimentation", "2026-06-01T09:59:00.000Z", expiry)).toBe(true);
    expect(trustReadsOtherwise(identity, "alimentation", "2026-06-01T09:00:00.000Z", "2026-06-01T09:59:59.999Z")).toBe(
      false,
    );
    expect(trustReadsOtherwise(identity, "alimentation", expiry, "2026-06-01T11:00:00.000Z")).toBe(false);
  });

  it("when a company's age reaches a step in it, not on an anniversary that moves no point", () => {
    const age = [verified("siret_verified", true), verified("company_age_years", "2016-06-02")];
    expect(trustReadsOtherwise(age, "alimentation", "2026-06-01T23:59:00.000Z", "2026-06-02T00:00:00.000Z")).toBe(true);
    const eleven = [verified("siret_verified", true), verified("company_age_years", "2015-06-02")];
    expect(trustReadsOtherwise(eleven, "alimentation", "2026-06-01T23:59:00.000Z", "2026-06-02T00:00:00.000Z")).toBe(
      false,
    );
  });

  it("not when the expiring signal counted for nothing: past its component's cap, or outside the merchant's sector", () => {
    // The trust component holds 27 points for 25 counted: 2 expiring leave it at 25.
    const capped = [
      verified("siret_verified", true),
      verified("bodacc_clean", true),
      verified("rne_verified", true),
      verified("territorial_address_verified", true),
      verified("officer_identity", true),
      verified("contact_email_verified", true),
      verified("contact_verified", true),
      verified("ab_account_verified", true, expiry),
    ];
    const at = (iso: string) => assessMerchantTotal(capped, "alimentation", iso);
    expect([at("2026-06-01T09:00:00.000Z"), at(expiry)]).toEqual([25, 25]);
    expect(trustReadsOtherwise(capped, "alimentation", "2026-06-01T09:00:00.000Z", expiry)).toBe(false);
    // A financial guarantee counts for estate agents and tourism, not for a bakery.
    const elsewhere = [verified("siret_verified", true), verified("garantie_financiere_declared", true, expiry)];
    expect(trustReadsOtherwise(elsewhere, "alimentation", "2026-06-01T09:00:00.000Z", expiry)).toBe(false);
    expect(trustReadsOtherwise(elsewhere, "immobilier", "2026-06-01T09:00:00.000Z", expiry)).toBe(true);
  });

  it("when two changes inside it cancel out between its ends (a copy built between them holds the middle)", () => {
    // At midnight the company turns 20 (+3: 9 -> 12); three points expire a second later.
    const signals = [
      verified("siret_verified", true),
      verified("company_age_years", "2006-06-02"),
      verified("rne_verified", true, "2026-06-02T00:00:01.000Z"),
    ];
    const from = "2026-06-01T23:59:00.000Z";
    const until = "2026-06-02T00:00:01.000Z";
    expect(assessMerchantTotal(signals, "alimentation", from)).toBe(
      assessMerchantTotal(signals, "alimentation", until),
    );
    expect(trustReadsOtherwise(signals, "alimentation", from, until)).toBe(true);
  });

  it("reads each change where the assessment says its validity ends (nextSignalChange)", () => {
    const now = new Date("2026-06-01T09:00:00.000Z");
    expect(nextSignalChange(identity, now)).toBe(expiry);
    expect(
      assessMerchant(
        {
          abId: "ab_x",
          status: "ACTIVE",
          sector: "alimentation",
          email: null,
          paymentSetup: false,
          descriptionLlmUnreviewed: false,
          brandVoice: null,
          closure: null,
        },
        identity,
        { orderRailEnabled: false, now },
      ).validUntil,
    ).toBe(expiry);
  });
});

function assessMerchantTotal(signals: readonly ScorableSignal[], sector: string, at: string): number {
  return assessMerchant(
    {
      abId: "ab_x",
      status: "ACTIVE",
      sector,
      email: null,
      paymentSetup: false,
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      closure: null,
    },
    signals,
    { orderRailEnabled: false, now: new Date(at) },
  ).trust.breakdown.total;
}
