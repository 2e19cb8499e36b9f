import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerSignOut } from "../../publish/pro/answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** Signs out (CSRF token required), at ProConnect too. */
export const POST = spaceRoute(operation("signOutOfMerchantSpace"), async ({ app, request, body }) =>
  answerSignOut(app, request, await body()),
);

export const ALL = methodNotAllowed(["POST"]);
