import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { documentResponse, keptDocument } from "../../../../publish/http.ts";
import { renderJsonLd } from "../../../../publish/jsonld.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/** Schema.org JSON-LD of a published merchant (application/ld+json), the bytes the refresh job publishes. */
export const GET = route(operation("getMerchantJsonLd"), async ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(
    await keptDocument(app, "jsonld", ab_id, (deps) => loadPublishedView(deps, ab_id), renderJsonLd),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
