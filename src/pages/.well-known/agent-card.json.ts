import { agentCardJsonFor } from "../../a2a/card.ts";
import { jsonResponse } from "../../http/respond.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";

/**
 * The A2A agent card, bare (A2A clients read the card's own fields); skills come from the tool
 * registry. A 1.0 client says so in A2A-Version and reads the 1.0 card; a request without it (a
 * 0.3 client, which never sends it) reads the 0.3 shape, as the SDK's own card handler answers.
 */
export const GET = route(operation("getAgentCard"), ({ app, context, request }) =>
  jsonResponse(200, agentCardJsonFor(app.config.baseUrl, request.headers.get("a2a-version")), {
    "cache-control": "public, max-age=300",
    vary: "A2A-Version",
    "access-control-allow-origin": "*",
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
