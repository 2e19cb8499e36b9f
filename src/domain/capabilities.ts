import type { MerchantState, MerchantStatus } from "../schemas/envelope.ts";

/** The thresholds published in the decision card's trust object (spec, "Capability rules"). */
export const TRUST_THRESHOLDS = { basic: 10, order: 15, merchant_ready: 15, marketplace: 20, iax: 85 } as const;
export type ThresholdName = keyof typeof TRUST_THRESHOLDS;
/** Create-order precondition (spec, "Limits"): a separate, stricter rule than the `order` threshold. */
export const ORDER_MIN_TRUST = 55;

export interface CapabilityInput {
  status: MerchantStatus;
  trustScore: number;
  paymentSetup: boolean;
  descriptionLlmUnreviewed: boolean;
  hasContactChannel: boolean;
  brandVoicePublished: boolean;
  orderRailEnabled: boolean;
  /** An official source records the business closed (Merchant.closure): nothing more can be asked of it. */
  closed?: boolean;
}

export interface NextBestAction {
  code: string;
  title: string;
  impact: string;
  unblock_score_delta: number | null;
}

export interface Capabilities {
  state: MerchantState;
  canVerify: boolean;
  canViewBrand: boolean;
  /** Actions refused: contact, order, view_brand. */
  blockedActions: string[];
  /** Reasons behind refused contact and orders, plus brand_voice_not_declared. */
  actionabilityBlockedBecause: string[];
  /** Threshold reasons: the thresholds the score lies below. */
  trustReasons: string[];
  nextBestAction: NextBestAction | null;
}

const STATUS_REASON: Partial<Record<MerchantStatus, string>> = {
  PAUSED: "merchant_paused",
  SUSPENDED: "merchant_suspended",
  ARCHIVED: "merchant_archived",
};

/** Why a merchant an official source records closed is refused contact, leads and orders. */
export const CLOSED_REASON = "merchant_closed";

/**
 * The reasons that refuse contact, exactly the ones evaluateCapabilities gives for it; the other
 * reasons of `blocked_because` are about orders.
 */
export const CONTACT_REASONS: readonly string[] = [
  ...Object.values(STATUS_REASON),
  CLOSED_REASON,
  "description_llm_unreviewed",
  "trust_score_below_basic_threshold",
  "no_contact_channel",
];

/** Why contact is refused (CONTACT_DISABLED's blocked_because, the documents' notices); empty when it is not. */
export function contactBlockedBecause(state: MerchantState): string[] {
  if (state.can_contact) return [];
  return state.blocked_because.filter((reason) => CONTACT_REASONS.includes(reason));
}

export function thresholdReasons(score: number): string[] {
  return (Object.entries(TRUST_THRESHOLDS) as [ThresholdName, number][])
    .filter(([, threshold]) => score < threshold)
    .map(([name]) => `trust_score_below_${name}_threshold`);
}

/**
 * The merchant's capabilities from its status, trust and setup. Pure: every refusal names its
 * reason so `_state.blocked_because` and CONTACT_DISABLED can tell an agent why.
 */
export function evaluateCapabilities(input: CapabilityInput): Capabilities {
  const statusReason = STATUS_REASON[input.status];
  // What the merchant's standing refuses whatever its trust: its status, and a closure.
  const standingReasons = [...(statusReason ? [statusReason] : []), ...(input.closed ? [CLOSED_REASON] : [])];
  const contactReasons: string[] = [...standingReasons];
  if (input.descriptionLlmUnreviewed) contactReasons.push("description_llm_unreviewed");
  if (input.trustScore < TRUST_THRESHOLDS.basic) contactReasons.push("trust_score_below_basic_threshold");
  if (!input.hasContactChannel) contactReasons.push("no_contact_channel");
  const canContact = contactReasons.length === 0;
  // The merchant side of leads: can a lead be delivered, whatever the description review says?
  const canReceiveLeads =
    standingReasons.length === 0 && input.hasContactChannel && input.trustScore >= TRUST_THRESHOLDS.basic;

  const orderReadinessReasons: string[] = [...standingReasons];
  if (input.status !== "ACTIVE" && !statusReason) orderReadinessReasons.push("merchant_on_probation");
  if (input.trustScore < ORDER_MIN_TRUST) orderReadinessReasons.push("trust_score_below_order_minimum");
  if (!input.paymentSetup) orderReadinessReasons.push("payment_not_setup");
  const canReceiveOrders = orderReadinessReasons.length === 0;
  const orderReasons = [...(input.orderRailEnabled ? [] : ["order_rail_disabled"]), ...orderReadinessReasons];
  const canOrder = input.orderRailEnabled && canReceiveOrders;

  const canViewBrand = input.brandVoicePublished;
  const blockedActions = [
    ...(canContact ? [] : ["contact"]),
    ...(canOrder ? [] : ["order"]),
    ...(canViewBrand ? [] : ["view_brand"]),
  ];
  const blockedBecause = unique([...contactReasons, ...orderReasons]);

  return {
    state: {
      trust_score: input.trustScore,
      merchant_status: input.status,
      payment_setup: input.paymentSetup,
      can_receive_leads: canReceiveLeads,
      can_contact: canContact,
      can_receive_orders: canReceiveOrders,
      can_order: canOrder,
      blocked_because: blockedBecause,
    },
    canVerify: input.status !== "ARCHIVED",
    canViewBrand,
    blockedActions,
    actionabilityBlockedBecause: unique([...blockedBecause, ...(canViewBrand ? [] : ["brand_voice_not_declared"])]),
    trustReasons: thresholdReasons(input.trustScore),
    nextBestAction: nextBestAction(input, contactReasons),
  };
}

function nextBestAction(input: CapabilityInput, contactReasons: string[]): NextBestAction | null {
  if (input.closed) return null;
  if (contactReasons.includes("description_llm_unreviewed") && !STATUS_REASON[input.status]) {
    return {
      code: "review_description",
      title: "Review the generated description",
      impact: "unlocks_contact",
      unblock_score_delta: null,
    };
  }
  if (contactReasons.includes("trust_score_below_basic_threshold")) {
    return {
      code: "complete_verification",
      title: "Add verifiable evidence to reach the basic trust threshold",
      impact: "unlocks_contact",
      unblock_score_delta: TRUST_THRESHOLDS.basic - input.trustScore,
    };
  }
  if (!input.brandVoicePublished) {
    return {
      code: "declare_brand_voice",
      title: "Declare and publish a brand voice",
      impact: "unlocks_view_brand",
      unblock_score_delta: null,
    };
  }
  return null;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
