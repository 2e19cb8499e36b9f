import { methodNotAllowed } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { answerCodeForm, answerCodePage } from "../../publish/pro/letter-answers.ts";
import { spaceRoute } from "../../publish/pro/space-http.ts";

/** The code of a letter sent by post (HTML, French): the form, and what the code opens. */
export const GET = spaceRoute(operation("getLetterCodePage"), ({ app, request }) => answerCodePage(app, request));

export const POST = spaceRoute(operation("submitLetterCode"), async ({ app, request, body }) =>
  answerCodeForm(app, request, await body()),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
