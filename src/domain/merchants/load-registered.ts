import { ServiceError } from "../../errors/service-error.ts";
import type { MerchantLifecycleDeps, RegisteredMerchant } from "./merchant-registry.ts";

/** The merchant a lifecycle command works on; unknown ids are MERCHANT_NOT_FOUND (archived ones are found). */
export function loadRegistered(deps: Pick<MerchantLifecycleDeps, "registry">, abId: string): RegisteredMerchant {
  const found = deps.registry.find(abId);
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
