import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { renderAiDigest } from "../../../../publish/ai-digest.ts";
import { documentResponse, viewDepsOf } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/** The AI digest in its envelope, the bytes the refresh job publishes. */
export const GET = route(operation("getMerchantAiDigest"), ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(renderAiDigest(loadPublishedView(viewDepsOf(app), ab_id)));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
