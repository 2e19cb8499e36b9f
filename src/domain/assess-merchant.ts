import { type Capabilities, evaluateCapabilities, TRUST_THRESHOLDS } from "./capabilities.ts";
import type { Merchant } from "./merchant.ts";
import { computeTrust, type ScorableSignal, type TrustResult } from "./trust/compute-trust.ts";
import { identityVerifiedAt, nextSignalChange } from "./trust/signal-expiry.ts";

export interface Assessment {
  trust: TrustResult;
  /** certified: identity verified and trust at merchant_ready or more; verified: identity only; declared: neither. */
  trustLevel: "certified" | "verified" | "declared";
  capabilities: Capabilities;
  /**
   * When this assessment stops being right by itself, with no write to the store: the earliest
   * expiry or calendar step, after `now`, among the signals (an expired signal stops counting, a
   * company's age moves on its anniversary). Null: never.
   */
  validUntil: string | null;
  /** The instant it was made at: what every part of an answer built from it reads signals at. */
  assessedAt: string;
}

/** What an assessment reads of a merchant: lead creation loads no more than this. */
export type AssessableMerchant = Pick<
  Merchant,
  "abId" | "status" | "sector" | "email" | "paymentSetup" | "descriptionLlmUnreviewed" | "brandVoice" | "closure"
>;

export interface AssessOptions {
  orderRailEnabled: boolean;
  now: Date;
}

/** Trust and capabilities of one merchant: what every read surface shows about it. */
export function assessMerchant(
  merchant: AssessableMerchant,
  signals: readonly ScorableSignal[],
  options: AssessOptions,
): Assessment {
  const trust = computeTrust(signals, merchant.sector, options.now);
  const nowIso = options.now.toISOString();
  const identityVerified = identityVerifiedAt(signals, nowIso);
  const trustLevel = !identityVerified
    ? "declared"
    : trust.breakdown.total >= TRUST_THRESHOLDS.merchant_ready
      ? "certified"
      : "verified";
  const capabilities = evaluateCapabilities({
    status: merchant.status,
    trustScore: trust.breakdown.total,
    paymentSetup: merchant.paymentSetup,
    descriptionLlmUnreviewed: merchant.descriptionLlmUnreviewed,
    hasContactChannel: merchant.email !== null,
    brandVoicePublished: merchant.brandVoice?.is_published === true,
    orderRailEnabled: options.orderRailEnabled,
    closed: merchant.closure !== null,
  });
  const validUntil = nextSignalChange(signals, options.now);
  return { trust, trustLevel, capabilities, validUntil, assessedAt: nowIso };
}
