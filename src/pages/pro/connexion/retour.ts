import { methodNotAllowed } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { answerSignInCallback } from "../../../publish/pro/answers.ts";
import { spaceRoute } from "../../../publish/pro/space-http.ts";

/** ProConnect's redirect URI ({BASE_URL}/pro/connexion/retour): ends the sign-in. */
export const GET = spaceRoute(operation("finishProConnectSignIn"), ({ app, request, url, query }) => {
  // The schema bounds the parameters; the provider's client reads them from the URL itself.
  query();
  return answerSignInCallback(app, request, url);
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
