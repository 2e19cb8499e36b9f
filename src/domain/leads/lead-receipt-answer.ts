import { actionsByRel } from "../actions.ts";
import { leadUrl, merchantLinks } from "../links.ts";
import type { LeadReceipt } from "./create-lead.ts";

/**
 * What a created (or deduplicated, or replayed) lead answers, whichever door it came through (the
 * REST route and the MCP tools): the lead's id and tracking token at the top level, what to do
 * next, the merchant's state and the lead's and merchant's URLs.
 */
export function leadReceiptAnswer(baseUrl: string, receipt: LeadReceipt) {
  return {
    topLevel: {
      lead_id: receipt.leadId,
      tracking_token: receipt.trackingToken,
      tracking_status: receipt.trackingStatus,
      deduplicated: receipt.deduplicated,
    },
    actions: actionsByRel(receipt.actions),
    state: receipt.state,
    links: { canonical: leadUrl(baseUrl, receipt.leadId), merchant: merchantLinks(baseUrl, receipt.abId).resolve },
  };
}
