import { ServiceError } from "../../errors/service-error.ts";
import type { LeadTarget } from "../../store/merchant-repository.ts";
import { type Assessment, assessMerchant } from "../assess-merchant.ts";
import type { LeadDeps } from "./lead-deps.ts";

/**
 * The merchant a lead goes to, assessed like every read surface assesses it (loadMerchant's
 * rules: unknown and archived are the same 404), without loading what leads never use.
 */
export function loadLeadTarget(
  deps: Pick<LeadDeps, "merchants" | "orderRailEnabled" | "now">,
  abId: string,
  options: { withProducts: boolean },
): LeadTarget & { assessment: Assessment } {
  const target = deps.merchants.findLeadTarget(abId, options);
  if (!target || target.merchant.status === "ARCHIVED") {
    throw new ServiceError("MERCHANT_NOT_FOUND", `No active merchant has ab_id ${abId}`, { abId });
  }
  const assessment = assessMerchant(target.merchant, target.signals, {
    orderRailEnabled: deps.orderRailEnabled,
    now: deps.now(),
  });
  return { ...target, assessment };
}
