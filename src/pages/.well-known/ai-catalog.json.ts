import { jsonResponse } from "../../http/respond.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { AI_CATALOG_MEDIA_TYPE, signedAiCatalog } from "../../mcp/ai-catalog.ts";
import { discoveryDocumentHeaders } from "../../mcp/discovery.ts";
import { operation } from "../../openapi/operations.ts";
import { keyStoreFor } from "../../signing/registry.ts";

/**
 * The AI Catalog, bare (catalog readers read its own fields): the MCP server card and the A2A
 * agent card, signed with the registry's key (src/mcp/ai-catalog.ts).
 */
export const GET = route(operation("getAiCatalog"), ({ app, context }) =>
  jsonResponse(
    200,
    signedAiCatalog(app.config.baseUrl, keyStoreFor(app), app.now()),
    discoveryDocumentHeaders(AI_CATALOG_MEDIA_TYPE, context.requestId),
  ),
);

export const ALL = methodNotAllowed(["GET"]);
