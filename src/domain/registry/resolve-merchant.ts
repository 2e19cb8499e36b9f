import { ServiceError } from "../../errors/service-error.ts";
import type { Action, MerchantState } from "../../schemas/envelope.ts";
import type { Credential, MerchantClosureView, ResolvedMerchant } from "../../schemas/registry.ts";
import { type Assessment, assessMerchant } from "../assess-merchant.ts";
import { formatAddress, formatPrice } from "../format.ts";
import type { MerchantClosure, MerchantProfile, Signal } from "../merchant.ts";
import { isListed } from "../merchants/lifecycle.ts";
import { tradeOf } from "../sectors.ts";
import { officialSources } from "../trust/official-sources.ts";
import { signalDefinition, signalPosition } from "../trust/signal-catalog.ts";
import { signalStatusAt } from "../trust/signal-expiry.ts";
import { merchantActions } from "./merchant-actions.ts";
import type { MerchantRepository } from "./merchant-store.ts";

export interface ResolveDeps {
  merchants: MerchantRepository;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

export interface LoadedMerchant {
  profile: MerchantProfile;
  assessment: Assessment;
}

/**
 * Loads a listed merchant (docs/merchant-lifecycle.md): unknown, suspended and archived ones are
 * the same 404 to the outside, so no surface (resolve, decision card, signed manifest, tools)
 * vouches for a merchant the registry has withdrawn. One an official source records closed is
 * loaded: every surface says it closed (describeClosure), and it is never a search hit.
 */
export async function loadMerchant(deps: ResolveDeps, abId: string): Promise<LoadedMerchant> {
  const profile = await deps.merchants.findProfile(abId);
  if (!profile || !isListed(profile.merchant.status)) {
    throw new ServiceError("MERCHANT_NOT_FOUND", `No active merchant has ab_id ${abId}`, { abId });
  }
  const assessment = assessMerchant(profile.merchant, profile.signals, {
    orderRailEnabled: deps.orderRailEnabled,
    now: deps.now(),
  });
  return { profile, assessment };
}

export interface ResolveAnswer {
  resolved: ResolvedMerchant;
  actions: Action[];
  state: MerchantState;
  /** The answer holds until the store changes or this instant passes (Assessment.validUntil). */
  validUntil: string | null;
}

export async function resolveMerchant(deps: ResolveDeps, abId: string): Promise<ResolveAnswer> {
  const { profile, assessment } = await loadMerchant(deps, abId);
  const { merchant } = profile;
  const resolved: ResolvedMerchant = {
    merchant: {
      ab_id: merchant.abId,
      name: merchant.businessName,
      legal_name: merchant.legalName,
      siret: merchant.siret,
      address: formatAddress(merchant),
      phone: merchant.phone,
      website: merchant.website,
      sector: merchant.sector,
      trade: tradeOf(merchant)?.label ?? merchant.nafCode,
      naf_code: merchant.nafCode,
      naf_code_2025: merchant.nafCode2025,
      closure: describeClosure(merchant.closure),
      trust: {
        score: assessment.trust.breakdown.total,
        status: assessment.trustLevel,
        breakdown: assessment.trust.breakdown,
      },
      sources: officialSources(profile.signals),
    },
    products: profile.products.map((product) => ({
      id: product.productId,
      name: product.name,
      description: product.description,
      price: formatPrice(product),
    })),
    credentials: describeCredentials(deps.baseUrl, merchant.abId, profile.signals, assessment),
  };
  return {
    resolved,
    actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
    state: assessment.capabilities.state,
    validUntil: assessment.validUntil,
  };
}

/** The merchant's closure as every surface says it (closed since when, from which source), null while open. */
export function describeClosure(closure: MerchantClosure | null): MerchantClosureView {
  if (!closure) return null;
  return {
    closed_on: closure.closedOn,
    source: closure.source,
    source_url: closure.sourceUrl,
    label: closure.label,
    announcement_id: closure.announcementId,
    recorded_at: closure.recordedAt,
  };
}

/** Every recorded signal with what it contributed, so an agent can trace each trust point. */
export function describeCredentials(
  baseUrl: string,
  abId: string,
  signals: readonly Signal[],
  assessment: Pick<Assessment, "trust" | "assessedAt">,
): Credential[] {
  const counted = new Map(
    assessment.trust.contributions.map((contribution) => [contribution.signal, contribution.counted]),
  );
  return [...signals]
    .sort((a, b) => signalPosition(a.key) - signalPosition(b.key))
    .flatMap((signal) => {
      const definition = signalDefinition(signal.key);
      if (!definition) return [];
      return [
        {
          key: signal.key,
          label: definition.label,
          status: signalStatusAt(signal, assessment.assessedAt),
          proof_status: signal.proofStatus,
          source: signal.source,
          source_url: signal.sourceUrl,
          verified_at: signal.verifiedAt,
          recorded_at: signal.recordedAt,
          expires_at: signal.expiresAt,
          component: definition.component,
          points: counted.get(signal.key) ?? 0,
          evidence_url: definition.evidence ? `${baseUrl}/api/verify/${signal.key}/${abId}` : null,
        },
      ];
    });
}
