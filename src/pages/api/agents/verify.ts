import { presentedKey } from "../../../domain/agents/api-keys.ts";
import { keyToCheck, verifyAgentKey } from "../../../domain/agents/verify-agent.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

/**
 * GET /api/agents/verify with the key in `Authorization: Bearer <key>` (or `X-API-Key`, or the
 * deprecated `token` query parameter): 200 with `valid`; 400 when no key is sent.
 */
export const GET = route(operation("verifyAgentKey"), async ({ app, context, query, request }) => {
  const { token } = query();
  const verification = await verifyAgentKey(
    { authenticator: app.access.authenticator, limits: app.config.rateLimitHourly },
    keyToCheck(presentedKey(request.headers), token),
  );
  return ok(context, { topLevel: verification }, { headers: { "cache-control": "no-store" } });
});

export const ALL = methodNotAllowed(["GET"]);
