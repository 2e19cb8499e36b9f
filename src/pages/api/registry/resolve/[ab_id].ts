import { resolveDeps } from "../../../../domain/registry/registry-deps.ts";
import { resolveMerchant } from "../../../../domain/registry/resolve-merchant.ts";
import { actionsByRel } from "../../../../http/actions.ts";
import { ok } from "../../../../http/respond.ts";
import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

export const GET = route("resolve", ({ app, params, context }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  const { actions, state, ...resolved } = resolveMerchant(resolveDeps(app), ab_id);
  return ok(context, {
    topLevel: resolved,
    actions: actionsByRel(actions),
    state,
    links: {
      canonical: `${app.config.baseUrl}/api/registry/resolve/${ab_id}`,
      alternate: `${app.config.baseUrl}/m/${ab_id}/ai.md`,
    },
  });
});

export const ALL = methodNotAllowed(["GET"]);
