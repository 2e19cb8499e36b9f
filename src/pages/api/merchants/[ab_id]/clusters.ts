import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { renderClusterList } from "../../../../publish/clusters.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

/** Every question-and-answer cluster of a published merchant. */
export const GET = route("read", ({ app, params, request }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  return documentResponse(request, renderClusterList(loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
