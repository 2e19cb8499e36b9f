import type { APIRoute } from "astro";

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
  "mcp-session-id",
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
export function withCors(handler: APIRoute): APIRoute {
  return async (context) => {
    const response = await handler(context);
    try {
      response.headers.set("access-control-allow-origin", "*");
      response.headers.set("access-control-expose-headers", EXPOSED_HEADERS.join(", "));
    } catch {
      // Immutable headers (a response passed through from elsewhere): it is answered as it is.
    }
    return response;
  };
}

/** The preflight answer: which methods and headers a browser may send. */
export function corsPreflight(methods: string[]): APIRoute {
  return () =>
    new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": methods.join(", "),
        "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
        "access-control-max-age": "600",
      },
    });
}
