import { ServiceError } from "../../errors/service-error.ts";
import { merchantDeclarationSchema } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import { merchantOf, newAbId, productsOf, territorialProofOf } from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import type { Actor, MerchantDecisionDeps } from "./merchant-registry.ts";

export interface AddedMerchant {
  abId: string;
  status: "PROBATION";
  revision: 1;
}

/**
 * Registers a merchant from its declaration: in probation until its identity is verified and its
 * description reviewed. A declaration that does not validate is refused with every faulty field
 * named, and nothing is written; a SIRET already registered is refused (update that merchant).
 */
export function addMerchant(deps: MerchantDecisionDeps, input: unknown, actor: Actor): AddedMerchant {
  const declaration = parseInput(merchantDeclarationSchema, input);
  const existing = deps.registry.abIdOfSiret(declaration.siret);
  if (existing) {
    throw new ServiceError(
      "CONFLICT",
      `SIRET ${declaration.siret} is already registered as ${existing}; update it instead`,
      {
        abId: existing,
      },
    );
  }
  const nowIso = deps.now().toISOString();
  const territorialProof = territorialProofOf(deps.communes, declaration.address);
  const abId = newAbId(deps.registry, deps.randomId);
  const merchant = merchantOf(abId, declaration, nowIso);
  const products = productsOf(abId, declaration.products ?? [], [], nowIso, deps.newId);
  deps.registry.create({
    merchant,
    territorialProof,
    products,
    event: {
      at: nowIso,
      actor,
      action: "created",
      changes: Object.fromEntries(
        Object.entries(declaration).map(([field, value]) => [field, { from: null, to: value }]),
      ),
      reason: null,
    },
    feed: feedChange(null, merchant.status) === "created" ? "created" : null,
  });
  return { abId, status: "PROBATION", revision: 1 };
}
