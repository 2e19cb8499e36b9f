import { methodNotAllowed } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { answerLinkUse } from "../../../publish/pro/letter-answers.ts";
import { spaceRoute } from "../../../publish/pro/space-http.ts";

/** Signs in with a link from the email (the button of GET /pro/lien?jeton=...). */
export const POST = spaceRoute(operation("useSignInLink"), async ({ app, request, body }) =>
  answerLinkUse(app, request, await body()),
);

export const ALL = methodNotAllowed(["POST"]);
