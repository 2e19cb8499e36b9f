import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { renderJsonLd } from "../../../../publish/jsonld.ts";
import { loadPublishedView } from "../../../../publish/view.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

/** Schema.org JSON-LD of a published merchant (application/ld+json), the bytes the refresh job publishes. */
export const GET = route("read", ({ app, params, request }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  return documentResponse(request, renderJsonLd(loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
