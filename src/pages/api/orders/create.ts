import { actionsByRel } from "../../../domain/actions.ts";
import { createOrder, orderDisabled } from "../../../domain/orders/create-order.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { parseIdempotencyKey } from "../../../schemas/common.ts";

/**
 * POST /api/orders/create. While PUBLIC_ORDER_RAIL_ENABLED is false every call answers
 * 400 ORDER_DISABLED before the body is even read (empty, malformed or oversized alike).
 * The guard has already answered the kill switch (503), bad keys (401/403) and quotas (429);
 * with the rail open it also requires orders:write (level 4) before this handler runs.
 */
export const POST = route(operation("createOrder"), async ({ app, request, caller, context, body }) => {
  if (!app.config.publicOrderRailEnabled) throw orderDisabled();
  const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
  const input = await body();
  const { actions, state, replayed, ...order } = await createOrder(
    {
      merchants: app.merchants,
      orders: app.orders,
      payments: app.payments,
      baseUrl: app.config.baseUrl,
      orderRailEnabled: app.config.publicOrderRailEnabled,
      now: app.now,
    },
    input,
    caller,
    idempotencyKey,
  );
  return ok(
    context,
    {
      topLevel: order,
      actions: actionsByRel(actions),
      state,
      links: {
        merchant: `${app.config.baseUrl}/api/registry/resolve/${order.ab_id}`,
        payment: order.payment.payment_link,
      },
    },
    { status: 201, headers: { "cache-control": "no-store", ...(replayed ? { "idempotent-replayed": "true" } : {}) } },
  );
});

export const ALL = methodNotAllowed(["POST"]);
