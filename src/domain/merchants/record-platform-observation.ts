import { randomUUID } from "node:crypto";
import { ServiceError, type ValidationIssue, validationError } from "../../errors/service-error.ts";
import { parseInput } from "../../schemas/parse.ts";
import { type ObservedSignal, platformObservationSchema } from "../../schemas/platform-observation.ts";
import type { Merchant, QaCluster, Signal } from "../merchant.ts";
import { proofStatusFor, signalApplies, signalCatalog } from "../trust/signal-catalog.ts";
import { differingFields, diffOf } from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps, RegisteredMerchant } from "./merchant-registry.ts";

export interface RecordedObservation {
  abId: string;
  /** What the observation changed; empty when it saw what was already stored (nothing written). */
  changed: string[];
  revision: number;
}

const SIGNAL_FIELDS = ["status", "source", "sourceUrl", "value", "verifiedAt", "recordedAt", "expiresAt"] as const;
const definitions = new Map(signalCatalog.map((definition) => [definition.key, definition]));
const iso = (instant: string) => new Date(instant).toISOString();
const isoOrNull = (instant: string | null | undefined) => (instant ? iso(instant) : null);

/**
 * Records what the platform observed of a registered merchant (found by its SIRET): listing,
 * website age, photos, other pages, payment readiness, evidence signals with the source the
 * catalog gives their key, and the Q&A clusters. Only what differs is written, in one
 * transaction with its audit event and change-feed row; the same observation twice changes
 * nothing the second time. An archived merchant is not observed.
 */
export function recordPlatformObservation(
  deps: MerchantDecisionDeps,
  input: unknown,
  actor: Actor,
): RecordedObservation {
  const observation = parseInput(platformObservationSchema, input);
  const abId = deps.registry.abIdOfSiret(observation.siret);
  if (!abId) {
    throw new ServiceError("MERCHANT_NOT_FOUND", `No merchant has SIRET ${observation.siret}; import or add it first`);
  }
  const current = loadRegistered(deps, abId);
  const { merchant } = current;
  if (merchant.status === "ARCHIVED") {
    throw new ServiceError("CONFLICT", `Merchant ${abId} is archived; an archived merchant is not observed`);
  }
  const issues: ValidationIssue[] = [];
  const signals = (observation.signals ?? []).map((signal, index) => signalOf(signal, merchant, index, issues));
  const clusters = observation.qa_clusters
    ? clustersOf(observation.qa_clusters, current, signalsAfter(current.signals, signals), deps, issues)
    : undefined;
  if (issues.length > 0) throw validationError(issues);

  const fields = observedFields(merchant, observation);
  const changes = diffOf(merchant, fields);
  const accountId = observation.payment ? observation.payment.account_id : undefined;
  const accountChanged = accountId !== undefined && accountId !== current.paymentAccountId;
  if (accountChanged) changes.paymentAccountId = { from: current.paymentAccountId, to: accountId };
  const changedSignals = signals.filter((signal) => {
    const known = current.signals.find((candidate) => candidate.key === signal.key);
    return !known || SIGNAL_FIELDS.some((field) => known[field] !== signal[field]);
  });
  if (changedSignals.length > 0) {
    changes.signals = {
      from: changedSignals.map((signal) => current.signals.find((known) => known.key === signal.key)?.status ?? null),
      to: changedSignals.map((signal) => `${signal.key}:${signal.status}`),
    };
  }
  const clustersChanged = clusters !== undefined && comparable(clusters) !== comparable(current.clusters);
  if (clustersChanged) {
    changes.qa_clusters = { from: current.clusters.length, to: clusters.length };
  }
  const changed = Object.keys(changes);
  if (changed.length === 0) return { abId, changed, revision: current.revision };

  const nowIso = deps.now().toISOString();
  const written = deps.registry.update({
    abId,
    expectedRevision: current.revision,
    fields: { ...fields, updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    signals: changedSignals,
    clusters: clustersChanged ? clusters : undefined,
    paymentAccountId: accountChanged ? accountId : undefined,
    event: {
      at: nowIso,
      actor,
      action: "observed",
      changes,
      reason: `observation de la plateforme du ${iso(observation.observed_at)}`,
    },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(abId);
  return { abId, changed, revision: current.revision + 1 };
}

/** The merchant's columns the observation sets (only those that differ from what is stored). */
function observedFields(
  merchant: Merchant,
  observation: ReturnType<typeof platformObservationSchema.parse>,
): Partial<Merchant> {
  const { next, set } = differingFields(merchant);
  if (observation.website !== undefined) set("domainAgeYears", observation.website.domain_age_years);
  if (observation.listing !== undefined) {
    set("listingRating", observation.listing?.rating ?? null);
    set("listingReviewCount", observation.listing?.review_count ?? null);
    set("listingPhotosCount", observation.listing?.photos_count ?? 0);
  }
  if (observation.terrain_photos !== undefined) set("terrainPhotos", observation.terrain_photos);
  if (observation.same_as !== undefined) set("sameAs", observation.same_as);
  if (observation.payment !== undefined) set("paymentSetup", observation.payment.ready);
  return next;
}

/** A signal as the catalog says its key is sourced; a key outside the merchant's sector is an issue. */
function signalOf(signal: ObservedSignal, merchant: Merchant, index: number, issues: ValidationIssue[]): Signal {
  // The schema accepts catalog keys only.
  const definition = definitions.get(signal.key) as NonNullable<ReturnType<typeof definitions.get>>;
  if (!signalApplies(definition, merchant.sector)) {
    issues.push({ path: `signals.${index}.key`, message: `does not apply to the sector ${merchant.sector}` });
  }
  return {
    key: signal.key,
    status: signal.status as Signal["status"],
    proofStatus: proofStatusFor(definition.source),
    source: definition.source,
    sourceUrl: signal.source_url ?? null,
    value: signal.value,
    verifiedAt: isoOrNull(signal.verified_at),
    recordedAt: iso(signal.recorded_at),
    expiresAt: isoOrNull(signal.expires_at),
  };
}

/** The merchant's signals once the observation's are recorded (an observed signal replaces its key's). */
function signalsAfter(stored: readonly Signal[], observed: readonly Signal[]): Signal[] {
  const observedKeys = new Set(observed.map((signal) => signal.key));
  return [...stored.filter((signal) => !observedKeys.has(signal.key)), ...observed];
}

/**
 * The observed clusters as nodes to store. A verified answer's signal must be one the merchant has,
 * recorded as verified (its expiry is read at each instant, src/domain/trust/answer-fact.ts).
 */
function clustersOf(
  declared: NonNullable<ReturnType<typeof platformObservationSchema.parse>["qa_clusters"]>,
  current: RegisteredMerchant,
  signals: readonly Signal[],
  deps: MerchantDecisionDeps,
  issues: ValidationIssue[],
): QaCluster[] {
  const verifiedKeys = new Set(signals.filter((signal) => signal.status === "verified").map((signal) => signal.key));
  const newId = deps.newId ?? randomUUID;
  const bySlug = new Map(current.products.map((product) => [product.slug, product]));
  return declared.map((cluster, position) => {
    const product = cluster.product_slug ? bySlug.get(cluster.product_slug) : undefined;
    if (cluster.product_slug && !product) {
      issues.push({ path: `qa_clusters.${position}.product_slug`, message: "is not a product of this merchant" });
    }
    const clusterId = newId();
    return {
      clusterId,
      abId: current.merchant.abId,
      label: cluster.label,
      type: cluster.type,
      scope: cluster.product_slug ? "brick" : "merchant",
      brickId: product?.brickId ?? null,
      position,
      updatedAt: iso(cluster.updated_at),
      nodes: cluster.nodes.map((node, nodePosition) => {
        const factSignal = node.fact_signal ?? null;
        if (factSignal !== null && !verifiedKeys.has(factSignal)) {
          issues.push({
            path: `qa_clusters.${position}.nodes.${nodePosition}.fact_signal`,
            message: `is not a verified signal of this merchant (${factSignal})`,
          });
        }
        return {
          nodeId: newId(),
          intent: node.intent,
          question: node.question,
          answer: node.answer,
          answerBluf: node.answer_bluf,
          claimSentence: node.claim_sentence,
          verificationLevel: node.verification_level,
          factLevel: node.fact_level,
          factSignal,
          factSourceUrl: node.fact_source_url ?? null,
          editedByMerchant: node.edited_by_merchant,
          driftSeverity: node.drift_severity ?? null,
          humanVerifiedAt: isoOrNull(node.human_verified_at),
          position: nodePosition,
        };
      }),
    };
  });
}

/** Clusters compared by what they say, not by their ids. */
function comparable(clusters: readonly QaCluster[]): string {
  return JSON.stringify(
    clusters.map(({ clusterId: _clusterId, abId: _abId, nodes, ...cluster }) => ({
      ...cluster,
      nodes: nodes.map(({ nodeId: _nodeId, ...node }) => node),
    })),
  );
}
