import { methodNotAllowed } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { answerLeadList } from "../../../../publish/pro/lead-answers.ts";
import { spaceRoute } from "../../../../publish/pro/space-http.ts";

/** The leads of a listing the signed-in person manages (HTML, French), newest first, by pages. */
export const GET = spaceRoute(operation("getMerchantLeads"), ({ app, request, pathParams, query }) =>
  answerLeadList(app, request, pathParams().ab_id, query()),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
