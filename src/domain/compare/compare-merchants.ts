import { ServiceError } from "../../errors/service-error.ts";
import type { DecisionCard, DecisionCardTrust } from "../../schemas/decision-card.ts";
import { formatPrice } from "../format.ts";
import { haversineKm } from "../geo.ts";
import { assembleDecisionCard } from "../registry/decision-card.ts";
import {
  describeCredentials,
  type LoadedMerchant,
  loadMerchant,
  type ResolveDeps,
} from "../registry/resolve-merchant.ts";
import { tradeOf } from "../sectors.ts";

/**
 * compare_merchants: two to five merchants side by side on what an agent weighs before choosing
 * one: trust (score and its four components), evidence (how much is verified, and by what kind of
 * proof), distance from a point, and what they sell. Every figure comes from the same assessment
 * and decision card logic the registry's other surfaces use.
 */

export const COMPARE_MIN = 2;
export const COMPARE_MAX = 5;
const PRODUCTS_PER_MERCHANT = 5;

export interface ComparePoint {
  lat: number;
  lng: number;
}

export interface ComparedMerchant {
  ab_id: string;
  name: string;
  city: string;
  sector: string;
  trade: string;
  merchant_status: string;
  trust: {
    score: number;
    trust_level: DecisionCardTrust["trust_level"];
    breakdown: DecisionCardTrust["breakdown"];
  };
  evidence: {
    verified_signals: number;
    official_source_verified: number;
    machine_consistent: number;
    merchant_declared: number;
    top_credentials: DecisionCard["verification_capsule"]["top_credentials"];
  };
  /** Kilometres from the given point, null when no point is given or the merchant is not geocoded. */
  distance_km: number | null;
  rating: number | null;
  review_count: number | null;
  products: { count: number; items: { id: string; name: string; price: string }[] };
  can_contact: boolean;
  blocked_because: string[];
}

export const COMPARE_CRITERIA = [
  "trust_score",
  "experience",
  "expertise",
  "authority",
  "trust",
  "verified_evidence",
  "distance_km",
  "rating",
  "products",
] as const;
export type CompareCriterion = (typeof COMPARE_CRITERIA)[number];

export interface Comparison {
  point: ComparePoint | null;
  merchants: ComparedMerchant[];
  /** For each criterion, the ab_ids with the best value (several on a tie; empty when nobody has a value). */
  leaders: Record<CompareCriterion, string[]>;
}

export interface CompareInput {
  abIds: string[];
  point?: ComparePoint | null;
}

/** Loads and compares; a well-formed unknown or archived ab_id is MERCHANT_NOT_FOUND naming every missing one. */
export async function compareMerchants(deps: ResolveDeps, input: CompareInput): Promise<Comparison> {
  const now = deps.now();
  const fixedDeps = { ...deps, now: () => now };
  const loaded: LoadedMerchant[] = [];
  const missing: string[] = [];
  for (const abId of input.abIds) {
    try {
      loaded.push(await loadMerchant(fixedDeps, abId));
    } catch (failure) {
      if (failure instanceof ServiceError && failure.code === "MERCHANT_NOT_FOUND") missing.push(abId);
      else throw failure;
    }
  }
  if (missing.length > 0) {
    throw new ServiceError(
      "MERCHANT_NOT_FOUND",
      `No active merchant has ab_id ${missing.join(", ")}; remove ${missing.length > 1 ? "them" : "it"} from ab_ids or find others with a search`,
      { abId: missing[0] ?? "" },
    );
  }
  return compareLoaded(loaded, {
    baseUrl: deps.baseUrl,
    orderRailEnabled: deps.orderRailEnabled,
    now,
    point: input.point ?? null,
  });
}

/** The comparison over already loaded merchants (pure). */
export function compareLoaded(
  loaded: readonly LoadedMerchant[],
  options: { baseUrl: string; orderRailEnabled: boolean; now: Date; point: ComparePoint | null },
): Comparison {
  const merchants = loaded.map((item) => compareOne(item, options));
  return { point: options.point, merchants, leaders: leaders(merchants) };
}

function compareOne(
  { profile, assessment }: LoadedMerchant,
  options: { baseUrl: string; orderRailEnabled: boolean; now: Date; point: ComparePoint | null },
): ComparedMerchant {
  const { merchant } = profile;
  const card = assembleDecisionCard(profile, assessment, options).decision_card;
  const credentials = describeCredentials(options.baseUrl, merchant.abId, profile.signals, assessment);
  const verified = credentials.filter((credential) => credential.status === "verified");
  const countProof = (proof: string) => verified.filter((credential) => credential.proof_status === proof).length;
  const proof = profile.territorialProof;
  const distance =
    options.point && proof?.latitude != null && proof.longitude != null
      ? roundKm(haversineKm(options.point, { lat: proof.latitude, lng: proof.longitude }))
      : null;
  return {
    ab_id: merchant.abId,
    name: merchant.businessName,
    city: merchant.city,
    sector: merchant.sector,
    trade: tradeOf(merchant)?.label ?? merchant.nafCode,
    merchant_status: merchant.status,
    trust: {
      score: assessment.trust.breakdown.total,
      trust_level: assessment.trustLevel,
      breakdown: { ...assessment.trust.breakdown },
    },
    evidence: {
      verified_signals: verified.length,
      official_source_verified: countProof("official_source_verified"),
      machine_consistent: countProof("machine_consistent"),
      merchant_declared: countProof("merchant_declared"),
      top_credentials: card.verification_capsule.top_credentials,
    },
    distance_km: distance,
    rating: merchant.listingRating,
    review_count: merchant.listingReviewCount,
    products: {
      count: profile.products.length,
      items: profile.products.slice(0, PRODUCTS_PER_MERCHANT).map((product) => ({
        id: product.productId,
        name: product.name,
        price: formatPrice(product),
      })),
    },
    can_contact: assessment.capabilities.state.can_contact,
    blocked_because: [...assessment.capabilities.state.blocked_because],
  };
}

type Direction = "max" | "min";

const CRITERIA: Record<CompareCriterion, { direction: Direction; value: (item: ComparedMerchant) => number | null }> = {
  trust_score: { direction: "max", value: (item) => item.trust.score },
  experience: { direction: "max", value: (item) => item.trust.breakdown.experience },
  expertise: { direction: "max", value: (item) => item.trust.breakdown.expertise },
  authority: { direction: "max", value: (item) => item.trust.breakdown.authority },
  trust: { direction: "max", value: (item) => item.trust.breakdown.trust },
  // Official proofs weigh most: counted first, machine checks break ties.
  verified_evidence: {
    direction: "max",
    value: (item) => item.evidence.official_source_verified * 1000 + item.evidence.machine_consistent,
  },
  distance_km: { direction: "min", value: (item) => item.distance_km },
  rating: { direction: "max", value: (item) => item.rating },
  products: { direction: "max", value: (item) => item.products.count },
};

function leaders(merchants: readonly ComparedMerchant[]): Record<CompareCriterion, string[]> {
  const result = {} as Record<CompareCriterion, string[]>;
  for (const criterion of COMPARE_CRITERIA) {
    const { direction, value } = CRITERIA[criterion];
    const values = merchants.flatMap((item) => {
      const observed = value(item);
      return observed === null ? [] : [{ abId: item.ab_id, observed }];
    });
    if (values.length === 0) {
      result[criterion] = [];
      continue;
    }
    const best =
      direction === "max"
        ? Math.max(...values.map((entry) => entry.observed))
        : Math.min(...values.map((entry) => entry.observed));
    result[criterion] = values.filter((entry) => entry.observed === best).map((entry) => entry.abId);
  }
  return result;
}

function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}
