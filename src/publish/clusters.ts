import { action } from "../domain/actions.ts";
import { sha256Hex } from "../domain/canonical-json.ts";
import { clusterUrl } from "../domain/links.ts";
import type { QaCluster, QaNode } from "../domain/merchant.ts";
import { factConfidence, wordCount } from "../domain/registry/decision-card.ts";
import { merchantActions } from "../domain/registry/merchant-actions.ts";
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

/** `data` of GET /api/clusters/{cluster_id}: the nodes and how far their answers are verified. */
export function buildClusterDocument(view: MerchantView, cluster: QaCluster): ClusterDocument {
  const { baseUrl } = view.options;
  const nodes = cluster.nodes.map((node) => clusterNode(baseUrl, cluster.clusterId, node));
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
    verification: verificationSummary(cluster.nodes),
  };
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

function clusterNode(baseUrl: string, clusterId: string, node: QaNode): ClusterDocument["nodes"][number] {
  const confidence = factConfidence(node.factLevel);
  return {
    id: node.nodeId,
    intent: node.intent,
    question: node.question,
    answer: node.answer,
    answer_hash: sha256Hex(node.answer),
    answer_bluf: node.answerBluf,
    claim_sentence: node.claimSentence,
    word_count: wordCount(node.answer),
    verification_level: node.verificationLevel,
    edited_by_merchant: node.editedByMerchant,
    drift_severity: node.driftSeverity,
    human_verified_at: node.humanVerifiedAt,
    confidence,
    cite_url: `${clusterUrl(baseUrl, clusterId)}#${node.nodeId}`,
    grounding: { grounded: confidence !== "declared", evidence: node.factSourceUrl, grounding_stats: null },
    verification: {
      fact_level: node.factLevel,
      fact_source_url: node.factSourceUrl,
      human_reviewed_at: node.humanVerifiedAt,
      edited_by_merchant: node.editedByMerchant,
    },
  };
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export function verificationSummary(nodes: readonly QaNode[]): ClusterDocument["verification"] {
  const byLevel: Record<string, number> = {};
  const byFact: Record<string, number> = {};
  const byConfidence = { verified: 0, observed: 0, declared: 0 };
  let human = 0;
  let edited = 0;
  let grounded = 0;
  let drift = 0;
  let lastHuman: string | null = null;
  for (const node of nodes) {
    increment(byLevel, node.verificationLevel);
    increment(byFact, node.factLevel);
    const confidence = factConfidence(node.factLevel);
    byConfidence[confidence] += 1;
    if (confidence !== "declared") grounded += 1;
    if (node.humanVerifiedAt) {
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
    edited_by_merchant_count: edited,
    grounded_count: grounded,
    drift_count: drift,
    last_human_verified_at: lastHuman,
  };
}

function sortKeys(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
