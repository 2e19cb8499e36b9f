import { reply } from "../http/reply.ts";
import { methodNotAllowed, route } from "../http/route.ts";
import { llmsTxt } from "../mcp/discovery.ts";
import { operation } from "../openapi/operations.ts";

/** /llms.txt: what the service is and where its machine-readable documents are (Markdown, served as text). */
export const GET = route(operation("getLlmsTxt"), ({ app, context }) =>
  reply(200, llmsTxt(app.config.baseUrl), {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "public, max-age=300",
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
