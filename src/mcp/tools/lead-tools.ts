import { z } from "zod";
import type { App } from "../../app.ts";
import { LEAD_FIELD_LIMITS } from "../../domain/lead-contract.ts";
import { checkLeadStatus } from "../../domain/leads/check-lead-status.ts";
import { createLead } from "../../domain/leads/create-lead.ts";
import { leadReceiptAnswer } from "../../domain/leads/lead-receipt-answer.ts";
import { sendLeadMessage } from "../../domain/leads/send-lead-message.ts";
import { successEnvelope } from "../../http/envelope.ts";
import { type Caller, permissionFor } from "../../http/guard.ts";
import {
  leadCreatedResponseSchema,
  leadMessageResponseSchema,
  leadStatusResponseSchema,
} from "../../openapi/responses.ts";
import { abIdSchema } from "../../schemas/common.ts";
import {
  IDEMPOTENCY_KEY_MAX,
  idempotencyKeySchema,
  LEAD_MESSAGE_MAX,
  LEAD_REQUEST_FIELDS,
  type LeadRequest,
  leadRequestSchema,
  PREFERRED_CONTACTS,
  parseStrictRequest,
  TRACKING_TOKEN_MAX,
} from "../../schemas/leads.ts";
import { leadDeps } from "../../wiring.ts";
import { defineTool, type Envelope, type ToolContext } from "../tool.ts";

const idempotencyArgument = idempotencyKeySchema
  .optional()
  .describe(
    `Optional key (1-${IDEMPOTENCY_KEY_MAX} printable characters) that makes a retry return the first answer instead of sending twice; reuse it only for the same lead`,
  );

const trackingTokenArgument = z
  .string()
  .trim()
  .min(1)
  .max(TRACKING_TOKEN_MAX)
  .describe("The tracking_token submit_lead or contact_merchant returned for this lead");
const leadIdArgument = z.uuid({ message: "must be a lead id (uuid)" }).describe("The lead_id returned with the lead");

/** Creates the lead with the REST route's domain function and answers the REST route's envelope. */
async function leadEnvelope(
  app: App,
  caller: Caller,
  context: ToolContext,
  lead: LeadRequest,
  key: string | undefined,
): Promise<Envelope> {
  // The same caller identity as the REST route: duplicates and idempotency answers are per caller.
  const receipt = await createLead(leadDeps(app), lead, {
    caller: { agentId: caller.agentId, clientAddress: caller.clientAddress },
    idempotencyKey: key ?? null,
  });
  return successEnvelope(context.envelopeContext("/api/contact/brick"), leadReceiptAnswer(app.config.baseUrl, receipt));
}

const AFTER_LEAD =
  'Returns lead_id and tracking_token (keep both: check_lead_status and send_lead_message need them; the token is shown to you only in this answer and in duplicates) and tracking_status "received". ' +
  "Sent again by you with the same contact email, merchant and lead type within 24 hours, it returns the first lead with deduplicated true instead of a second lead; a different message is added to that lead and emailed to the merchant. " +
  "If the merchant cannot be contacted the call fails with CONTACT_DISABLED and the reasons: choose another merchant. Tell the user the merchant answers them directly by email or phone.";

export const submitLead = defineTool({
  name: "submit_lead",
  twin: "createLead",
  title: "Send a lead to a merchant",
  description:
    "Send a full lead (an estimate, appointment, quote or contact request) to one merchant on behalf of the user: contact_name, contact_email and lead_type (estimation, contact, rdv, quote) are required; contact_phone, message, ai_context (your summary of the conversation, at most 5000 characters), intent_data (urgency, budget_range, project_type, timeline, preferred_contact), the sector fields of the merchant under metadata (call get_lead_fields first) and brick_id (the product it is about) are optional. " +
    "Use it for purchase intentions too: orders are closed to public agents. Only send details the user agreed to share. " +
    AFTER_LEAD,
  input: leadRequestSchema.extend({ idempotency_key: idempotencyArgument }),
  output: leadCreatedResponseSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  permission: permissionFor("lead"),
  run(args, context) {
    const { idempotency_key: key, ...lead } = args;
    return leadEnvelope(context.app, context.caller, context, lead, key);
  },
});

export const contactMerchant = defineTool({
  name: "contact_merchant",
  title: "Send a message to a merchant",
  description:
    'Send a simple contact message to one merchant (a lead of type "contact" without sector fields): the user\'s name, email, optional phone and preferred channel, and the message itself. ' +
    "Use it for a question or a callback request; for an estimate, a quote, an appointment or anything with sector details (dates, number of people, budget) use submit_lead instead. " +
    AFTER_LEAD,
  input: z.strictObject({
    ab_id: abIdSchema.describe("The merchant's identifier (from search_merchants)"),
    contact_name: leadRequestSchema.shape.contact_name.describe(
      `The user's name (1-${LEAD_FIELD_LIMITS.contact_name} characters)`,
    ),
    contact_email: leadRequestSchema.shape.contact_email.describe(
      "The user's email address, where the merchant answers",
    ),
    contact_phone: leadRequestSchema.shape.contact_phone.describe("The user's phone number, if they want a call back"),
    message: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(LEAD_FIELD_LIMITS.message, `must be at most ${LEAD_FIELD_LIMITS.message} characters`)
      .describe("The message to the merchant, in French if you can"),
    preferred_contact: z.enum(PREFERRED_CONTACTS).optional().describe("How the user prefers to be answered"),
    ai_context: leadRequestSchema.shape.ai_context.describe(
      `Your short summary of the user's need (at most ${LEAD_FIELD_LIMITS.ai_context} characters)`,
    ),
    idempotency_key: idempotencyArgument,
  }),
  output: leadCreatedResponseSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  permission: permissionFor("lead"),
  run(args, context) {
    // The lead endpoint's own schema: the same limits and messages as POST /api/contact/brick.
    const lead = parseStrictRequest(
      leadRequestSchema,
      {
        ab_id: args.ab_id,
        contact_name: args.contact_name,
        contact_email: args.contact_email,
        ...(args.contact_phone !== undefined ? { contact_phone: args.contact_phone } : {}),
        lead_type: "contact",
        message: args.message,
        ...(args.ai_context !== undefined ? { ai_context: args.ai_context } : {}),
        ...(args.preferred_contact !== undefined ? { intent_data: { preferred_contact: args.preferred_contact } } : {}),
      },
      LEAD_REQUEST_FIELDS,
    );
    return leadEnvelope(context.app, context.caller, context, lead, args.idempotency_key);
  },
});

export const checkLeadStatusTool = defineTool({
  name: "check_lead_status",
  twin: "getLeadStatus",
  title: "Status of a lead",
  description:
    "Follow a lead you sent: tracking_status (received, then delivered once the merchant's mailbox accepted it, or failed), when it was delivered, the merchant, and how many follow-up messages were sent and remain. " +
    "Also merchant_response: what the merchant did in its Abeille space (none, answered, handled or declined) and the answers it wrote there, which were also emailed to the user; a merchant may instead answer the user directly by email, which does not appear here. " +
    "Needs the lead_id and the tracking_token from submit_lead or contact_merchant; a wrong token answers like an unknown lead. Next: send_lead_message to add information.",
  input: z.strictObject({ lead_id: leadIdArgument, tracking_token: trackingTokenArgument }),
  output: leadStatusResponseSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, { app, envelopeContext }) {
    const { status, actions } = checkLeadStatus(
      { leads: app.leads, trackingTokens: app.trackingTokens, baseUrl: app.config.baseUrl },
      { leadId: args.lead_id, trackingToken: args.tracking_token },
    );
    return successEnvelope(envelopeContext(`/api/leads/${status.lead_id}`), {
      data: status,
      actions,
      links: { canonical: `${app.config.baseUrl}/api/leads/${status.lead_id}` },
    });
  },
});

export const sendLeadMessageTool = defineTool({
  name: "send_lead_message",
  twin: "sendLeadMessage",
  title: "Follow-up message on a lead",
  description:
    `Add a follow-up message (at most ${LEAD_MESSAGE_MAX} characters) to a lead you sent, e.g. a detail the user forgot or a change of date; it is emailed to the merchant. ` +
    "Needs the lead_id and its tracking_token. Each call sends one more message (a limited number per lead: see messages_remaining), so do not repeat a message. " +
    "Fails with CONTACT_DISABLED when the merchant can no longer be contacted. Next: check_lead_status to follow delivery.",
  input: z.strictObject({
    lead_id: leadIdArgument,
    tracking_token: trackingTokenArgument,
    message: z.string().trim().min(1).max(LEAD_MESSAGE_MAX).describe("The message to the merchant"),
  }),
  output: leadMessageResponseSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  permission: permissionFor("lead"),
  async run(args, { app, envelopeContext }) {
    const { message, actions } = await sendLeadMessage(leadDeps(app), {
      leadId: args.lead_id,
      trackingToken: args.tracking_token,
      message: args.message,
    });
    return successEnvelope(envelopeContext(`/api/leads/${args.lead_id}/messages`), {
      data: message,
      actions,
      links: { lead: `${app.config.baseUrl}/api/leads/${args.lead_id}` },
    });
  },
});

export const leadTools = [submitLead, contactMerchant, checkLeadStatusTool, sendLeadMessageTool];
