import { action } from "../domain/actions.ts";
import { clusterUrl } from "../domain/links.ts";
import type { QaCluster, QaNode, Signal } from "../domain/merchant.ts";
import { clusterNode } from "../domain/registry/decision-card.ts";
import { merchantActions } from "../domain/registry/merchant-actions.ts";
import { type AnswerFact, answerFactAt, MERCHANT_REVIEWED } from "../domain/trust/answer-fact.ts";
import type { ClusterDocument, ClusterList } from "../schemas/documents.ts";
import { JSON_TYPE, type RenderedDocument, renderedDocument, stableEnvelope } from "./document.ts";
import type { MerchantView } from "./view.ts";

/** `data` of GET /api/merchants/{ab_id}/clusters: every Q&A cluster of the merchant, in order. */
export function buildClusterList(view: MerchantView): ClusterList {
  const { baseUrl } = view.options;
  return {
    ab_id: view.profile.merchant.abId,
    clusters: view.profile.clusters.map((cluster) => ({
      cluster_id: cluster.clusterId,
      label: cluster.label,
      type: cluster.type,
      scope: cluster.scope,
      brick_id: cluster.brickId,
      node_count: cluster.nodes.length,
      url: clusterUrl(baseUrl, cluster.clusterId),
    })),
  };
}

export function renderClusterList(view: MerchantView): RenderedDocument {
  const { profile, assessment, links, options } = view;
  const text = stableEnvelope({
    data: buildClusterList(view),
    actions: [
      ...profile.clusters.map((cluster) =>
        action(`cluster`, "GET", clusterUrl(options.baseUrl, cluster.clusterId), `Q&A cluster: ${cluster.label}`),
      ),
      ...merchantActions(options.baseUrl, profile.merchant.abId, profile.merchant.sector, assessment.capabilities),
    ],
    canonical: links.clusters,
    links: { merchant: links.resolve, ai_md: links.aiMd },
    state: assessment.capabilities.state,
    timestamp: view.generatedAt,
  });
  return renderedDocument(text, JSON_TYPE);
}

/**
 * `data` of GET /api/clusters/{cluster_id}: the nodes and how far their answers are verified, read
 * at the view's instant (answerFactAt: a verified answer expires with the signal it rests on).
 */
export function buildClusterDocument(view: MerchantView, cluster: QaCluster): ClusterDocument {
  const { baseUrl } = view.options;
  const facts = answerFacts(cluster, view.profile.signals, view.options.now.toISOString());
  const nodes = cluster.nodes.map((node, index) => {
    const fact = facts[index] as AnswerFact;
    return { ...clusterNode(baseUrl, cluster.clusterId, node, fact), confidence: fact.confidence };
  });
  return {
    cluster_id: cluster.clusterId,
    ab_id: cluster.abId,
    label: cluster.label,
    type: cluster.type,
    scope: cluster.scope,
    brick_id: cluster.brickId,
    updated_at: cluster.updatedAt,
    node_count: nodes.length,
    nodes,
    verification: verificationSummary(cluster.nodes, facts),
  };
}

function answerFacts(cluster: QaCluster, signals: readonly Signal[], nowIso: string): AnswerFact[] {
  return cluster.nodes.map((node) => answerFactAt(node, signals, nowIso));
}

export function renderClusterDocument(view: MerchantView, cluster: QaCluster): RenderedDocument {
  const { profile, assessment, links, options } = view;
  const canonical = clusterUrl(options.baseUrl, cluster.clusterId);
  const text = stableEnvelope({
    data: buildClusterDocument(view, cluster),
    actions: [
      action("clusters", "GET", links.clusters, "Every Q&A cluster of this merchant"),
      ...merchantActions(options.baseUrl, profile.merchant.abId, profile.merchant.sector, assessment.capabilities),
    ],
    canonical,
    links: { merchant: links.resolve, clusters: links.clusters },
    state: assessment.capabilities.state,
    timestamp: view.generatedAt,
  });
  return renderedDocument(text, JSON_TYPE);
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * How far a cluster's answers are verified. `facts`: each node's answerFactAt, in node order. A
 * review counts as the platform's (`human_verified_*`, the cluster's status) unless the merchant
 * made it (`merchant_reviewed`): a merchant reading its own answers verifies nothing.
 */
export function verificationSummary(
  nodes: readonly QaNode[],
  facts: readonly AnswerFact[],
): ClusterDocument["verification"] {
  const byLevel: Record<string, number> = {};
  const byFact: Record<string, number> = {};
  const byConfidence = { verified: 0, observed: 0, declared: 0 };
  let human = 0;
  let merchantReviewed = 0;
  let edited = 0;
  let grounded = 0;
  let drift = 0;
  let lastHuman: string | null = null;
  for (const [index, node] of nodes.entries()) {
    increment(byLevel, node.verificationLevel);
    const { confidence } = facts[index] as AnswerFact;
    increment(byFact, confidence);
    byConfidence[confidence] += 1;
    if (confidence !== "declared") grounded += 1;
    if (node.humanVerifiedAt && node.verificationLevel === MERCHANT_REVIEWED) merchantReviewed += 1;
    else if (node.humanVerifiedAt) {
      human += 1;
      if (lastHuman === null || node.humanVerifiedAt > lastHuman) lastHuman = node.humanVerifiedAt;
    }
    if (node.editedByMerchant) edited += 1;
    if (node.driftSeverity) drift += 1;
  }
  const status =
    nodes.length === 0
      ? "empty"
      : human === nodes.length
        ? "human_verified"
        : human > 0
          ? "partially_human_verified"
          : "unverified";
  return {
    status,
    node_count: nodes.length,
    by_verification_level: sortKeys(byLevel),
    by_fact_level: sortKeys(byFact),
    by_confidence: byConfidence,
    human_verified_count: human,
    merchant_reviewed_count: merchantReviewed,
    edited_by_merchant_count: edited,
    grounded_count: grounded,
    drift_count: drift,
    last_human_verified_at: lastHuman,
  };
}

function sortKeys(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
