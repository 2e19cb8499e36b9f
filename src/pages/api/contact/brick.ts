import { createLead } from "../../../domain/leads/create-lead.ts";
import { leadReceiptAnswer } from "../../../domain/leads/lead-receipt-answer.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, readJsonBody, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { parseIdempotencyKey } from "../../../schemas/common.ts";
import { LEAD_FORM_TOKEN_HEADER, LEAD_REQUEST_FIELDS, parseStrictRequest } from "../../../schemas/leads.ts";
import { leadDeps } from "../../../wiring.ts";

/**
 * POST /api/contact/brick: create a lead. 201 with lead_id, tracking_token, tracking_status;
 * 200 with the first lead's id and token and `deduplicated: true` for a duplicate from the same
 * caller within 24 hours (src/domain/leads/duplicate-rule.ts). An `Idempotency-Key` header (1-255
 * printable characters, scoped to the caller) replays the first answer for the same body and
 * refuses another body with 409 CONFLICT. The page's form sends its form token in
 * X-Lead-Form-Token: the lead is then told to the merchant as typed by the person in that form.
 */
export const POST = route(operation("createLead"), async ({ app, caller, request, context, operation }) => {
  const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
  const body = await readJsonBody(request);
  const lead = parseStrictRequest(operation.body, body, LEAD_REQUEST_FIELDS);
  const receipt = await createLead(leadDeps(app), lead, {
    caller: { agentId: caller.agentId, clientAddress: caller.clientAddress },
    formToken: request.headers.get(LEAD_FORM_TOKEN_HEADER),
    idempotencyKey,
  });
  const answer = leadReceiptAnswer(app.config.baseUrl, receipt);
  return ok(context, answer, {
    status: receipt.status,
    headers: {
      // The answer carries a bearer capability (the tracking token): never cache it.
      "cache-control": "no-store",
      ...(receipt.status === 201 ? { location: answer.links.canonical } : {}),
      ...(receipt.replayed ? { "idempotent-replayed": "true" } : {}),
    },
  });
});

export const ALL = methodNotAllowed(["POST"]);
