import { jsonResponse } from "../http/respond.ts";
import { methodNotAllowed, route } from "../http/route.ts";
import { openApiDocument } from "../openapi/document.ts";
import { operation } from "../openapi/operations.ts";

/** The OpenAPI 3.1 description, generated from the zod schemas at first request (bare, not in the envelope). */
export const GET = route(operation("getOpenApi"), ({ app, context }) =>
  jsonResponse(200, openApiDocument(app.config.baseUrl), {
    "cache-control": "public, max-age=300",
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
