import { agentCardJson } from "../../a2a/card.ts";
import { jsonResponse } from "../../http/respond.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";

/** The A2A agent card (protocol 1.0), bare (A2A clients read the card's own fields); skills come from the tool registry. */
export const GET = route(operation("getAgentCard"), ({ app, context }) =>
  jsonResponse(200, agentCardJson(app.config.baseUrl), {
    "cache-control": "public, max-age=300",
    "access-control-allow-origin": "*",
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
