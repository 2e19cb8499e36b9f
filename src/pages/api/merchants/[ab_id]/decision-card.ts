import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { renderDecisionCard } from "../../../../publish/decision-card.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { loadView } from "../../../../publish/view.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

/**
 * The merchant decision card, rendered by the same function as the published file (so both give
 * the same bytes and ETag). Paused and suspended merchants keep a card: it tells agents why they
 * cannot act; archived ones are 404.
 */
export const GET = route("read", ({ app, params, request }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  return documentResponse(
    request,
    renderDecisionCard(loadView(viewDepsOf(app), ab_id, (status) => status !== "ARCHIVED")),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
