import { action } from "../../../../domain/actions.ts";
import { merchantEvidence } from "../../../../domain/evidence/merchant-evidence.ts";
import { evidenceUrl, isEvidenceSignal } from "../../../../domain/evidence/signal-evidence.ts";
import { EVIDENCE_SIGNALS } from "../../../../domain/trust/signal-catalog.ts";
import { errorEnvelope, type RequestContext } from "../../../../http/envelope.ts";
import type { Reply } from "../../../../http/reply.ts";
import { jsonResponse, ok } from "../../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { decisionCardUrl, evidenceActions } from "../../../../signing/actions.ts";
import { resolveDeps } from "../../../../wiring.ts";

/** Evidence for one of the 26 signals: checked in the order ab_id format, signal name, merchant. */
export const GET = route(operation("getSignalEvidence"), async ({ app, context, pathParams }) => {
  const { signal, ab_id } = pathParams();
  if (!isEvidenceSignal(signal)) return unknownSignal(context, signal, ab_id);
  const { evidence, state } = await merchantEvidence(resolveDeps(app), signal, ab_id);
  return ok(context, {
    data: evidence,
    state,
    actions: evidenceActions(app.config.baseUrl, ab_id),
    links: { canonical: evidenceUrl(app.config.baseUrl, signal, ab_id) },
  });
});

/** 404 NOT_FOUND naming the valid signals; the decision card lists every evidence URL. */
function unknownSignal(context: RequestContext, signal: string, abId: string): Reply {
  const shown = signal.length > 64 ? `${signal.slice(0, 64)}…` : signal;
  const body = errorEnvelope(context, {
    code: "NOT_FOUND",
    message: `Unknown signal "${shown}"; valid signals: ${EVIDENCE_SIGNALS.join(", ")}`,
    data: null,
    actions: [
      action(
        "decision_card",
        "GET",
        decisionCardUrl(context.baseUrl, abId),
        "Decision card: verification_capsule.evidence_endpoints lists every evidence page of this merchant",
      ),
    ],
  });
  return jsonResponse(404, body, { "x-request-id": context.requestId });
}

export const ALL = methodNotAllowed(["GET"]);
