import { A2A_MAX_BODY_BYTES, handleA2aPost } from "../../a2a/server.ts";
import { withCors } from "../../http/cors.ts";
import { jsonRpcErrorReply, jsonRpcPreflight, jsonRpcRoute } from "../../http/json-rpc-endpoint.ts";
import { jsonResponse } from "../../http/respond.ts";
import { methodNotAllowed } from "../../http/route.ts";
import { logger } from "../../logging.ts";
import { toolContextFor } from "../../mcp/tool.ts";
import { operation } from "../../openapi/operations.ts";

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

/**
 * What the SDK's handler would answer 200 with -32602: a body that is not JSON (-32700) or not one
 * JSON-RPC object (-32600, batches included), answered 400 like on /api/mcp.
 */
function framingFault(body: string): { code: number; message: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch {
    return { code: -32700, message: "Parse error: the body is not valid JSON" };
  }
  if (Array.isArray(value)) {
    return { code: -32600, message: "Invalid Request: batches are not supported; send one request per POST" };
  }
  if (typeof value !== "object" || value === null) {
    return { code: -32600, message: "Invalid Request: the body must be a JSON-RPC 2.0 object" };
  }
  return null;
}

/**
 * POST /api/a2a: the A2A endpoint (JSON-RPC binding, 1.0 and 0.3 by the A2A-Version header). Host and Origin are checked first
 * (DNS rebinding), then the kill switch, API keys and rate limits answer as JSON-RPC errors with
 * their HTTP status (src/http/json-rpc-endpoint.ts); the message itself goes to the A2A SDK's
 * handler, whose skills are the MCP tools (src/a2a/).
 */
export const POST = withCors(
  jsonRpcRoute(
    operation("a2a"),
    { maxBytes: A2A_MAX_BODY_BYTES, headerNames: ["content-type", "a2a-version", "a2a-extensions"] },
    async ({ app, caller, context }, post) => {
      const headers = { "x-request-id": context.requestId, "cache-control": "no-store" };
      if (!JSON_TYPE.test(post.headers.get("content-type") ?? "")) {
        return jsonRpcErrorReply(
          415,
          null,
          -32600,
          "Invalid Request: Content-Type must be application/json",
          undefined,
          headers,
        );
      }
      if (post.body === null) {
        return jsonRpcErrorReply(
          413,
          null,
          -32600,
          `Invalid Request: the body is larger than ${A2A_MAX_BODY_BYTES} bytes`,
          { max_bytes: A2A_MAX_BODY_BYTES },
          headers,
        );
      }
      const framing = framingFault(post.body);
      if (framing !== null) return jsonRpcErrorReply(400, null, framing.code, framing.message, undefined, headers);
      try {
        const answer = await handleA2aPost(post.body, post.headers, toolContextFor(app, caller, context), post.id);
        return jsonResponse(answer.status, answer.body, headers);
      } catch (failure) {
        logger.error("a2a endpoint fault", {
          request_id: context.requestId,
          error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
        });
        return jsonRpcErrorReply(
          500,
          post.id,
          -32603,
          `Internal error (request id ${context.requestId})`,
          undefined,
          headers,
        );
      }
    },
  ),
);

/** Browsers ask first (CORS preflight), answered under the POST's own Host and Origin rule. */
export const OPTIONS = jsonRpcPreflight(["POST"]);

export const ALL = withCors(methodNotAllowed(["POST"]));
