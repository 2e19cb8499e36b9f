import { ServiceError } from "../../errors/service-error.ts";
import { guardedRoute } from "../../http/route.ts";

/** Any /api path no endpoint serves: the envelope's NOT_FOUND rather than an HTML page. */
export const ALL = guardedRoute("open", ({ url }) => {
  throw new ServiceError("NOT_FOUND", `No route at ${url.pathname}; see /openapi.json for the routes this API serves`);
});
