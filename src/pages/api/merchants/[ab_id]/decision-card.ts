import { decisionCardWithState } from "../../../../domain/registry/decision-card.ts";
import { ok } from "../../../../http/respond.ts";
import { methodNotAllowed, parseInput, route } from "../../../../http/route.ts";
import { abIdParamsSchema } from "../../../../schemas/registry.ts";

export const GET = route("read", ({ app, params, context }) => {
  const { ab_id } = parseInput(abIdParamsSchema, params);
  const { card, state } = decisionCardWithState(
    {
      merchants: app.merchants,
      baseUrl: app.config.baseUrl,
      orderRailEnabled: app.config.publicOrderRailEnabled,
      now: app.now,
    },
    ab_id,
  );
  return ok(context, {
    data: card,
    state,
    links: {
      canonical: `${app.config.baseUrl}/api/merchants/${ab_id}/decision-card`,
      alternate: `${app.config.baseUrl}/m/${ab_id}/ai.md`,
    },
  });
});

export const ALL = methodNotAllowed(["GET"]);
