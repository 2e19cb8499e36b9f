import { ServiceError } from "../../errors/service-error.ts";
import { assessMerchant } from "../assess-merchant.ts";
import { isListed } from "../merchants/lifecycle.ts";
import type { RevisionCache } from "../revision-cache.ts";
import type { AssessedLeadTarget, LeadDeps } from "./lead-deps.ts";

/**
 * The merchant a lead goes to, assessed like every read surface assesses it (loadMerchant's
 * rules: unknown, suspended and archived are the same 404), without loading what leads never use.
 *
 * Kept per merchant until the store revision moves or a signal expires (the assessment's
 * validUntil): a busy merchant's leads no longer read and score it again each time (about a
 * tenth of a lead's cost). The value is shared: callers never change it.
 */
export async function loadLeadTarget(
  deps: Pick<LeadDeps, "merchants" | "orderRailEnabled" | "now"> & {
    leadTargets: RevisionCache<AssessedLeadTarget>;
  },
  abId: string,
  options: { withProducts: boolean },
): Promise<AssessedLeadTarget> {
  const now = deps.now();
  const revision = await deps.merchants.revision();
  const key = `${options.withProducts ? "products" : "merchant"}:${abId}`;
  return deps.leadTargets.readOrLoad(key, revision, now.toISOString(), async () => {
    const target = await deps.merchants.findLeadTarget(abId, options);
    if (!target || !isListed(target.merchant.status)) {
      throw new ServiceError("MERCHANT_NOT_FOUND", `No active merchant has ab_id ${abId}`, { abId });
    }
    const assessment = assessMerchant(target.merchant, target.signals, {
      orderRailEnabled: deps.orderRailEnabled,
      now,
    });
    return { ...target, assessment };
  });
}
