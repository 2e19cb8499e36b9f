import { jsonResponse } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { mcpServerCard } from "../../../mcp/discovery.ts";
import { operation } from "../../../openapi/operations.ts";

/** The MCP server card, bare (MCP clients read the card's own fields): the endpoint and its protocol versions. */
export const GET = route(operation("getMcpServerCard"), ({ app, context }) =>
  jsonResponse(200, mcpServerCard(app.config.baseUrl), {
    "cache-control": "public, max-age=300",
    "access-control-allow-origin": "*",
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
