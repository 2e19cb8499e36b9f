import { ServiceError } from "../../errors/service-error.ts";
import { text } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import type { QaCluster, QaNode } from "../merchant.ts";
import { MERCHANT_REVIEWED } from "../trust/answer-fact.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps } from "./merchant-registry.ts";

/** How long a corrected answer may be (the observations' answers are of this order). */
export const QA_ANSWER_MAX = 4_000;
/** The short answer (BLUF) a correction gets: its first sentence, at most this long. */
const BLUF_MAX = 200;

/**
 * A person of the merchant reads one of its Q&A answers and either vouches for it as it is
 * (`answer` absent) or corrects it. Either way the node is reviewed by the merchant now
 * (`merchant_reviewed`: the merchant's reading, never a verification by the registry); a vouch
 * leaves the answer's facts as they were. A correction makes the answer the merchant's own words:
 * `edited_by_merchant`, fact level `declared` resting on no signal (whatever it rested on spoke of
 * the old text), the answer replaced (so the published answer_hash changes) with its short form,
 * and the claim sentence emptied. One write with its audit event and change-feed row, as every
 * change of the lifecycle.
 */
export function reviewQaAnswer(
  deps: MerchantDecisionDeps,
  abId: string,
  input: { nodeId: string; answer?: unknown },
  actor: Actor,
): { abId: string; nodeId: string; revision: number } {
  const current = loadRegistered(deps, abId);
  const corrected = input.answer === undefined ? null : parseInput(text(QA_ANSWER_MAX), input.answer);
  const located = findNode(current.clusters, input.nodeId);
  if (!located) throw new ServiceError("NOT_FOUND", `Merchant ${abId} has no Q&A answer ${input.nodeId}`);
  if (current.merchant.status === "ARCHIVED") {
    throw new ServiceError("CONFLICT", `Merchant ${abId} is archived; an archived merchant is not edited`);
  }
  const nowIso = deps.now().toISOString();
  const before = located.node;
  const after: QaNode =
    corrected === null || corrected === before.answer
      ? { ...before, verificationLevel: MERCHANT_REVIEWED, humanVerifiedAt: nowIso }
      : {
          ...before,
          answer: corrected,
          answerBluf: firstSentence(corrected),
          claimSentence: "",
          editedByMerchant: true,
          factLevel: "declared",
          factSignal: null,
          verificationLevel: MERCHANT_REVIEWED,
          humanVerifiedAt: nowIso,
        };
  const clusters = current.clusters.map((cluster) =>
    cluster.clusterId !== located.cluster.clusterId
      ? cluster
      : {
          ...cluster,
          updatedAt: nowIso,
          nodes: cluster.nodes.map((node) => (node.nodeId === before.nodeId ? after : node)),
        },
  );
  const changes: Record<string, { from: unknown; to: unknown }> = {
    [`qa.${before.nodeId}.human_verified_at`]: { from: before.humanVerifiedAt, to: nowIso },
  };
  if (after.answer !== before.answer) changes[`qa.${before.nodeId}.answer`] = { from: before.answer, to: after.answer };
  if (after.factLevel !== before.factLevel) {
    changes[`qa.${before.nodeId}.fact_level`] = { from: before.factLevel, to: after.factLevel };
  }
  const written = deps.registry.update({
    abId,
    expectedRevision: current.revision,
    fields: { updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    clusters,
    event: { at: nowIso, actor, action: "qa_reviewed", changes, reason: null },
    feed: feedChange(current.merchant.status, current.merchant.status),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, nodeId: before.nodeId, revision: current.revision + 1 };
}

function findNode(clusters: readonly QaCluster[], nodeId: string): { cluster: QaCluster; node: QaNode } | null {
  for (const cluster of clusters) {
    const node = cluster.nodes.find((candidate) => candidate.nodeId === nodeId);
    if (node) return { cluster, node };
  }
  return null;
}

/** The first sentence of an answer, cut at a word when it is longer than a short answer may be. */
function firstSentence(answer: string): string {
  const sentence = answer.split(/(?<=[.!?…])\s/u)[0]?.trim() ?? answer;
  if (sentence.length <= BLUF_MAX) return sentence;
  const cut = sentence.slice(0, BLUF_MAX - 1);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 0 ? cut.lastIndexOf(" ") : cut.length)}…`;
}
