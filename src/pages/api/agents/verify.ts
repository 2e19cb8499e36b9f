import { verifyAgentKey } from "../../../domain/agents/verify-agent.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

/** GET /api/agents/verify?token=<api key>: 200 with `valid`; 400 when `token` is missing. */
export const GET = route(operation("verifyAgentKey"), ({ app, context, query }) => {
  const { token } = query();
  const verification = verifyAgentKey(
    { authenticator: app.access.authenticator, limits: app.config.rateLimitHourly },
    token,
  );
  return ok(context, { topLevel: verification }, { headers: { "cache-control": "no-store" } });
});

export const ALL = methodNotAllowed(["GET"]);
