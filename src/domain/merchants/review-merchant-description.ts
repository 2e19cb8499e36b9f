import { ServiceError } from "../../errors/service-error.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps } from "./merchant-registry.ts";

/**
 * Records that a person read the merchant's description and vouches for it: the
 * `description_llm_unreviewed` flag clears (contact opens, and probation can end). Reviewing a
 * description already reviewed changes nothing.
 */
export function reviewMerchantDescription(
  deps: MerchantDecisionDeps,
  abId: string,
  actor: Actor,
): { abId: string; changed: boolean; revision: number } {
  const current = loadRegistered(deps, abId);
  const { merchant } = current;
  if (merchant.description === null) {
    throw new ServiceError("CONFLICT", `Merchant ${abId} has no description to review`);
  }
  if (!merchant.descriptionLlmUnreviewed) return { abId, changed: false, revision: current.revision };
  const nowIso = deps.now().toISOString();
  const written = deps.registry.update({
    abId,
    expectedRevision: current.revision,
    fields: { descriptionLlmUnreviewed: false, updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    event: {
      at: nowIso,
      actor,
      action: "description_reviewed",
      changes: { descriptionLlmUnreviewed: { from: true, to: false } },
      reason: null,
    },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, changed: true, revision: current.revision + 1 };
}
