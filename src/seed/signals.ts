/**
 * Credentials and evidence signals for a demo merchant, drawn so that trust scores spread from
 * 0 to about 90 and every signal agrees with the merchant's facts (no website_present without a
 * website, no sector signal outside its sectors). Scores are always computed by computeTrust.
 */
import type { Signal } from "../domain/merchant.ts";
import { computeTrust } from "../domain/trust/compute-trust.ts";
import {
  proofStatusFor,
  type SignalDefinition,
  type SignalValue,
  signalApplies,
  signalCatalog,
} from "../domain/trust/signal-catalog.ts";
import { isoString as iso, type Rng } from "./prng.ts";

const DAY = 86_400_000;

/** What the signals must agree with. */
export interface SignalFacts {
  sector: string;
  siren: string;
  siret: string;
  website: string | null;
  listingUrl: string | null;
  emailOnDomain: boolean;
  hasEmail: boolean;
  hasPhone: boolean;
  hasBrandVoice: boolean;
  brandPublished: boolean;
  hasDescription: boolean;
  terrainPhotos: number;
  yearsInBusiness: number;
  listingRating: number | null;
  listingReviewCount: number | null;
  productCount: number;
  /** Share of product fields filled (price, image, external link), 0 to 1. */
  completeness: number;
}

/** How common a signal is among merchants with an average profile (0 rare, 1 universal). */
const EASE: Record<string, number> = {
  siret_verified: 0.95,
  bodacc_clean: 0.85,
  rne_verified: 0.7,
  territorial_address_verified: 0.85,
  officer_identity: 0.45,
  officer_email_verified: 0.5,
  contact_email_verified: 0.7,
  contact_verified: 0.65,
  ab_account_verified: 0.6,
  cgv_published: 0.5,
  rgpd_compliant: 0.5,
  mentions_legales_complete: 0.45,
  ia_act_compliant: 0.3,
  privacy_policy_valid: 0.5,
  company_age_years: 0.9,
  listing_review_count: 0.8,
  external_review_received: 0.4,
  terrain_media_snapshot: 0.6,
  has_products: 0.9,
  brick_completeness: 0.7,
  product_depth_score: 0.6,
  has_terms_brick: 0.35,
  compliance_documents: 0.4,
  schema_org_valid: 0.4,
  multi_protocol_ready: 0.5,
  rcp_declared: 0.55,
  garantie_financiere_declared: 0.6,
  orias_registered: 0.8,
  association_agreee_acpr_declared: 0.5,
  alimconfiance_score: 0.6,
  listing_verified: 0.7,
  listing_rating: 0.8,
  reviewsite_rating: 0.45,
  website_present: 0.9,
  embed_script_detected: 0.3,
  identity_name_match: 0.65,
  email_domain_match: 0.8,
  brand_voice_declared: 0.9,
  brand_voice_consistency: 0.5,
  positioning_clarity: 0.55,
};

const WEBSITE_SIGNALS = new Set([
  "website_present",
  "embed_script_detected",
  "schema_org_valid",
  "privacy_policy_valid",
  "cgv_published",
  "mentions_legales_complete",
]);

function possible(key: string, facts: SignalFacts): boolean {
  if (WEBSITE_SIGNALS.has(key)) return facts.website !== null;
  switch (key) {
    case "email_domain_match":
      return facts.emailOnDomain && facts.website !== null;
    case "contact_email_verified":
      return facts.hasEmail;
    case "contact_verified":
      return facts.hasPhone;
    case "brand_voice_declared":
      return facts.hasBrandVoice;
    case "brand_voice_consistency":
      return facts.hasBrandVoice && facts.brandPublished;
    case "terrain_media_snapshot":
      return facts.terrainPhotos > 0;
    case "listing_verified":
    case "listing_rating":
    case "listing_review_count":
      return facts.listingRating !== null;
    case "positioning_clarity":
      return facts.hasDescription;
    case "has_products":
    case "brick_completeness":
    case "product_depth_score":
      return facts.productCount > 0;
    default:
      return true;
  }
}

function valueFor(key: string, facts: SignalFacts, rng: Rng): SignalValue {
  switch (key) {
    case "company_age_years":
      return facts.yearsInBusiness;
    case "listing_rating":
      return facts.listingRating;
    case "listing_review_count":
      return facts.listingReviewCount;
    case "reviewsite_rating": {
      const base = facts.listingRating ?? rng.float(3, 5);
      return Math.round(Math.min(5, Math.max(1, base + rng.float(-0.4, 0.3))) * 10) / 10;
    }
    case "brick_completeness":
      return Math.round(facts.completeness * 100) / 100;
    case "product_depth_score":
      return Math.round(Math.min(1, facts.productCount / 8) * 100) / 100;
    case "alimconfiance_score":
      return rng.pick([2, 3, 3, 4, 4, 4]);
    default:
      return true;
  }
}

function sourceUrlFor(definition: SignalDefinition, facts: SignalFacts): string | null {
  if (definition.sourceUrlTemplate) {
    return definition.sourceUrlTemplate.replace("{siren}", facts.siren).replace("{siret}", facts.siret);
  }
  if (WEBSITE_SIGNALS.has(definition.key) || definition.key === "email_domain_match") return facts.website;
  if (definition.key.startsWith("listing_")) return facts.listingUrl;
  return null;
}

export interface SignalPlan {
  signals: Signal[];
  trust: number;
}

/** Plans signals for one sector; build one per sector and reuse it. */
export class SignalPlanner {
  private readonly definitions: SignalDefinition[];
  private readonly now: number;

  constructor(sector: string, now: number) {
    this.now = now;
    this.definitions = signalCatalog.filter((definition) => signalApplies(definition, sector));
  }

  /**
   * Draws signals for a merchant at `level` (0 = almost nothing verified, 1 = nearly everything),
   * then adds or removes verified signals until the score lies in [min, max]. `given` signals
   * (what the official files will prove of every merchant) are kept as they are and counted.
   */
  plan(facts: SignalFacts, level: number, rng: Rng, min = 0, max = 100, given: readonly Signal[] = []): SignalPlan {
    const fixed = new Set(given.map((signal) => signal.key));
    const signals: Signal[] = [...given];
    for (const definition of this.definitions) {
      if (fixed.has(definition.key) || !possible(definition.key, facts)) continue;
      const ease = EASE[definition.key] ?? 0.5;
      const probability = Math.min(1, Math.max(0, level * 1.25 + (ease - 0.5) * 0.7 - 0.12));
      if (!rng.chance(probability)) continue;
      const roll = rng.next();
      const status = roll < 0.93 ? "verified" : roll < 0.96 ? "unverified" : roll < 0.98 ? "failed" : "expired";
      // BODACC speaks of a company only when it has news: its check is clean or failed, never pending.
      if (definition.key === "bodacc_clean" && status !== "verified" && status !== "failed") continue;
      signals.push(this.signal(definition, facts, status, rng));
    }
    let trust = this.score(signals, facts.sector);
    if (trust < min) {
      for (const definition of this.definitions) {
        if (trust >= min) break;
        if (fixed.has(definition.key) || !possible(definition.key, facts)) continue;
        const index = signals.findIndex((signal) => signal.key === definition.key);
        if (index >= 0 && signals[index]?.status === "verified") continue;
        const added = this.signal(definition, facts, "verified", rng);
        if (index >= 0) signals[index] = added;
        else signals.push(added);
        trust = this.score(signals, facts.sector);
      }
    }
    while (trust > max) {
      const contributions = computeTrust(signals, facts.sector, new Date(this.now)).contributions.filter(
        (entry) => !fixed.has(entry.signal) && entry.counted > 0,
      );
      if (contributions.length === 0) break;
      const largest = contributions.reduce((best, entry) => (entry.counted > best.counted ? entry : best));
      const index = signals.findIndex((signal) => signal.key === largest.signal);
      signals.splice(index, 1);
      trust = this.score(signals, facts.sector);
    }
    return { signals, trust };
  }

  private score(signals: Signal[], sector: string): number {
    return computeTrust(signals, sector, new Date(this.now)).breakdown.total;
  }

  private signal(definition: SignalDefinition, facts: SignalFacts, status: Signal["status"], rng: Rng): Signal {
    const expired = status === "expired";
    // Recorded within the last 300 days (expired ones earlier); a verified official record is
    // re-checked every two years, so it stays valid more than a year after `now` (a registry
    // seeded at a fixed date keeps its scores for a while).
    const recordedAt = expired ? this.now - rng.between(400, 700) * DAY : this.now - rng.between(1, 300) * DAY;
    const recorded = recordedAt - rng.int(DAY);
    const verifiedAt =
      status === "verified" || expired ? Math.min(recorded + rng.int(2 * DAY), this.now - 60_000) : null;
    const official = definition.source === "official_api";
    return {
      key: definition.key,
      status,
      proofStatus: proofStatusFor(definition.source),
      source: definition.source,
      sourceUrl: sourceUrlFor(definition, facts),
      value: status === "failed" ? false : valueFor(definition.key, facts, rng),
      verifiedAt: verifiedAt === null ? null : iso(verifiedAt),
      recordedAt: iso(recorded),
      expiresAt: expired ? iso(this.now - rng.between(30, 120) * DAY) : official ? iso(recorded + 730 * DAY) : null,
    };
  }
}
