import { methodNotAllowed, route } from "../http/route.ts";
import { llmsTxt } from "../mcp/discovery.ts";

/** /llms.txt: what the service is and where its machine-readable documents are (Markdown, served as text). */
export const GET = route(
  "open",
  ({ app, context }) =>
    new Response(llmsTxt(app.config.baseUrl), {
      status: 200,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "cache-control": "public, max-age=300",
        "access-control-allow-origin": "*",
        "x-request-id": context.requestId,
      },
    }),
);

export const ALL = methodNotAllowed(["GET"]);
