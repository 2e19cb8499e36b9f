import type { App } from "../app.ts";
import { actionsByRel } from "../domain/actions.ts";
import { type ResolveAnswer, resolveMerchant } from "../domain/registry/resolve-merchant.ts";
import { resolveDeps } from "../wiring.ts";
import { type PreparedEnvelope, prepareEnvelope, type RequestContext, type SuccessParts } from "./envelope.ts";

/** The resolve answer's envelope parts, for the REST route and the resolve_merchant tool alike. */
export function resolveEnvelopeParts(baseUrl: string, abId: string, answer: ResolveAnswer): SuccessParts {
  return {
    topLevel: { ...answer.resolved },
    actions: actionsByRel(answer.actions),
    state: answer.state,
    links: {
      canonical: `${baseUrl}/api/registry/resolve/${abId}`,
      alternate: `${baseUrl}/m/${abId}/ai.md`,
    },
  };
}

/**
 * The resolve answer of a merchant, serialized once and kept until the store changes or the
 * answer's own end of validity (a signal expiring) passes: a resolve then costs no query and no
 * serialization. Unknown and archived merchants are not kept (resolveMerchant throws).
 */
export async function preparedResolve(app: App, abId: string, context: RequestContext): Promise<PreparedEnvelope> {
  const revision = await app.merchants.revision();
  const nowIso = context.now.toISOString();
  const prepared = await app.preparedAnswers.readOrLoad(`resolve:${abId}`, revision, nowIso, async () => {
    const answer = await resolveMerchant(resolveDeps(app), abId);
    const envelope = prepareEnvelope(resolveEnvelopeParts(app.config.baseUrl, abId, answer));
    return { envelope, validUntil: answer.validUntil };
  });
  return prepared.envelope;
}
