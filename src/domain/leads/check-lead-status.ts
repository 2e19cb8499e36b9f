import type { Action } from "../../schemas/envelope.ts";
import { findTrackedLead } from "./find-tracked-lead.ts";
import { leadActions } from "./lead-actions.ts";
import { MAX_FOLLOW_UPS_PER_LEAD } from "./lead-deps.ts";
import type { LeadMessageDelivery, LeadRepository, LeadSummary, MerchantLeadStatus } from "./lead-store.ts";
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
  /**
   * What the merchant did with the lead in its Abeille space (issue 25), apart from
   * tracking_status, which stays the delivery of the lead: docs/decisions.md.
   */
  merchant_response: MerchantResponse;
}

export interface MerchantResponse {
  /** none: nothing recorded in the space (the merchant may still answer the person by email). */
  status: "none" | MerchantLeadStatus;
  updated_at: string | null;
  answers: {
    answer_id: string;
    /** null once the lead is anonymised. */
    message: string | null;
    created_at: string;
    /** The email to the person: queued, sent (their mailbox accepted it) or failed. */
    delivery: LeadMessageDelivery;
  }[];
}

export interface CheckLeadStatusDeps {
  leads: LeadRepository;
  trackingTokens: TrackingTokens;
  baseUrl: string;
}

/** GET /api/leads/{lead_id} and the MCP tool check_lead_status. */
export async function checkLeadStatus(
  deps: CheckLeadStatusDeps,
  input: { leadId?: string | undefined; trackingToken: string },
): Promise<{ status: LeadStatus; actions: Action[] }> {
  const lead = await findTrackedLead(deps, input);
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
      merchant_response: await merchantResponse(deps.leads, lead),
    },
    actions: leadActions(deps.baseUrl, lead.leadId, lead.abId),
  };
}

async function merchantResponse(leads: LeadRepository, lead: LeadSummary): Promise<MerchantResponse> {
  // Only a lead the merchant acted on can carry answers: the common case reads nothing more.
  if (lead.merchantStatus === null) return { status: "none", updated_at: null, answers: [] };
  const anonymized = lead.anonymizedAt !== null;
  return {
    status: lead.merchantStatus,
    updated_at: lead.merchantStatusAt,
    answers: (await leads.listAnswers(lead.leadId)).map((answer) => ({
      answer_id: answer.messageId,
      message: anonymized || answer.anonymizedAt !== null ? null : answer.body,
      created_at: answer.createdAt,
      delivery: answer.delivery,
    })),
  };
}
