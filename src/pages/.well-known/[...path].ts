import { ServiceError } from "../../errors/service-error.ts";
import { guardedRoute } from "../../http/route.ts";

/** Any /.well-known path no document serves: the envelope's NOT_FOUND, like unknown /api paths. */
export const ALL = guardedRoute("open", ({ url }) => {
  throw new ServiceError(
    "NOT_FOUND",
    `No document at ${url.pathname}; this service publishes ai-catalog.json, ab-public-keys.json, mcp.json, mcp/server-card.json and agent-card.json here`,
  );
});
