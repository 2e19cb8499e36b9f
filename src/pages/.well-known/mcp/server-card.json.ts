import { methodNotAllowed, route } from "../../../http/route.ts";
import { serverCardReply } from "../../../mcp/discovery.ts";
import { operation } from "../../../openapi/operations.ts";

/**
 * The MCP server card where clients of the earlier proposal look for it: the same card as at
 * /api/mcp/server-card (the location the proposal now reserves), with the same headers.
 */
export const GET = route(operation("getMcpServerCard"), ({ app, context }) =>
  serverCardReply(app.config.baseUrl, context.requestId),
);

export const ALL = methodNotAllowed(["GET"]);
