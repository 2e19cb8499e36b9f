import { ServiceError } from "../../errors/service-error.ts";
import type { LeadRepository, LeadSummary } from "./lead-store.ts";
import type { TrackingTokens } from "./tracking-token.ts";

/** One message for a wrong token, a token for another lead and an unknown lead: nothing to tell apart. */
export const LEAD_NOT_FOUND_MESSAGE = "No lead matches this lead id and tracking token";

/**
 * The lead a tracking token opens. The token is the only capability: a token this server did not
 * issue, a token for another lead than `leadId`, and a lead that does not exist all raise the same
 * NOT_FOUND (same status, same message); the mac check is constant-time and runs before any lookup.
 */
export async function findTrackedLead(
  deps: { leads: LeadRepository; trackingTokens: TrackingTokens },
  input: { leadId?: string | undefined; trackingToken: string },
): Promise<LeadSummary> {
  const tokenLeadId = deps.trackingTokens.verify(input.trackingToken);
  const summary =
    tokenLeadId !== null && (input.leadId === undefined || input.leadId.toLowerCase() === tokenLeadId)
      ? await deps.leads.findSummary(tokenLeadId)
      : null;
  if (!summary) throw new ServiceError("NOT_FOUND", LEAD_NOT_FOUND_MESSAGE);
  return summary;
}
