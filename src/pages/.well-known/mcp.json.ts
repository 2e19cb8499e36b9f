import { action } from "../../domain/actions.ts";
import { ok } from "../../http/respond.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { discoveryLinks, mcpDiscovery } from "../../mcp/discovery.ts";
import { operation } from "../../openapi/operations.ts";

/**
 * The MCP tool schemas and how to reach the endpoint, generated from the registry behind
 * tools/list. In the navigation envelope like every /.well-known JSON answer but the key set, with
 * the document's fields at the top level, where MCP discovery readers look for them.
 */
export const GET = route(operation("getMcpDiscovery"), ({ app, context }) => {
  const baseUrl = app.config.baseUrl;
  const links = discoveryLinks(baseUrl);
  return ok(
    context,
    {
      topLevel: mcpDiscovery(baseUrl),
      actions: [
        action("mcp", "POST", `${baseUrl}/api/mcp`, "Call the MCP endpoint (JSON-RPC 2.0)", [
          { name: "jsonrpc", type: "string", required: true },
          { name: "id", type: "string", required: false },
          { name: "method", type: "string", required: true },
          { name: "params", type: "object", required: false },
        ]),
        action("describedby", "GET", links.openapi ?? `${baseUrl}/openapi.json`, "Read the API description"),
      ],
      links: { canonical: `${baseUrl}/.well-known/mcp.json`, ...links },
    },
    { headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" } },
  );
});

export const ALL = methodNotAllowed(["GET"]);
