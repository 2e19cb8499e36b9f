import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerClaim } from "../../publish/pro/answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** Claims a listing of the person's establishment or company (CSRF token required). */
export const POST = spaceRoute(operation("claimListing"), async ({ app, request, body }) =>
  answerClaim(app, request, await body()),
);

export const ALL = methodNotAllowed(["POST"]);
