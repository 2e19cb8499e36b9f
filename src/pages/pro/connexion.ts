import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerStartSignIn } from "../../publish/pro/answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** Starts signing in with ProConnect: a redirect to its authorization endpoint. */
export const GET = spaceRoute(operation("startProConnectSignIn"), ({ app, query }) => answerStartSignIn(app, query()));

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
