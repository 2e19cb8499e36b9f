import { describe, expect, it } from "vitest";
import {
  type CapabilityInput,
  contactBlockedBecause,
  evaluateCapabilities,
  thresholdReasons,
} from "../../src/domain/capabilities.ts";

const base: CapabilityInput = {
  status: "ACTIVE",
  trustScore: 60,
  paymentSetup: true,
  descriptionLlmUnreviewed: false,
  hasContactChannel: true,
  brandVoicePublished: true,
  orderRailEnabled: false,
};

describe("evaluateCapabilities", () => {
  it("lets an active merchant be contacted but keeps orders closed while the rail is closed", () => {
    const result = evaluateCapabilities(base);
    expect(result.state.can_contact).toBe(true);
    expect(result.state.can_receive_leads).toBe(true);
    expect(result.state.can_order).toBe(false);
    expect(result.state.can_receive_orders).toBe(true);
    expect(result.state.blocked_because).toEqual(["order_rail_disabled"]);
    expect(result.blockedActions).toEqual(["order"]);
  });

  it("opens orders with the rail open, trust 55 and payment set up", () => {
    const result = evaluateCapabilities({ ...base, orderRailEnabled: true });
    expect(result.state.can_order).toBe(true);
    expect(result.state.blocked_because).toEqual([]);
  });

  it("refuses orders below trust 55 or without payment, naming why", () => {
    const low = evaluateCapabilities({ ...base, orderRailEnabled: true, trustScore: 54 });
    expect(low.state.can_order).toBe(false);
    expect(low.state.blocked_because).toContain("trust_score_below_order_minimum");
    const unpaid = evaluateCapabilities({ ...base, orderRailEnabled: true, paymentSetup: false });
    expect(unpaid.state.blocked_because).toContain("payment_not_setup");
  });

  it("blocks contact for an unreviewed generated description and proposes the review", () => {
    const result = evaluateCapabilities({ ...base, descriptionLlmUnreviewed: true });
    expect(result.state.can_contact).toBe(false);
    expect(result.blockedActions).toContain("contact");
    expect(result.state.blocked_because).toContain("description_llm_unreviewed");
    expect(result.nextBestAction).toEqual({
      code: "review_description",
      title: expect.any(String),
      impact: "unlocks_contact",
      unblock_score_delta: null,
    });
  });

  it.each([
    ["PAUSED", "merchant_paused"],
    ["SUSPENDED", "merchant_suspended"],
    ["ARCHIVED", "merchant_archived"],
  ] as const)("blocks contact and orders for a %s merchant", (status, reason) => {
    const result = evaluateCapabilities({ ...base, status, orderRailEnabled: true });
    expect(result.state.can_contact).toBe(false);
    expect(result.state.can_order).toBe(false);
    expect(result.state.can_receive_leads).toBe(false);
    expect(result.state.blocked_because).toContain(reason);
  });

  it("lets a merchant on probation be contacted but not take orders", () => {
    const result = evaluateCapabilities({ ...base, status: "PROBATION", orderRailEnabled: true });
    expect(result.state.can_contact).toBe(true);
    expect(result.state.can_order).toBe(false);
    expect(result.state.blocked_because).toContain("merchant_on_probation");
  });

  it("blocks contact below the basic threshold with the points missing", () => {
    const result = evaluateCapabilities({ ...base, trustScore: 7 });
    expect(result.state.can_contact).toBe(false);
    expect(result.state.blocked_because).toContain("trust_score_below_basic_threshold");
    expect(result.nextBestAction?.unblock_score_delta).toBe(3);
  });

  it("blocks the brand view when no brand voice is published", () => {
    const result = evaluateCapabilities({ ...base, brandVoicePublished: false });
    expect(result.canViewBrand).toBe(false);
    expect(result.blockedActions).toContain("view_brand");
    expect(result.actionabilityBlockedBecause).toContain("brand_voice_not_declared");
    expect(result.state.blocked_because).not.toContain("brand_voice_not_declared");
  });
});

describe("thresholdReasons", () => {
  it("names the thresholds the score lies below", () => {
    expect(thresholdReasons(50)).toEqual(["trust_score_below_iax_threshold"]);
    expect(thresholdReasons(18)).toEqual([
      "trust_score_below_marketplace_threshold",
      "trust_score_below_iax_threshold",
    ]);
    expect(thresholdReasons(0)).toHaveLength(5);
    expect(thresholdReasons(85)).toEqual([]);
  });
});

describe("contactBlockedBecause, the one rule of why contact is refused", () => {
  it("names the contact reasons only, and nothing while contact is open", () => {
    const paused = evaluateCapabilities({ ...base, status: "PAUSED", paymentSetup: false });
    expect(paused.state.blocked_because).toEqual(["merchant_paused", "order_rail_disabled", "payment_not_setup"]);
    expect(contactBlockedBecause(paused.state)).toEqual(["merchant_paused"]);
    const open = evaluateCapabilities({ ...base, paymentSetup: false });
    expect(open.state.can_contact).toBe(true);
    expect(contactBlockedBecause(open.state)).toEqual([]);
  });
});
