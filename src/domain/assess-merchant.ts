import { type Capabilities, evaluateCapabilities, TRUST_THRESHOLDS } from "./capabilities.ts";
import type { Merchant } from "./merchant.ts";
import { computeTrust, type ScorableSignal, type TrustResult } from "./trust/compute-trust.ts";

export interface Assessment {
  trust: TrustResult;
  /** certified: identity verified and trust at merchant_ready or more; verified: identity only; declared: neither. */
  trustLevel: "certified" | "verified" | "declared";
  capabilities: Capabilities;
  /**
   * When this assessment stops being right by itself, with no write to the store: the earliest
   * expiry, after `now`, among the signals (an expired signal stops counting). Null: never.
   */
  validUntil: string | null;
}

/** What an assessment reads of a merchant: lead creation loads no more than this. */
export type AssessableMerchant = Pick<
  Merchant,
  "abId" | "status" | "sector" | "email" | "paymentSetup" | "descriptionLlmUnreviewed" | "brandVoice"
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
  const identityVerified = signals.some((signal) => signal.key === "siret_verified" && signal.status === "verified");
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
  });
  const nowIso = options.now.toISOString();
  let validUntil: string | null = null;
  for (const signal of signals) {
    const expiry = signal.expiresAt;
    if (expiry && expiry > nowIso && (validUntil === null || expiry < validUntil)) validUntil = expiry;
  }
  return { trust, trustLevel, capabilities, validUntil };
}
