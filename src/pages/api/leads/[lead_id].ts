import { checkLeadStatus } from "../../../domain/leads/check-lead-status.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { trackingTokenOf } from "./_tracking-token.ts";

/**
 * GET /api/leads/{lead_id}: the lead's status for the holder of its tracking token
 * (X-Tracking-Token header, or ?token=). A wrong token answers exactly like an unknown lead.
 */
export const GET = route(operation("getLeadStatus"), async ({ app, request, url, context, pathParams }) => {
  const { lead_id } = pathParams();
  const trackingToken = trackingTokenOf(request, url.searchParams.get("token"));
  const { status, actions } = await checkLeadStatus(
    { leads: app.leads, trackingTokens: app.trackingTokens, baseUrl: app.config.baseUrl },
    { leadId: lead_id, trackingToken },
  );
  return ok(
    context,
    {
      data: status,
      actions,
      links: { canonical: `${app.config.baseUrl}/api/leads/${status.lead_id}` },
    },
    { headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["GET"]);
