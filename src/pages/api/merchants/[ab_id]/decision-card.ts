import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { renderDecisionCard } from "../../../../publish/decision-card.ts";
import { documentResponse, keptDocument } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/**
 * The merchant decision card, rendered by the same function as the published file (so both give
 * the same bytes and ETag). A paused merchant keeps its card (it tells agents why they cannot
 * act); suspended and archived ones are 404 like an unknown id, as every merchant document.
 */
export const GET = route(operation("getDecisionCard"), async ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(
    await keptDocument(app, "decision-card", ab_id, (deps) => loadPublishedView(deps, ab_id), renderDecisionCard),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
