import { methodNotAllowed } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { answerListingSpace, answerListingSpaceForm } from "../../../publish/pro/listing-answers.ts";
import { spaceRoute } from "../../../publish/pro/space-http.ts";

/** A claimed listing in the merchant space (HTML, French): how agents see it, and its forms. */
export const GET = spaceRoute(operation("getMerchantListingSpace"), ({ app, request, params }) =>
  answerListingSpace(app, request, params.ab_id ?? ""),
);

/** One form of the listing's space (CSRF token required). */
export const POST = spaceRoute(operation("submitMerchantListingForm"), async ({ app, request, params, body }) =>
  answerListingSpaceForm(app, request, params.ab_id ?? "", await body()),
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
