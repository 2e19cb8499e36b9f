import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { renderAiDigest } from "../../../../publish/ai-digest.ts";
import { documentResponse, keptDocument } from "../../../../publish/http.ts";
import { loadPublishedView } from "../../../../publish/view.ts";

/** The AI digest in its envelope, the bytes the refresh job publishes. */
export const GET = route(operation("getMerchantAiDigest"), async ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(
    await keptDocument(app, "ai-digest", ab_id, (deps) => loadPublishedView(deps, ab_id), renderAiDigest),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
