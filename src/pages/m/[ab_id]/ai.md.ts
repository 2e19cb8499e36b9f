import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { renderAiMd } from "../../../publish/ai-md.ts";
import { documentResponse, keptDocument } from "../../../publish/http.ts";
import { loadPublishedView } from "../../../publish/view.ts";

/** The microsite as Markdown for language models (text/markdown), the bytes the refresh job publishes. */
export const GET = route(operation("getMerchantAiMd"), async ({ app, pathParams }) => {
  const { ab_id } = pathParams();
  return documentResponse(
    await keptDocument(app, "ai-md", ab_id, (deps) => loadPublishedView(deps, ab_id), renderAiMd),
  );
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
