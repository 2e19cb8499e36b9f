import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerSpaceHome } from "../../publish/pro/answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** The merchant space's door (HTML, French): signed out, how to get in; signed in, the person's listings. */
export const GET = spaceRoute(operation("getMerchantSpace"), ({ app, request, query }) =>
  answerSpaceHome(app, request, query()),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
