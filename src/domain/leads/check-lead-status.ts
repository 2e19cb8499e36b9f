import type { Action } from "../../schemas/envelope.ts";
import { findTrackedLead } from "./find-tracked-lead.ts";
import { leadActions } from "./lead-actions.ts";
import { MAX_FOLLOW_UPS_PER_LEAD } from "./lead-deps.ts";
import type { LeadRepository } from "./lead-store.ts";
import type { TrackingTokens } from "./tracking-token.ts";

export interface LeadStatus {
  lead_id: string;
  /** received -> delivered (the merchant's email accepted it) | failed (every attempt refused). */
  tracking_status: string;
  lead_type: string;
  created_at: string;
  delivered_at: string | null;
  failed_at: string | null;
  merchant: { ab_id: string; name: string };
  messages_count: number;
  messages_remaining: number;
  /** True once the retention period is over and the personal data is gone. */
  anonymized: boolean;
}

export interface CheckLeadStatusDeps {
  leads: LeadRepository;
  trackingTokens: TrackingTokens;
  baseUrl: string;
}

/** GET /api/leads/{lead_id} and the MCP tool check_lead_status. */
export function checkLeadStatus(
  deps: CheckLeadStatusDeps,
  input: { leadId?: string | undefined; trackingToken: string },
): { status: LeadStatus; actions: Action[] } {
  const lead = findTrackedLead(deps, input);
  return {
    status: {
      lead_id: lead.leadId,
      tracking_status: lead.trackingStatus,
      lead_type: lead.leadType,
      created_at: lead.createdAt,
      delivered_at: lead.deliveredAt,
      failed_at: lead.failedAt,
      merchant: { ab_id: lead.abId, name: lead.merchantName },
      messages_count: lead.messagesCount,
      messages_remaining: Math.max(0, MAX_FOLLOW_UPS_PER_LEAD - lead.messagesCount),
      anonymized: lead.anonymizedAt !== null,
    },
    actions: leadActions(deps.baseUrl, lead.leadId, lead.abId),
  };
}
