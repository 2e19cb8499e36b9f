import { registrantKey } from "../../../domain/access/client-address.ts";
import { action } from "../../../domain/actions.ts";
import { registerAgent } from "../../../domain/agents/register-agent.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

/** POST /api/agents/register: 201 with the agent record; the API key is in this answer only. */
export const POST = route(operation("registerAgent"), async ({ app, caller, context, body }) => {
  const input = await body();
  const registration = await registerAgent(
    { agents: app.agents, limits: app.config.rateLimitHourly, now: app.now },
    input,
    {
      registeredFrom: registrantKey(caller.clientAddress),
    },
  );
  const baseUrl = app.config.baseUrl;
  return ok(
    context,
    {
      topLevel: { ...registration },
      actions: [
        action(
          "verify_key",
          "GET",
          `${baseUrl}/api/agents/verify`,
          "Check the key and what it allows: send it in Authorization: Bearer <api key>, as on every call",
        ),
        action("search", "GET", `${baseUrl}/api/registry/search?q={q}`, "Search the registry with the key", [
          { name: "q", type: "string", required: true },
        ]),
      ],
      links: { describedby: `${baseUrl}/openapi.json` },
    },
    // The answer carries a secret: never stored by a cache.
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["POST"]);
