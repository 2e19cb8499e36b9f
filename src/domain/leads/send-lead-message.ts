import { randomUUID } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { logger } from "../../logging.ts";
import type { Action, MerchantState } from "../../schemas/envelope.ts";
import { contactBlockedBecause } from "../capabilities.ts";
import { findTrackedLead } from "./find-tracked-lead.ts";
import { leadActions } from "./lead-actions.ts";
import { type LeadDeps, MAX_FOLLOW_UPS_PER_LEAD } from "./lead-deps.ts";
import { loadLeadTarget } from "./load-lead-target.ts";

export interface SentLeadMessage {
  message_id: string;
  lead_id: string;
  /** queued: stored with its outbox row; the worker emails it to the merchant. */
  status: "queued";
  created_at: string;
  messages_count: number;
  messages_remaining: number;
}

/**
 * POST /api/leads/{lead_id}/messages and the MCP tool send_lead_message: a follow-up from the
 * agent to the merchant, delivered by email through the same outbox as the lead. At most
 * MAX_FOLLOW_UPS_PER_LEAD per lead (409 CONFLICT beyond); refused once the lead is anonymised or
 * when the merchant can no longer be contacted (CONTACT_DISABLED).
 */
export async function sendLeadMessage(
  deps: LeadDeps,
  input: { trackingToken: string; message: string; leadId?: string | undefined },
): Promise<{ message: SentLeadMessage; actions: Action[] }> {
  const lead = await findTrackedLead(deps, { leadId: input.leadId, trackingToken: input.trackingToken });
  if (lead.anonymizedAt !== null) {
    throw new ServiceError("CONFLICT", "This lead is past its retention period and was anonymised; send a new lead");
  }
  let state: MerchantState;
  try {
    state = (await loadLeadTarget(deps, lead.abId, { withProducts: false })).assessment.capabilities.state;
  } catch (failure) {
    if (failure instanceof ServiceError && failure.code === "MERCHANT_NOT_FOUND") {
      throw new ServiceError("CONTACT_DISABLED", `Merchant ${lead.abId} is no longer listed`, {
        blockedBecause: ["merchant_archived"],
        abId: lead.abId,
      });
    }
    throw failure;
  }
  if (!state.can_contact) {
    throw new ServiceError("CONTACT_DISABLED", `Merchant ${lead.abId} cannot be contacted right now`, {
      blockedBecause: contactBlockedBecause(state),
      abId: lead.abId,
    });
  }
  const messageId = randomUUID();
  const createdAt = deps.now().toISOString();
  const outcome = await deps.leads.insertFollowUp({
    messageId,
    leadId: lead.leadId,
    body: input.message,
    createdAt,
    outboxMessageId: randomUUID(),
    maxMessages: MAX_FOLLOW_UPS_PER_LEAD,
  });
  if (outcome.kind === "limit_reached") {
    throw new ServiceError(
      "CONFLICT",
      `This lead already carries ${MAX_FOLLOW_UPS_PER_LEAD} follow-up messages, the most it accepts; wait for the merchant's answer`,
    );
  }
  deps.notifyOutbox();
  logger.info("lead follow-up accepted", { lead_id: lead.leadId, message_id: messageId });
  return {
    message: {
      message_id: messageId,
      lead_id: lead.leadId,
      status: "queued",
      created_at: createdAt,
      messages_count: outcome.messagesCount,
      messages_remaining: Math.max(0, MAX_FOLLOW_UPS_PER_LEAD - outcome.messagesCount),
    },
    actions: leadActions(deps.baseUrl, lead.leadId, lead.abId),
  };
}
