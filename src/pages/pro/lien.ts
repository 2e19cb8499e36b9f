import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerLinkPage, answerLinkRequest } from "../../publish/pro/letter-answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** Sign-in links for merchants who came in by letter: ask one by email, or open one. */
export const GET = spaceRoute(operation("getSignInLinkPage"), ({ app, request, query }) =>
  answerLinkPage(app, request, query()),
);

export const POST = spaceRoute(operation("requestSignInLink"), async ({ app, request, body }) =>
  answerLinkRequest(app, request, await body()),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
