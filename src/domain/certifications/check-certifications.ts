import type { MerchantState } from "../../schemas/envelope.ts";
import type { Credential } from "../../schemas/registry.ts";
import { describeCredentials, loadMerchant, type ResolveDeps } from "../registry/resolve-merchant.ts";
import { EVIDENCE_SIGNALS, type ProofStatus, signalDefinition } from "../trust/signal-catalog.ts";

/**
 * check_certifications: what is verified about a merchant and how strongly. Each credential and
 * evidence signal is listed with its proof level, so an agent can tell an official register check
 * from a platform observation and from the merchant's own declaration, and follow the evidence
 * page of each.
 */

export const PROOF_LEVELS: readonly ProofStatus[] = [
  "official_source_verified",
  "machine_consistent",
  "merchant_declared",
];

export interface CertificationItem extends Credential {
  /** The status a reader should rely on: a verified signal past its expiry reads `expired`. */
  effective_status: "verified" | "unverified" | "failed" | "expired";
  expires_at: string | null;
  /** The points rule of the signal, in technical English. */
  rule: string;
}

export interface Certifications {
  ab_id: string;
  name: string;
  trust_level: "certified" | "verified" | "declared";
  trust_score: number;
  identity: {
    siret: string;
    siren: string;
    siret_verified: boolean;
    source_url: string | null;
  };
  /** Counts of currently verified items per proof level. */
  proof_summary: Record<ProofStatus, number>;
  credentials: CertificationItem[];
  /** Evidence signals the registry knows of that this merchant has no verified record for. */
  missing_evidence: string[];
  manifest_url: string;
  jwks_url: string;
  state: MerchantState;
}

export async function checkCertifications(deps: ResolveDeps, abId: string): Promise<Certifications> {
  const now = deps.now();
  const { profile, assessment } = await loadMerchant({ ...deps, now: () => now }, abId);
  const { merchant } = profile;
  const described = describeCredentials(deps.baseUrl, merchant.abId, profile.signals, assessment);
  const signals = new Map(profile.signals.map((signal) => [signal.key, signal]));
  const credentials: CertificationItem[] = described.map((credential) => {
    const signal = signals.get(credential.key);
    return {
      ...credential,
      effective_status: credential.status as CertificationItem["effective_status"],
      expires_at: signal?.expiresAt ?? null,
      rule: signalDefinition(credential.key)?.rule ?? "",
    };
  });
  const proofSummary = Object.fromEntries(
    PROOF_LEVELS.map((level) => [
      level,
      credentials.filter((item) => item.effective_status === "verified" && item.proof_status === level).length,
    ]),
  ) as Record<ProofStatus, number>;
  const verifiedKeys = new Set(
    credentials.filter((item) => item.effective_status === "verified").map((item) => item.key),
  );
  const siret = signals.get("siret_verified");
  return {
    ab_id: merchant.abId,
    name: merchant.businessName,
    trust_level: assessment.trustLevel,
    trust_score: assessment.trust.breakdown.total,
    identity: {
      siret: merchant.siret,
      siren: merchant.siret.slice(0, 9),
      siret_verified: verifiedKeys.has("siret_verified"),
      source_url: siret?.sourceUrl ?? null,
    },
    proof_summary: proofSummary,
    credentials,
    missing_evidence: EVIDENCE_SIGNALS.filter((key) => {
      const definition = signalDefinition(key);
      const applies = !definition?.appliesTo || definition.appliesTo.some((sector) => sector === merchant.sector);
      return applies && !verifiedKeys.has(key);
    }),
    manifest_url: `${deps.baseUrl}/api/registry/verify/${merchant.abId}`,
    jwks_url: `${deps.baseUrl}/.well-known/ab-public-keys.json`,
    state: assessment.capabilities.state,
  };
}
