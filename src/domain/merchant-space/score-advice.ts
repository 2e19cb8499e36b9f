import { assessMerchant } from "../assess-merchant.ts";
import type { Merchant, Signal } from "../merchant.ts";
import {
  COMPONENT_MAX,
  type SignalSource,
  signalApplies,
  signalCatalog,
  type TrustComponent,
} from "../trust/signal-catalog.ts";

/**
 * The merchant's trust score as agents read it, and what would raise it: each signal of the
 * catalog (src/domain/trust/signal-catalog.ts) that applies to its trade and does not count yet,
 * in a component that still has room, with who can prove it. What only an official source proves
 * is said so, and nothing in the space edits it; what the platform observes names the part of the
 * space whose information it observes, when there is one.
 */
export type ProvenBy = "official" | "platform" | "merchant";

export interface ScoreStep {
  signal: string;
  labelFr: string;
  component: TrustComponent;
  /** Points the component can still take (its cap is 25): the most this signal could add. */
  room: number;
  provenBy: ProvenBy;
  /** The part of the space that feeds it (an anchor of the listing's page), or null. */
  spaceSection: SpaceSection | null;
}

export type SpaceSection = "coordonnees" | "e-mail" | "produits" | "voix";

export interface ScoreAdvice {
  total: number;
  level: "certified" | "verified" | "declared";
  breakdown: Record<TrustComponent, number>;
  steps: ScoreStep[];
}

/** The signals whose evidence is something the merchant fills in from its space. */
const SPACE_SECTIONS: Readonly<Record<string, SpaceSection>> = {
  contact_verified: "coordonnees",
  website_present: "coordonnees",
  contact_email_verified: "e-mail",
  has_products: "produits",
  brick_completeness: "produits",
  product_depth_score: "produits",
  brand_voice_declared: "voix",
  brand_voice_consistency: "voix",
};

const PROVEN_BY: Record<SignalSource, ProvenBy> = {
  official_api: "official",
  official_file: "official",
  platform_observed: "platform",
  merchant_declared: "merchant",
};

export function scoreAdvice(merchant: Merchant, signals: readonly Signal[], now: Date): ScoreAdvice {
  const assessment = assessMerchant(merchant, signals, { orderRailEnabled: false, now });
  const { breakdown, contributions } = assessment.trust;
  const counting = new Set(contributions.filter((item) => item.counted > 0).map((item) => item.signal));
  const steps = signalCatalog.flatMap((definition): ScoreStep[] => {
    if (counting.has(definition.key) || !signalApplies(definition, merchant.sector)) return [];
    const room = COMPONENT_MAX - breakdown[definition.component];
    if (room <= 0) return [];
    return [
      {
        signal: definition.key,
        labelFr: definition.labelFr,
        component: definition.component,
        room,
        provenBy: PROVEN_BY[definition.source],
        spaceSection: SPACE_SECTIONS[definition.key] ?? null,
      },
    ];
  });
  const { total, ...components } = breakdown;
  return { total, level: assessment.trustLevel, breakdown: components, steps };
}
