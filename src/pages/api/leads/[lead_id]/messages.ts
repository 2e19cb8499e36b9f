import { sendLeadMessage } from "../../../../domain/leads/send-lead-message.ts";
import { ok } from "../../../../http/respond.ts";
import { methodNotAllowed, readJsonBody, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { FOLLOW_UP_FIELDS, parseStrictRequest } from "../../../../schemas/leads.ts";
import { leadDeps } from "../../../../wiring.ts";
import { trackingTokenOf } from "../_tracking-token.ts";

/**
 * POST /api/leads/{lead_id}/messages: a follow-up message from the agent to the merchant,
 * `{ "message": "...", "tracking_token"?: "..." }` (or the token in X-Tracking-Token). 201 with
 * the queued message; it reaches the merchant by email through the outbox.
 */
export const POST = route(operation("sendLeadMessage"), async ({ app, request, context, operation, pathParams }) => {
  const { lead_id } = pathParams();
  const body = parseStrictRequest(operation.body, await readJsonBody(request), FOLLOW_UP_FIELDS);
  const trackingToken = trackingTokenOf(request, body.tracking_token);
  const { message, actions } = await sendLeadMessage(leadDeps(app), {
    leadId: lead_id,
    trackingToken,
    message: body.message,
  });
  return ok(
    context,
    { data: message, actions, links: { lead: `${app.config.baseUrl}/api/leads/${lead_id}` } },
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["POST"]);
