import { type Assessment, assessMerchant } from "../domain/assess-merchant.ts";
import { type MerchantLinks, merchantLinks } from "../domain/links.ts";
import type { MerchantProfile } from "../domain/merchant.ts";
import type { MerchantRepository } from "../domain/registry/merchant-store.ts";
import { type Trade, tradeOf } from "../domain/sectors.ts";
import { ServiceError } from "../errors/service-error.ts";
import type { MerchantStatus } from "../schemas/envelope.ts";
import { type ContentPeriod, contentPeriod } from "./period.ts";

/**
 * Merchants whose documents are public. PAUSED stays published: a pause is temporary, the identity
 * and evidence are still true, and an agent that meets the merchant elsewhere should read that it
 * is paused (can_contact false, merchant_paused) rather than find nothing. SUSPENDED and ARCHIVED
 * are withdrawn: their files are deleted and the document routes answer 404 like an unknown id.
 */
export const PUBLISHED_STATUSES: readonly MerchantStatus[] = ["ACTIVE", "PROBATION", "PAUSED"];

export function isPublishedStatus(status: string): boolean {
  return (PUBLISHED_STATUSES as readonly string[]).includes(status);
}

export interface RenderOptions {
  baseUrl: string;
  orderRailEnabled: boolean;
  /** The clock the merchant is assessed at (signal expiry, anniversaries). */
  now: Date;
}

/** Everything a renderer reads about one merchant: pure data, computed once. */
export interface MerchantView {
  profile: MerchantProfile;
  assessment: Assessment;
  trade: Trade | undefined;
  links: MerchantLinks;
  period: ContentPeriod;
  /** The documents' own time: the start of the content period (see period.ts). */
  generatedAt: string;
  options: RenderOptions;
}

/** `period`: the profile's content period at `options.now`, when the caller has it already (the refresh job). */
export function merchantView(profile: MerchantProfile, options: RenderOptions, period?: ContentPeriod): MerchantView {
  const assessment = assessMerchant(profile.merchant, profile.signals, {
    orderRailEnabled: options.orderRailEnabled,
    now: options.now,
  });
  period ??= contentPeriod(profile, options.now);
  return {
    profile,
    assessment,
    trade: tradeOf(profile.merchant),
    links: merchantLinks(options.baseUrl, profile.merchant.abId),
    period,
    generatedAt: period.since,
    options,
  };
}

export interface ViewDeps {
  merchants: MerchantRepository;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

/** A published merchant's view; unknown, suspended and archived ones are the same 404. */
export function loadPublishedView(deps: ViewDeps, abId: string): Promise<MerchantView> {
  return loadView(deps, abId, isPublishedStatus);
}

/** A merchant's view when its status is accepted (404 MERCHANT_NOT_FOUND otherwise). */
export async function loadView(
  deps: ViewDeps,
  abId: string,
  accept: (status: MerchantStatus) => boolean,
): Promise<MerchantView> {
  const profile = await deps.merchants.findProfile(abId);
  if (!profile || !accept(profile.merchant.status)) {
    throw new ServiceError("MERCHANT_NOT_FOUND", `No published merchant has ab_id ${abId}`, { abId });
  }
  return merchantView(profile, { baseUrl: deps.baseUrl, orderRailEnabled: deps.orderRailEnabled, now: deps.now() });
}
