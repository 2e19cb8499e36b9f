import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { renderJsonLd } from "../../../../publish/jsonld.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/** Schema.org JSON-LD of a published merchant (application/ld+json), the bytes the refresh job publishes. */
export const GET = route(operation("getMerchantJsonLd"), ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(renderJsonLd(loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
