import { action } from "../../../domain/actions.ts";
import { openSession } from "../../../domain/attribution/sessions.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

/** POST /api/attribution/session: 201 with the session in `data` (docs/attribution.md). */
export const POST = route(operation("openAttributionSession"), async ({ app, request, caller, context, body }) => {
  const input = await body();
  const session = await openSession(
    { attribution: app.attribution, merchants: app.merchants, now: app.now },
    input,
    caller,
    request.headers.get("user-agent"),
  );
  const baseUrl = app.config.baseUrl;
  return ok(
    context,
    {
      data: session,
      actions: [
        action(
          "convert",
          "POST",
          `${baseUrl}/api/attribution/convert`,
          "Mark the session converted by a lead or an order",
          [
            { name: "session_id", type: "string", required: true },
            { name: "lead_id", type: "string", required: false },
            { name: "order_id", type: "string", required: false },
          ],
        ),
      ],
    },
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["POST"]);
