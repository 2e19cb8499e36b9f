import { ServiceError, validationError } from "../errors/service-error.ts";
import { guardedRoute, methodNotAllowed } from "./route.ts";

/**
 * What the server answers itself, before or instead of an endpoint: each a route, so each answer
 * is the whole envelope (guard, links, request id) like any other error.
 */

/** The request target does not percent-decode (`%ZZ`, a cut UTF-8 sequence). */
export const malformedTarget = guardedRoute("open", () => {
  throw validationError(
    [{ path: "", message: "the request target is not valid percent-encoding (RFC 3986)" }],
    "Malformed URL",
  );
});

/** A path under the API's prefixes that no endpoint file serves. */
export const unknownApiPath = guardedRoute("open", ({ url }) => {
  throw new ServiceError(
    "NOT_FOUND",
    `No route at ${url.pathname.slice(0, 200)}; see /openapi.json for the routes this API serves`,
  );
});

/** A method other than GET or HEAD on a page: pages are only read. */
export const pageMethodNotAllowed = methodNotAllowed(["GET"]);

/** Paths whose every answer is JSON in the envelope, whatever goes wrong. */
export function isApiPath(pathname: string): boolean {
  return (
    pathname === "/api" ||
    pathname.startsWith("/api/") ||
    pathname.startsWith("/.well-known/") ||
    pathname.startsWith("/openapi.json")
  );
}
