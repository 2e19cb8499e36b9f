import { reply } from "./reply.ts";
import { type Endpoint, endpointOf } from "./route.ts";

/*
 * Cross-origin access for the tool endpoint, so MCP clients running in a browser can call it.
 * Any origin: the endpoint takes its credentials (an API key) from headers the page sets itself,
 * never from cookies, so another site's page gains nothing it could not do from a server.
 */
const ALLOWED_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "x-api-key",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "a2a-version",
  "a2a-extensions",
  "last-event-id",
  "x-request-id",
];
const EXPOSED_HEADERS = [
  "x-request-id",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
  "mcp-session-id",
  "www-authenticate",
];

/** Adds the cross-origin headers to every answer of a route, its error envelopes included. */
export function withCors<Wrapped extends Endpoint>(endpoint: Wrapped): Wrapped {
  const wrapped = endpointOf(async (input) => {
    const answer = await endpoint.handle(input);
    answer.headers["access-control-allow-origin"] = "*";
    answer.headers["access-control-expose-headers"] = EXPOSED_HEADERS.join(", ");
    return answer;
  });
  // The route's description (its `operation`) stays with it.
  const { operation } = endpoint as { operation?: unknown };
  return (operation === undefined ? wrapped : Object.assign(wrapped, { operation })) as Wrapped;
}

/** The preflight answer: which methods and headers a browser may send. */
export function corsPreflight(methods: string[]): Endpoint {
  return endpointOf(async () =>
    reply(204, null, {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": methods.join(", "),
      "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
      "access-control-max-age": "600",
    }),
  );
}
