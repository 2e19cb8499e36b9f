import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from "./conventions.ts";
import { reply } from "./reply.ts";
import { type Endpoint, endpointOf } from "./route.ts";

/*
 * Cross-origin access, the same on every route: any origin may read the public answers (the
 * server edge adds it to every answer but people's pages, src/http/conventions.ts) and every
 * route answers a preflight (src/http/router.ts). Any origin: the service takes its credentials
 * (an API key) from headers the page sets itself, never from cookies, so another site's page
 * gains nothing it could not do from a server.
 */
/** Adds the cross-origin headers to every answer of a route, its error envelopes included. */
export function withCors<Wrapped extends Endpoint>(endpoint: Wrapped): Wrapped {
  const wrapped = endpointOf(async (input) => {
    const answer = await endpoint.handle(input);
    answer.headers["access-control-allow-origin"] = "*";
    answer.headers["access-control-expose-headers"] = CORS_EXPOSED_HEADERS.join(", ");
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
      allow: methods.join(", "),
      "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(", "),
      "access-control-max-age": "600",
    }),
  );
}
