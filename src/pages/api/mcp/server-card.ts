import { methodNotAllowed, route } from "../../../http/route.ts";
import { serverCardReply } from "../../../mcp/discovery.ts";
import { operation } from "../../../openapi/operations.ts";

/**
 * The MCP server card at the location the server-card proposal reserves, `<MCP endpoint>/server-card`,
 * bare (MCP clients read the card's own fields), as application/mcp-server-card+json.
 */
export const GET = route(operation("getMcpServerCardAtEndpoint"), ({ app, context }) =>
  serverCardReply(app.config.baseUrl, context.requestId),
);

export const ALL = methodNotAllowed(["GET"]);
