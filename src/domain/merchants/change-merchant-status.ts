import { ServiceError } from "../../errors/service-error.ts";
import { merchantStatusSchema } from "../../schemas/envelope.ts";
import { parseInput } from "../../schemas/parse.ts";
import { assessMerchant } from "../assess-merchant.ts";
import { identityVerifiedAt } from "../trust/signal-expiry.ts";
import { checkTransition, feedChange, type TransitionRequester } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps } from "./merchant-registry.ts";

export interface StatusChange {
  abId: string;
  from: string;
  to: string;
  revision: number;
}

/**
 * Moves a merchant along the lifecycle (lifecycle.ts). A transition the table does not have, or
 * whose condition is not met, is refused with CONFLICT and the reason; nothing is written. The
 * merchant, from its space, asks as `requester: "merchant"` and may only pause and resume.
 */
export function changeMerchantStatus(
  deps: MerchantDecisionDeps,
  abId: string,
  input: { status: unknown; reason: string | null },
  actor: Actor,
  requester: TransitionRequester = "operator",
): StatusChange {
  const to = parseInput(merchantStatusSchema, input.status);
  const current = loadRegistered(deps, abId);
  const { merchant } = current;
  const now = deps.now();
  const assessment = assessMerchant(merchant, current.signals, { orderRailEnabled: false, now });
  const reason = input.reason?.trim() || null;
  const check = checkTransition(
    merchant.status,
    to,
    {
      identityVerified: identityVerifiedAt(current.signals, assessment.assessedAt),
      descriptionReviewed: merchant.description === null || !merchant.descriptionLlmUnreviewed,
      reason,
    },
    requester,
  );
  if (!check.allowed) throw new ServiceError("CONFLICT", `Merchant ${abId}: ${check.reason}`);
  const nowIso = now.toISOString();
  const written = deps.registry.update({
    abId,
    expectedRevision: current.revision,
    fields: { status: to, updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    event: { at: nowIso, actor, action: "status_changed", changes: { status: { from: merchant.status, to } }, reason },
    feed: feedChange(merchant.status, to),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, from: merchant.status, to, revision: current.revision + 1 };
}
