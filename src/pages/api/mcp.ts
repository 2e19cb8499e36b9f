import { corsPreflight, withCors } from "../../http/cors.ts";
import { replyFromResponse } from "../../http/reply.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { logger } from "../../logging.ts";
import { handleMcpPost, jsonRpcError } from "../../mcp/server.ts";
import { operation } from "../../openapi/operations.ts";

/**
 * POST /api/mcp: the MCP tool endpoint (Streamable HTTP, stateless, JSON answers). The route
 * wrapper applies the kill switch (503), API keys (401/403) and rate limits (429) in the envelope
 * before any JSON-RPC is read; everything after that is JSON-RPC. Other methods answer 405 in the
 * envelope with `Allow: POST` (the SDK client then stops looking for an SSE stream). Every answer
 * allows cross-origin reads, and OPTIONS answers the browsers' preflight (src/http/cors.ts).
 */
export const POST = withCors(
  route(operation("mcp"), async ({ app, caller, request, context }) => {
    try {
      const response = await handleMcpPost(request.toWebRequest(), {
        toolContext: {
          app,
          caller,
          requestId: context.requestId,
          envelopeContext: (selfPath) => ({
            ...context,
            selfUrl: selfPath ? `${app.config.baseUrl}${selfPath}` : context.selfUrl,
            now: app.now(),
          }),
        },
      });
      const answer = await replyFromResponse(response);
      answer.headers["x-request-id"] = context.requestId;
      return answer;
    } catch (failure) {
      logger.error("mcp endpoint fault", {
        request_id: context.requestId,
        error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
      });
      return replyFromResponse(
        jsonRpcError(500, null, -32603, `Internal error (request id ${context.requestId})`, undefined, {
          "x-request-id": context.requestId,
        }),
      );
    }
  }),
);

/** Browsers ask first (CORS preflight); MCP clients running in a page can then call POST. */
export const OPTIONS = corsPreflight(["POST"]);

export const ALL = withCors(methodNotAllowed(["POST"]));
