import { methodNotAllowed } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { answerLeadEmailConfirmation, answerLeadEmailLink } from "../../../../publish/pro/listing-answers.ts";
import { spaceRoute } from "../../../../publish/pro/space-http.ts";

/** The link sent to a new lead email: a page whose button confirms it (opening it changes nothing). */
export const GET = spaceRoute(operation("showLeadEmailConfirmation"), ({ app, params, query }) =>
  answerLeadEmailLink(app, params.ab_id ?? "", query().jeton),
);

/** Confirms the new lead email (the link's token; no session needed). */
export const POST = spaceRoute(operation("confirmLeadEmail"), async ({ app, params, body }) =>
  answerLeadEmailConfirmation(app, params.ab_id ?? "", (await body()).jeton),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
