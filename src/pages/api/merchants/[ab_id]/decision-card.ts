import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { renderDecisionCard } from "../../../../publish/decision-card.ts";
import { documentResponse, keptDocument } from "../../../../publish/http.ts";
import { loadView } from "../../../../publish/view.ts";

/**
 * The merchant decision card, rendered by the same function as the published file (so both give
 * the same bytes and ETag). Paused and suspended merchants keep a card: it tells agents why they
 * cannot act; archived ones are 404.
 */
export const GET = route(operation("getDecisionCard"), ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(
    keptDocument(
      app,
      "decision-card",
      ab_id,
      (deps) => loadView(deps, ab_id, (status) => status !== "ARCHIVED"),
      renderDecisionCard,
    ),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
