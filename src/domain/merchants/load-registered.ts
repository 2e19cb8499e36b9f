import { ServiceError } from "../../errors/service-error.ts";
import type { MerchantDecisionDeps, MerchantLifecycleDeps, RegisteredMerchant } from "./merchant-registry.ts";

/** The merchant a lifecycle command works on; unknown ids are MERCHANT_NOT_FOUND (archived ones are found). */
export function loadRegistered(deps: Pick<MerchantDecisionDeps, "registry">, abId: string): RegisteredMerchant {
  return foundOrNot(deps.registry.find(abId), abId);
}

/** The same, read outside a batch (what a page shows, what a command checks before it asks elsewhere). */
export async function readRegistered(
  deps: Pick<MerchantLifecycleDeps, "registry">,
  abId: string,
): Promise<RegisteredMerchant> {
  return foundOrNot(await deps.registry.find(abId), abId);
}

function foundOrNot(found: RegisteredMerchant | null, abId: string): RegisteredMerchant {
  if (!found) throw new ServiceError("MERCHANT_NOT_FOUND", `No merchant has ab_id ${abId}`, { abId });
  return found;
}

/** Another writer changed the merchant between our read and our write: nothing was written. */
export function changedMeanwhile(abId: string): ServiceError {
  return new ServiceError(
    "CONFLICT",
    `Merchant ${abId} changed while this change was prepared; nothing was written, try again`,
  );
}
