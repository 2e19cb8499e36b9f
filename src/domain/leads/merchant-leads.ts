import { ServiceError } from "../../errors/service-error.ts";
import type { LeadMessageRecord, LeadRepository, MerchantLead } from "./lead-store.ts";
import { type ListingAccess, MERCHANT_LEAD_NOT_FOUND_MESSAGE } from "./respond-to-lead.ts";

/** Leads per page of the merchant's list. */
export const MERCHANT_LEADS_PAGE_SIZE = 20;

export interface MerchantLeadPage {
  leads: MerchantLead[];
  /** 1-based page shown, and how many pages there are (at least 1, even with no lead). */
  page: number;
  pages: number;
  total: number;
}

/**
 * The leads addressed to a claimed listing, newest first, one page (1-based; anything else reads
 * as page 1). A page past the last is an empty list with the true count, not an error.
 */
export async function listMerchantLeads(
  deps: { leads: LeadRepository },
  listing: ListingAccess,
  page: number,
): Promise<MerchantLeadPage> {
  const wanted = Number.isSafeInteger(page) && page >= 1 ? page : 1;
  const { total, leads } = await deps.leads.listForMerchant(listing.abId, {
    limit: MERCHANT_LEADS_PAGE_SIZE,
    offset: (wanted - 1) * MERCHANT_LEADS_PAGE_SIZE,
  });
  return { leads, page: wanted, pages: Math.max(1, Math.ceil(total / MERCHANT_LEADS_PAGE_SIZE)), total };
}

/** One lead of a claimed listing with its follow-ups and answers; another listing's lead is NOT_FOUND. */
export async function findMerchantLead(
  deps: { leads: LeadRepository },
  listing: ListingAccess,
  leadId: string,
): Promise<{ lead: MerchantLead; messages: LeadMessageRecord[] }> {
  const found = await deps.leads.findForMerchant(listing.abId, leadId.toLowerCase());
  if (!found) throw new ServiceError("NOT_FOUND", MERCHANT_LEAD_NOT_FOUND_MESSAGE);
  return found;
}
