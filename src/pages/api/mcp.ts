import { withCors } from "../../http/cors.ts";
import { jsonRpcErrorReply, jsonRpcPreflight, jsonRpcRoute } from "../../http/json-rpc-endpoint.ts";
import { replyFromResponse } from "../../http/reply.ts";
import { methodNotAllowed } from "../../http/route.ts";
import { logger } from "../../logging.ts";
import { handleMcpPost, MCP_MAX_BODY_BYTES } from "../../mcp/server.ts";
import { toolContextFor } from "../../mcp/tool.ts";
import { operation } from "../../openapi/operations.ts";

/** The request headers the MCP SDK reads (era, version, method and name of 2026-07-28 requests). */
const MCP_HEADERS = [
  "content-type",
  "accept",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id",
] as const;

/**
 * POST /api/mcp: the MCP tool endpoint (Streamable HTTP, stateless, JSON answers; 2026-07-28 and
 * the 2025 revisions). Host and Origin are checked first (DNS rebinding), then the kill switch
 * (503), API keys (401/403) and rate limits (429) answer as JSON-RPC error objects with their HTTP
 * status, before the message itself is looked at (src/http/json-rpc-endpoint.ts). Other methods
 * answer 405 in the envelope with `Allow: POST` (the SDK client then stops looking for an SSE
 * stream). Every answer allows cross-origin reads, and OPTIONS answers the browsers' preflight.
 */
export const POST = withCors(
  jsonRpcRoute(
    operation("mcp"),
    { maxBytes: MCP_MAX_BODY_BYTES, headerNames: MCP_HEADERS, batches: true },
    async ({ app, caller, context }, post) => {
      try {
        const response = await handleMcpPost(post, { toolContext: toolContextFor(app, caller, context) });
        const answer = await replyFromResponse(response);
        answer.headers["x-request-id"] = context.requestId;
        return answer;
      } catch (failure) {
        logger.error("mcp endpoint fault", {
          request_id: context.requestId,
          error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
        });
        return jsonRpcErrorReply(500, post.id, -32603, `Internal error (request id ${context.requestId})`, undefined, {
          "x-request-id": context.requestId,
        });
      }
    },
  ),
);

/** Browsers ask first (CORS preflight), answered under the POST's own Host and Origin rule. */
export const OPTIONS = jsonRpcPreflight(["POST"]);

export const ALL = withCors(methodNotAllowed(["POST"]));
