import { methodNotAllowed } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { documentResponse, FORM_FAILURES, pageRoute } from "../publish/http.ts";
import { answerTrackingForm, renderTrackingPage } from "../publish/lead-tracking.ts";

/** The tracking page (HTML, French): a person follows a request with its tracking code. */
export const GET = pageRoute(operation("getLeadTrackingPage"), () =>
  documentResponse(renderTrackingPage({ kind: "ask" }), { cacheControl: "public, max-age=300" }),
);

export const POST = pageRoute(
  operation("submitLeadTrackingForm"),
  async ({ app, body }) => {
    const { status, document } = await answerTrackingForm(app, await body());
    // The answer follows from a bearer code: never cached.
    return documentResponse(document, { status, cacheControl: "no-store" });
  },
  FORM_FAILURES,
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
