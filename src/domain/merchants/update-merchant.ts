import { ServiceError } from "../../errors/service-error.ts";
import { merchantUpdateSchema } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import { changedFields, diffOf, productsOf, territorialProofOf } from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantLifecycleDeps } from "./merchant-registry.ts";

export interface UpdatedMerchant {
  abId: string;
  /** The fields that changed; empty when the update said what was already stored (nothing written). */
  changed: string[];
  revision: number;
}

/**
 * Applies a partial declaration. Only what differs is written (the same file twice changes
 * nothing the second time); a new description waits for a review again; products are matched by
 * slug, so a kept product keeps its ids. An archived merchant is not edited.
 */
export function updateMerchant(
  deps: MerchantLifecycleDeps,
  abId: string,
  input: unknown,
  actor: Actor,
): UpdatedMerchant {
  const update = parseInput(merchantUpdateSchema, input);
  const current = loadRegistered(deps, abId);
  const { merchant } = current;
  if (merchant.status === "ARCHIVED") {
    throw new ServiceError("CONFLICT", `Merchant ${abId} is archived; an archived merchant is not edited`);
  }
  const nowIso = deps.now().toISOString();
  const fields = changedFields(merchant, update, nowIso);
  const changes = diffOf(merchant, fields);
  const addressChanged = "postalCode" in fields || "city" in fields;
  const territorialProof =
    addressChanged && update.address ? territorialProofOf(deps.communes, update.address) : undefined;
  let products = null;
  if (update.products !== undefined) {
    const next = productsOf(abId, update.products, current.products, nowIso);
    const comparable = (list: typeof next) => JSON.stringify(list.map(({ updatedAt: _updatedAt, ...rest }) => rest));
    if (comparable(next) !== comparable(current.products)) {
      products = next;
      changes.products = {
        from: current.products.map((product) => product.slug),
        to: next.map((product) => product.slug),
      };
    }
  }
  const changed = Object.keys(changes);
  if (changed.length === 0) return { abId, changed, revision: current.revision };
  const written = deps.registry.update({
    abId,
    expectedRevision: current.revision,
    fields: { ...fields, updatedAt: nowIso },
    products,
    territorialProof,
    event: { at: nowIso, actor, action: "updated", changes, reason: null },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, changed, revision: current.revision + 1 };
}
