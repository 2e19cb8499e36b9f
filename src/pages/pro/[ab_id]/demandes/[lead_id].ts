import { methodNotAllowed } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { answerLeadPage, answerLeadResponse } from "../../../../publish/pro/lead-answers.ts";
import { spaceRoute } from "../../../../publish/pro/space-http.ts";

/** One lead of a listing the signed-in person manages, with its follow-ups, answers and the answer form. */
export const GET = spaceRoute(operation("getMerchantLead"), ({ app, request, pathParams, query }) => {
  const { ab_id, lead_id } = pathParams();
  return answerLeadPage(app, request, { abId: ab_id, leadId: lead_id }, query());
});

/** The merchant's answer (emailed to the person) and/or the lead handled or declined; CSRF token required. */
export const POST = spaceRoute(operation("respondToMerchantLead"), async ({ app, request, pathParams, body }) => {
  const { ab_id, lead_id } = pathParams();
  return answerLeadResponse(app, request, { abId: ab_id, leadId: lead_id }, await body());
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
