import { ServiceError, validationError } from "../../errors/service-error.ts";
import { companyNumberIssues, merchantUpdateSchema } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import { sameWritten } from "../format.ts";
import type { Merchant, TerritorialProof } from "../merchant.ts";
import { leadEmailNotice } from "../merchant-space/space-notices.ts";
import { changedFields, diffOf, productsOf, territorialProofOf } from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps, RegisteredMerchant } from "./merchant-registry.ts";

export interface UpdatedMerchant {
  abId: string;
  /** The fields that changed; empty when the update said what was already stored (nothing written). */
  changed: string[];
  revision: number;
}

/**
 * Applies a partial declaration. Only what differs is written (the same file twice changes
 * nothing the second time); a new description waits for a review again; products are matched by
 * slug, so a kept product keeps its ids. An archived merchant is not edited. The whole
 * declaration `merchants add` took may be given: its SIRET, the merchant's identity, is checked
 * against the merchant's and left out (another SIRET is refused: it is another establishment).
 * `byTheMerchant`: the merchant wrote it from its space (src/domain/merchant-space/listing-edits.ts),
 * so a description it gives is its own words, not a generated text waiting for a person's review.
 * A change of the email where leads go is told to the address it replaces and to the listing's
 * claimants (a notice written with the change), unless `alreadyTold` (a change that waited for its
 * notice to be sent: src/domain/merchant-space/lead-email.ts). `reason` goes to the audit event.
 */
export function updateMerchant(
  deps: MerchantDecisionDeps,
  abId: string,
  input: unknown,
  actor: Actor,
  options: { byTheMerchant?: boolean; alreadyTold?: boolean; reason?: string } = {},
): UpdatedMerchant {
  const current = loadRegistered(deps, abId);
  const { merchant } = current;
  const update = parseInput(merchantUpdateSchema, withoutIdentity(input, merchant.siret));
  if (merchant.status === "ARCHIVED") {
    throw new ServiceError("CONFLICT", `Merchant ${abId} is archived; an archived merchant is not edited`);
  }
  const numberIssues = companyNumberIssues(merchant.siret, update);
  if (numberIssues.length > 0) throw validationError(numberIssues);
  const nowIso = deps.now().toISOString();
  const fields = changedFields(merchant, update, nowIso);
  if (options.byTheMerchant && "description" in fields) {
    if (merchant.descriptionLlmUnreviewed) fields.descriptionLlmUnreviewed = false;
    else delete fields.descriptionLlmUnreviewed;
  }
  const changes = diffOf(merchant, fields);
  const territorialProof = movedProof(deps, current, update.address, fields);
  let products = null;
  if (update.products !== undefined) {
    const next = productsOf(abId, update.products, current.products, nowIso, deps.newId);
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
    event: { at: nowIso, actor, action: "updated", changes, reason: options.reason ?? null },
    feed: feedChange(merchant.status, merchant.status),
    ...("email" in fields && !options.alreadyTold
      ? {
          notice: leadEmailNotice({
            abId,
            at: nowIso,
            actor,
            fromEmail: merchant.email,
            toEmail: fields.email ?? null,
          }),
        }
      : {}),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, changed, revision: current.revision + 1 };
}

/** The input without its `siret` when that is the merchant's own; a validation error when it is another. */
function withoutIdentity(input: unknown, siret: string): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("siret" in input)) return input;
  const { siret: given, ...rest } = input as Record<string, unknown>;
  if (given !== siret) {
    throw validationError([
      {
        path: "siret",
        message: `is ${siret} for this merchant and never changes (another SIRET is another establishment: add it)`,
      },
    ]);
  }
  return rest;
}

/**
 * The territorial proof after an address update: the new commune's centroid when the merchant
 * moved, undefined (kept) when the address is the same one written otherwise (SIRENE's capitals,
 * the merchant's accents), so a geocoded position is not lost to a change of spelling.
 */
function movedProof(
  deps: MerchantDecisionDeps,
  current: RegisteredMerchant,
  address: { street: string; postal_code: string; city: string } | undefined,
  fields: Partial<Merchant>,
): TerritorialProof | undefined {
  if (!address || !("street" in fields || "postalCode" in fields || "city" in fields)) return undefined;
  const proof = territorialProofOf(deps.communes, address);
  const known = current.territorialProof;
  // Compared as slugs: without accents, case or punctuation.
  const sameStreet = sameWritten(current.merchant.street, address.street);
  if (known && known.inseeCode === proof.inseeCode && known.postalCode === proof.postalCode && sameStreet) {
    return undefined;
  }
  return proof;
}
