import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { renderAiDigest } from "../../../../publish/ai-digest.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

/** The AI digest in its envelope, the bytes the refresh job publishes. */
export const GET = route("read", ({ app, params, request }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  return documentResponse(request, renderAiDigest(loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
