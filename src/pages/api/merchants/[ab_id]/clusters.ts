import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { renderClusterList } from "../../../../publish/clusters.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/** Every question-and-answer cluster of a published merchant. */
export const GET = route(operation("listMerchantClusters"), async ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(renderClusterList(await loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
