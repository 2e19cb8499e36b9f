import type { MerchantState } from "../../schemas/envelope.ts";
import type { EvidenceData } from "../../schemas/signing.ts";
import { loadMerchant, type ResolveDeps } from "../registry/resolve-merchant.ts";
import type { EvidenceSignal } from "../trust/signal-catalog.ts";
import { describeEvidence } from "./signal-evidence.ts";

/** One evidence page of a listed merchant (404 for unknown and archived ones), with its `_state`. */
export async function merchantEvidence(
  deps: ResolveDeps,
  signal: EvidenceSignal,
  abId: string,
): Promise<{ evidence: EvidenceData; state: MerchantState }> {
  // One reading of the clock for the assessment and the expiry check.
  const now = deps.now();
  const { profile, assessment } = await loadMerchant({ ...deps, now: () => now }, abId);
  return {
    evidence: describeEvidence({ profile, assessment, signal, now }),
    state: assessment.capabilities.state,
  };
}
