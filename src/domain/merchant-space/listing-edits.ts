import { validationError } from "../../errors/service-error.ts";
import type { MerchantStatus } from "../../schemas/envelope.ts";
import { changeMerchantStatus, type StatusChange } from "../merchants/change-merchant-status.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../merchants/merchant-registry.ts";
import { type UpdatedMerchant, updateMerchant } from "../merchants/update-merchant.ts";

/**
 * What a merchant changes from its space, through the operator's doors (updateMerchant,
 * changeMerchantStatus) with itself as the actor. The merchant declares what the declaration
 * schema covers and only official sources cannot prove; what they prove (the SIRET, the legal and
 * trade names, the address, the NAF code, the company numbers, the creation date) stays out of
 * reach, and the lead email changes only through its confirmation link (lead-email.ts).
 */

/** Who acts in the space: the listing it reached through `requireClaimedListing`, and its audit actor. */
export interface ListingAccess {
  abId: string;
  /** `merchant:<claimId>`. */
  actor: string;
}

/** The declaration's fields the merchant sets itself. */
export const MERCHANT_DECLARED_FIELDS = [
  "phone",
  "website",
  "hours",
  "hours_exceptions",
  "description",
  "brand_voice",
  "languages",
  "zones",
  "delivery",
  "products",
] as const;

/** Fields only official sources prove (SIRENE, RNE, the company's registration): never the merchant's word. */
export const OFFICIAL_FIELDS = [
  "siret",
  "legal_name",
  "business_name",
  "naf_code",
  "address",
  "rcs",
  "vat_number",
  "founded_on",
] as const;

const declared: ReadonlySet<string> = new Set(MERCHANT_DECLARED_FIELDS);
const official: ReadonlySet<string> = new Set(OFFICIAL_FIELDS);

/** The official fields among names given (`address.street` names `address`), in the order given. */
export function officialFieldsIn(names: readonly string[]): string[] {
  const found = names.map((name) => name.split(".")[0] ?? name).filter((field) => official.has(field));
  return [...new Set(found)];
}

/** Why a field the merchant may not set is refused (one message per field). */
function refusalOf(field: string): string | null {
  if (declared.has(field)) return null;
  if (official.has(field)) {
    return "is proven by official sources (SIRENE, RNE) and is not changed from the merchant space; nothing was changed";
  }
  if (field === "email")
    return "the lead email changes through the link sent to it (requestLeadEmail); nothing was changed";
  return `is not a field the merchant declares (${MERCHANT_DECLARED_FIELDS.join(", ")}); nothing was changed`;
}

/**
 * Applies the merchant's own declaration of some fields. A field it may not set refuses the whole
 * edit (nothing half-written), each such field named.
 */
export async function editListing(
  deps: MerchantLifecycleDeps,
  access: ListingAccess,
  input: unknown,
): Promise<UpdatedMerchant> {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const issues = Object.keys(input).flatMap((field) => {
      const message = refusalOf(field);
      return message === null ? [] : [{ path: field, message }];
    });
    if (issues.length > 0) throw validationError(issues);
  }
  return decideInRegistry(deps, { abIds: [access.abId] }, (decision) =>
    updateMerchant(decision, access.abId, input, access.actor, { byTheMerchant: true }),
  );
}

/**
 * Pauses or resumes the listing (ACTIVE <-> PAUSED only: lifecycle.ts, `merchantNextStatuses`);
 * the reason is the merchant's, kept in the audit log.
 */
export function setListingPaused(
  deps: MerchantLifecycleDeps,
  access: ListingAccess,
  paused: boolean,
): Promise<StatusChange> {
  const to: MerchantStatus = paused ? "PAUSED" : "ACTIVE";
  return decideInRegistry(deps, { abIds: [access.abId] }, (decision) =>
    changeMerchantStatus(
      decision,
      access.abId,
      { status: to, reason: paused ? "paused by the merchant" : "resumed by the merchant" },
      access.actor,
      "merchant",
    ),
  );
}
