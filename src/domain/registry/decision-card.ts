import {
  type AbBrandVoice,
  type BrickItem,
  DECISION_CARD_DOCUMENT_VERSION,
  DECISION_CARD_SCHEMA_VERSION,
  DECISION_CARD_VERSION,
  type DecisionCard,
  type DecisionCardActionability,
  type DecisionCardCredential,
  type DecisionCardDocument,
  type DecisionCardIdentity,
  type DecisionCardTrust,
  FRENCH_WEEKDAYS,
  type MerchantCluster,
  type OrderContract,
  SIGNABLE_FIELDS,
} from "../../schemas/decision-card.ts";
import type { Assessment } from "../assess-merchant.ts";
import { yearsBetween } from "../calendar.ts";
import { canonicalJson, canonicalObjectOf, sha256Hex } from "../canonical-json.ts";
import { ORDER_MIN_TRUST, TRUST_THRESHOLDS } from "../capabilities.ts";
import { formatAddress } from "../format.ts";
import { buildLeadContract } from "../lead-contract.ts";
import { evidenceUrl, merchantLinks } from "../links.ts";
import type { Merchant, MerchantProfile, Product, QaCluster, QaNode, Signal, TerritorialProof } from "../merchant.ts";
import { type AnswerFact, answerFactAt, confidenceRank } from "../trust/answer-fact.ts";
import { officialSources } from "../trust/official-sources.ts";
import {
  EVIDENCE_SIGNALS,
  isEvidenceSignal,
  type ProofStatus,
  proofStatusFor,
  signalDefinition,
  signalPosition,
} from "../trust/signal-catalog.ts";
import { signalCountsAt, signalStatusAt } from "../trust/signal-expiry.ts";
import type { MerchantRepository } from "./merchant-store.ts";
import { describeClosure, loadMerchant } from "./resolve-merchant.ts";

export interface DecisionCardDeps {
  merchants: MerchantRepository;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

/** The platform's own voice, the same on every card. */
export const AB_BRAND_VOICE: AbBrandVoice = {
  slogan: "Le registre des commerçants vérifiés",
  slogan_en: "The registry of verified merchants",
  posture: "Neutral, factual registry: every claim is traced to its source and its proof level",
  positioning_short: "Identity-verified local merchants in France, readable by AI agents",
  mission:
    "Let AI agents find, check and contact French local merchants on verified facts rather than on declarations alone",
  consumer_surface: "ai_digest",
  do: [
    "Cite the proof level of each claim (official source, machine check, merchant declaration)",
    "Link every credential to its evidence page",
    "Say plainly when an action is blocked and why",
    "Send purchase intentions as leads while the order rail is closed",
  ],
  dont: [
    "Present a merchant declaration as a verified fact",
    "Rank merchants by payment or advertising",
    "Hold funds on behalf of merchants or customers",
    "Invent prices, opening hours or availability",
  ],
};

export const DESCRIPTION_SHORT_MAX = 160;
const TOP_CREDENTIALS_MAX = 5;
const TOP_QUESTIONS_MAX = 5;

/**
 * The merchant decision card: one document an agent reads to decide whether and how to act on a
 * merchant (who it is, how far it is verified, what it can do, how to send it a lead).
 *
 * `content_hash` covers the canonical JSON (RFC 8785 style) of `decision_card` without
 * `generated_at`, `content_hash` and `provenance.manifest_generated_at`, so two calls over the same
 * store content give the same hash whatever the clock says. Parts that follow the calendar are
 * content too and move the hash when they change: `years_in_business` (on the founding
 * anniversary), the trust score, `next_refresh_at` and the Q&A answers' fact levels (when a signal
 * expires: answer-fact.ts) and the example date
 * of the lead contract (on 1 January).
 */
export async function buildDecisionCard(deps: DecisionCardDeps, abId: string): Promise<DecisionCardDocument> {
  // One reading of the clock for the trust assessment and the card alike.
  const now = deps.now();
  const { profile, assessment } = await loadMerchant({ ...deps, now: () => now }, abId);
  return assembleDecisionCard(profile, assessment, {
    baseUrl: deps.baseUrl,
    orderRailEnabled: deps.orderRailEnabled,
    now,
  });
}

export interface AssembleOptions {
  baseUrl: string;
  orderRailEnabled: boolean;
  now: Date;
}

/** The card from an already loaded profile and assessment (pure; what renderers and jobs call). */
export function assembleDecisionCard(
  profile: MerchantProfile,
  assessment: Assessment,
  options: AssembleOptions,
): DecisionCardDocument {
  const { merchant } = profile;
  const { baseUrl, now } = options;
  const abId = merchant.abId;
  const links = cardLinks(baseUrl, abId);

  const identity = buildIdentity(merchant, profile.signals, links, now.toISOString());
  const merchantPart = { sources: officialSources(profile.signals) };
  const trust = buildTrust(merchant, assessment);
  const actionability = buildActionability(assessment);
  const leadContract = buildLeadContract(baseUrl, merchant.sector, abId, { today: now });
  const orderContract = buildOrderContract(baseUrl, options.orderRailEnabled, assessment);
  const brandVoice = merchant.brandVoice;
  const brandPublished = brandVoice?.is_published === true;

  const card: DecisionCard = {
    version: DECISION_CARD_VERSION,
    schema_version: DECISION_CARD_SCHEMA_VERSION,
    ab_id: abId,
    generated_at: now.toISOString(),
    content_hash: "",
    identity,
    merchant: merchantPart,
    trust,
    actionability,
    lead_contract: leadContract,
    order_contract: orderContract,
    brand_capsule:
      brandVoice && brandPublished
        ? {
            tone: brandVoice.tone,
            values: [...brandVoice.values],
            do: [...brandVoice.do],
            dont: [...brandVoice.dont],
            consumer_surface: brandVoice.consumer_surface,
          }
        : null,
    verification_capsule: {
      manifest_url: links.manifest,
      jwks_url: `${baseUrl}/.well-known/ab-public-keys.json`,
      top_credentials: topCredentials(baseUrl, abId, profile.signals, assessment, now),
      evidence_endpoints: EVIDENCE_SIGNALS.map((signal) => evidenceUrl(baseUrl, signal, abId)),
      next_refresh_at: nextRefreshAt(profile.signals, now),
    },
    knowledge_capsule: {
      top_questions: topQuestions(baseUrl, profile.clusters, profile.signals, now.toISOString()),
      cluster_summary: profile.clusters.map((cluster) => ({
        cluster_id: cluster.clusterId,
        label: cluster.label,
        scope: cluster.scope,
        node_count: cluster.nodes.length,
      })),
    },
    // Plugins are not part of this service: the list is empty, as in every card the spec shows.
    plugin_capabilities: [],
    provenance: {
      source_updated_at: sourceUpdatedAt(profile),
      brand_updated_at: merchant.brandUpdatedAt,
      manifest_generated_at: now.toISOString(),
      signable_fields: [...SIGNABLE_FIELDS],
    },
    bricks_inventory: profile.products.map(brickItem),
    merchant_signals: merchantSignals(merchant, now),
    territorial_proof: territorialProof(profile.territorialProof),
    _links: {
      self: links.self,
      resolve: links.resolve,
      jsonld: links.jsonld,
      ai_md: links.aiMd,
      manifest: links.manifest,
    },
  };
  card.content_hash = decisionCardHash(card);

  return {
    decision_card: card,
    ab_brand_voice: AB_BRAND_VOICE,
    merchant_brand_voice: {
      consumer_surface: brandVoice?.consumer_surface ?? AB_BRAND_VOICE.consumer_surface,
      is_published: brandPublished,
    },
    ab_id: abId,
    version: DECISION_CARD_DOCUMENT_VERSION,
    identity,
    merchant: merchantPart,
    trust,
    actionability,
    lead_contract: leadContract,
    order_contract: orderContract,
    credentials: credentials(baseUrl, abId, profile.signals, now),
    // No store column names who reviewed a node (human_verified_at says when, not who), so no
    // reviewer is named rather than one invented; the review dates are on each node.
    reviewers: [],
    merchant_clusters: profile.clusters.map((cluster) =>
      merchantCluster(baseUrl, cluster, profile.signals, now.toISOString()),
    ),
  };
}

/**
 * The content hash of a card: everything but the parts that only say when the card was generated
 * (`generated_at`, `provenance.manifest_generated_at`) and the hash itself.
 */
export function decisionCardHash(card: DecisionCard): string {
  return `sha256:${sha256Hex(canonicalObjectOf(cardTexts(card).hashed))}`;
}

/**
 * The canonical JSON (canonical-json.ts) of a card's members, computed once per card: `hashed`
 * is what the content hash reads (every member but `generated_at` and `content_hash`, and
 * `provenance` without `manifest_generated_at`), `byObject` the text of each member that is an
 * object, found by that very object. The documents that embed the members (the card's own
 * document, the signed manifest) print them from these texts instead of serializing the same
 * objects again. Like the content hash itself, the texts assume a member is not changed in place
 * once the card is assembled; a member replaced by another object gets its text computed again.
 */
export interface CardTexts {
  hashed: Readonly<Record<string, string | undefined>>;
  byObject: ReadonlyMap<object, string>;
}

const textsOfCards = new WeakMap<DecisionCard, { values: Map<string, unknown>; texts: CardTexts }>();

export function cardTexts(card: DecisionCard): CardTexts {
  const kept = textsOfCards.get(card);
  const members = card as unknown as Record<string, unknown>;
  const values = new Map<string, unknown>();
  const hashed: Record<string, string | undefined> = {};
  const byObject = new Map<object, string>();
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (key === "generated_at" || key === "content_hash" || value === undefined) continue;
    values.set(key, value);
    // The text kept for this very value, when the member was not replaced since.
    const keptText = kept?.values.get(key) === value ? kept.texts.hashed[key] : undefined;
    if (key === "provenance") {
      const { manifest_generated_at: _manifestGeneratedAt, ...stable } = card.provenance;
      hashed[key] = keptText ?? canonicalJson(stable);
      continue;
    }
    const text = keptText ?? canonicalJson(value);
    hashed[key] = text;
    if (typeof value === "object" && value !== null) byObject.set(value, text);
  }
  const texts = { hashed, byObject };
  textsOfCards.set(card, { values, texts });
  return texts;
}

/** The card's names for the merchant's URLs (the URL table is src/domain/links.ts). */
interface CardLinks {
  self: string;
  resolve: string;
  jsonld: string;
  aiMd: string;
  aiDigest: string;
  microsite: string;
  fanout: string;
  manifest: string;
}

function cardLinks(baseUrl: string, abId: string): CardLinks {
  const links = merchantLinks(baseUrl, abId);
  return {
    self: links.decisionCard,
    resolve: links.resolve,
    jsonld: links.jsonld,
    aiMd: links.aiMd,
    aiDigest: links.aiDigest,
    microsite: links.microsite,
    fanout: links.clusters,
    manifest: links.manifest,
  };
}

function buildIdentity(
  merchant: Merchant,
  signals: readonly Signal[],
  links: CardLinks,
  nowIso: string,
): DecisionCardIdentity {
  const siren = merchant.siret.slice(0, 9);
  const siretSignal = signals.find((signal) => signal.key === "siret_verified");
  const siretTemplate = signalDefinition("siret_verified")?.sourceUrlTemplate;
  const siretSourceUrl =
    siretSignal?.sourceUrl ??
    (siretTemplate ?? "https://annuaire-entreprises.data.gouv.fr/etablissement/{siret}")
      .replace("{siret}", merchant.siret)
      .replace("{siren}", siren);
  return {
    business_name: merchant.businessName,
    legal_name: merchant.legalName,
    siret: merchant.siret,
    naf_code: merchant.nafCode,
    naf_code_2025: merchant.nafCode2025,
    legal_identifiers: {
      siret: {
        value: merchant.siret,
        verified: siretSignal !== undefined && signalCountsAt(siretSignal, nowIso),
        source_url: siretSourceUrl,
      },
      siren: { value: siren, derived_from: "siret" },
      rcs: merchant.rcs,
      vat_intracom: merchant.vatIntracom,
      naf_code: { value: merchant.nafCode, division: merchant.nafCode.slice(0, 2) },
    },
    sector: merchant.sector,
    city: merchant.city,
    address: formatAddress(merchant),
    canonical_slug: merchant.slug,
    canonical_microsite_url: links.microsite,
    microsite_root_url: links.microsite,
    ai_md_url: links.aiMd,
    ai_digest_url: links.aiDigest,
    jsonld_url: links.jsonld,
    fanout_url: links.fanout,
    about_url: links.microsite,
    same_as: [...merchant.sameAs],
  };
}

function buildTrust(merchant: Merchant, assessment: Assessment): DecisionCardTrust {
  return {
    trust_level: assessment.trustLevel,
    merchant_status: merchant.status,
    probation: merchant.status === "PROBATION",
    closure: describeClosure(merchant.closure),
    score: assessment.trust.breakdown.total,
    breakdown: { ...assessment.trust.breakdown },
    reasons: [...assessment.capabilities.trustReasons],
    thresholds: { ...TRUST_THRESHOLDS },
  };
}

function buildActionability(assessment: Assessment): DecisionCardActionability {
  const { capabilities } = assessment;
  return {
    can_contact: capabilities.state.can_contact,
    can_order: capabilities.state.can_order,
    can_verify: capabilities.canVerify,
    can_view_brand: capabilities.canViewBrand,
    active_plugins: [],
    next_best_action: capabilities.nextBestAction ? { ...capabilities.nextBestAction } : null,
    blocked_actions: [...capabilities.blockedActions],
    blocked_because: [...capabilities.actionabilityBlockedBecause],
  };
}

/** Null while the rail is closed or the merchant cannot take orders; else how to create one. */
function buildOrderContract(baseUrl: string, orderRailEnabled: boolean, assessment: Assessment): OrderContract | null {
  if (!orderRailEnabled || !assessment.capabilities.state.can_receive_orders) return null;
  return {
    endpoint: `${baseUrl}/api/orders/create`,
    method: "POST",
    min_trust: ORDER_MIN_TRUST,
    required_fields: ["merchant_id", "product_ids", "quantities", "fulfillment_type"],
    optional_fields: ["delivery_address", "user_email", "customer_notes"],
    fulfillment_types: ["pickup", "delivery"],
    product_ids_from: "bricks_inventory[].product_id",
    readiness_tool: "quote_order_readiness",
  };
}

function proofStatusOf(signal: Signal): ProofStatus {
  const recorded = signal.proofStatus;
  if (
    recorded === "official_source_verified" ||
    recorded === "machine_consistent" ||
    recorded === "merchant_declared"
  ) {
    return recorded;
  }
  return proofStatusFor(signal.source);
}

const PROOF_RANK: Record<ProofStatus, number> = {
  official_source_verified: 0,
  machine_consistent: 1,
  merchant_declared: 2,
};

/**
 * Up to five verified, unexpired evidence signals backed by more than a declaration, best first:
 * official sources before machine checks, then the points they brought, then catalog order.
 */
function topCredentials(
  baseUrl: string,
  abId: string,
  signals: readonly Signal[],
  assessment: Assessment,
  now: Date,
): DecisionCard["verification_capsule"]["top_credentials"] {
  const nowIso = now.toISOString();
  const points = new Map(assessment.trust.contributions.map((item) => [item.signal, item.counted]));
  return signals
    .flatMap((signal) => {
      const definition = signalDefinition(signal.key);
      const proof = proofStatusOf(signal);
      if (!definition || !isEvidenceSignal(signal.key) || !signalCountsAt(signal, nowIso)) return [];
      if (proof === "merchant_declared") return [];
      return [{ signal, definition, proof }];
    })
    .sort(
      (a, b) =>
        PROOF_RANK[a.proof] - PROOF_RANK[b.proof] ||
        (points.get(b.signal.key) ?? 0) - (points.get(a.signal.key) ?? 0) ||
        signalPosition(a.signal.key) - signalPosition(b.signal.key),
    )
    .slice(0, TOP_CREDENTIALS_MAX)
    .map(({ signal, definition, proof }) => ({
      signal: signal.key,
      label: definition.label,
      status: "verified" as const,
      proof_status: proof as "official_source_verified" | "machine_consistent",
      verified_at: signal.verifiedAt ?? signal.recordedAt,
      evidence_url: evidenceUrl(baseUrl, signal.key, abId),
    }));
}

/** The earliest signal expiry still ahead: when the card's verification facts next need a refresh. */
function nextRefreshAt(signals: readonly Signal[], now: Date): string | null {
  let next: { at: number; text: string } | null = null;
  for (const signal of signals) {
    if (signal.expiresAt === null) continue;
    const at = Date.parse(signal.expiresAt);
    if (Number.isNaN(at) || at <= now.getTime()) continue;
    if (next === null || at < next.at) next = { at, text: signal.expiresAt };
  }
  return next?.text ?? null;
}

/** The signals the spec lists as credentials, in catalog order, with their real source. */
function credentials(baseUrl: string, abId: string, signals: readonly Signal[], now: Date): DecisionCardCredential[] {
  const nowIso = now.toISOString();
  return [...signals]
    .sort((a, b) => signalPosition(a.key) - signalPosition(b.key))
    .flatMap((signal) => {
      const definition = signalDefinition(signal.key);
      if (!definition?.credential) return [];
      return [
        {
          key: signal.key,
          label: definition.label,
          verified_at: signal.verifiedAt,
          recorded_at: signal.recordedAt,
          expires_at: signal.expiresAt,
          // The spec shows official_api and platform_observed; a merchant declaration keeps its
          // own source rather than passing for something the platform observed.
          source: signal.source,
          status: signalStatusAt(signal, nowIso),
          proof_status: proofStatusOf(signal),
          evidence_url: isEvidenceSignal(signal.key) ? evidenceUrl(baseUrl, signal.key, abId) : null,
        },
      ];
    });
}

function citeUrl(baseUrl: string, clusterId: string, nodeId: string): string {
  return `${baseUrl}/api/clusters/${clusterId}#${nodeId}`;
}

/** Up to five questions across clusters: best-backed at `nowIso` first, then in cluster and node order. */
function topQuestions(
  baseUrl: string,
  clusters: readonly QaCluster[],
  signals: readonly Signal[],
  nowIso: string,
): DecisionCard["knowledge_capsule"]["top_questions"] {
  const candidates = clusters.flatMap((cluster, clusterIndex) =>
    cluster.nodes.map((node, nodeIndex) => ({ cluster, node, clusterIndex, nodeIndex })),
  );
  return candidates
    .map((item) => ({ ...item, confidence: answerFactAt(item.node, signals, nowIso).confidence }))
    .sort(
      (a, b) =>
        confidenceRank(a.confidence) - confidenceRank(b.confidence) ||
        a.clusterIndex - b.clusterIndex ||
        a.nodeIndex - b.nodeIndex,
    )
    .slice(0, TOP_QUESTIONS_MAX)
    .map(({ cluster, node, confidence }) => ({
      question: node.question,
      answer_bluf: node.answerBluf,
      confidence,
      source_url: citeUrl(baseUrl, cluster.clusterId, node.nodeId),
    }));
}

function merchantCluster(
  baseUrl: string,
  cluster: QaCluster,
  signals: readonly Signal[],
  nowIso: string,
): MerchantCluster {
  return {
    id: cluster.clusterId,
    label: cluster.label,
    type: cluster.type,
    scope: cluster.scope,
    brick_id: cluster.brickId,
    node_count: cluster.nodes.length,
    nodes: cluster.nodes.map((node) =>
      clusterNode(baseUrl, cluster.clusterId, node, answerFactAt(node, signals, nowIso)),
    ),
  };
}

/**
 * A Q&A node as published (the decision card's clusters, and the cluster documents with their
 * `confidence`): its fact level, grounding and what the level rests on are `fact`, the node read
 * at the answer's instant (answerFactAt), never the level as stored.
 */
export function clusterNode(
  baseUrl: string,
  clusterId: string,
  node: QaNode,
  fact: AnswerFact,
): MerchantCluster["nodes"][number] {
  return {
    id: node.nodeId,
    intent: node.intent,
    question: node.question,
    answer: node.answer,
    answer_hash: sha256Hex(node.answer),
    verification_level: node.verificationLevel,
    edited_by_merchant: node.editedByMerchant,
    drift_severity: node.driftSeverity,
    human_verified_at: node.humanVerifiedAt,
    answer_bluf: node.answerBluf,
    claim_sentence: node.claimSentence,
    word_count: wordCount(node.answer),
    cite_url: citeUrl(baseUrl, clusterId, node.nodeId),
    grounding: {
      // Grounded means backed by more than the merchant's word (the fact level is not "declared").
      grounded: fact.confidence !== "declared",
      evidence: node.factSourceUrl,
      grounding_stats: null,
    },
    verification: {
      fact_level: fact.confidence,
      fact_source_url: node.factSourceUrl,
      human_reviewed_at: node.humanVerifiedAt,
      edited_by_merchant: node.editedByMerchant,
      rests_on: fact.restsOn
        ? { signal: fact.restsOn.signal, status: fact.restsOn.status, expires_at: fact.restsOn.expiresAt }
        : null,
    },
  };
}

export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === "" ? 0 : words.length;
}

/** The latest change among the merchant record, its products and its Q&A clusters. */
function sourceUpdatedAt(profile: MerchantProfile): string {
  let latest = profile.merchant.updatedAt;
  let latestAt = Date.parse(latest);
  const candidates = [
    ...profile.products.map((product) => product.updatedAt),
    ...profile.clusters.map((cluster) => cluster.updatedAt),
  ];
  for (const candidate of candidates) {
    const at = Date.parse(candidate);
    if (!Number.isNaN(at) && (Number.isNaN(latestAt) || at > latestAt)) {
      latest = candidate;
      latestAt = at;
    }
  }
  return latest;
}

function brickItem(product: Product): BrickItem {
  return {
    brick_id: product.brickId,
    product_id: product.productId,
    brick_type: product.brickType,
    name: product.name,
    description_short: shortDescription(product.description),
    price_cents: product.priceCents,
    currency: product.currency,
    pricing_model: product.pricingModel,
    inventory_status: product.inventoryStatus,
    image_url: product.imageUrl,
    external_url: product.externalUrl,
    tags: [...product.tags],
    is_locked: product.isLocked,
  };
}

/**
 * At most `max` characters (code points), cut after a whole word and ended with an ellipsis when
 * shortened. A single word longer than the limit is cut inside the word.
 */
export function shortDescription(text: string, max = DESCRIPTION_SHORT_MAX): string {
  const clean = text.replace(/\s+/gu, " ").trim();
  // A text no longer than max in UTF-16 units has at most max characters; otherwise only the
  // first max + 1 characters are read (a long description is not split whole).
  if (clean.length <= max) return clean;
  const chars: string[] = [];
  for (const char of clean) {
    chars.push(char);
    if (chars.length > max) break;
  }
  if (chars.length <= max) return clean;
  const head = chars.slice(0, max - 1).join("");
  const boundary = chars[max - 1] === " " ? head.length : head.lastIndexOf(" ");
  const cut = boundary > 0 ? head.slice(0, boundary) : head;
  return `${cut.replace(/[\s,;:.\-–—]+$/u, "")}…`;
}

const WEEKDAY_ALIASES: Record<string, (typeof FRENCH_WEEKDAYS)[number]> = {
  lundi: "lundi",
  mardi: "mardi",
  mercredi: "mercredi",
  jeudi: "jeudi",
  vendredi: "vendredi",
  samedi: "samedi",
  dimanche: "dimanche",
  monday: "lundi",
  tuesday: "mardi",
  wednesday: "mercredi",
  thursday: "jeudi",
  friday: "vendredi",
  saturday: "samedi",
  sunday: "dimanche",
  mon: "lundi",
  tue: "mardi",
  wed: "mercredi",
  thu: "jeudi",
  fri: "vendredi",
  sat: "samedi",
  sun: "dimanche",
};

/** Opening hours keyed by lowercase French weekday, Monday first; keys that name no weekday are left out. */
export function frenchHours(
  hours: Record<string, string> | null,
): Partial<Record<(typeof FRENCH_WEEKDAYS)[number], string>> | null {
  if (hours === null) return null;
  const byDay = new Map<string, string>();
  for (const [key, value] of Object.entries(hours)) {
    const day = WEEKDAY_ALIASES[key.trim().toLowerCase()];
    if (day && !byDay.has(day)) byDay.set(day, value);
  }
  const result: Partial<Record<(typeof FRENCH_WEEKDAYS)[number], string>> = {};
  for (const day of FRENCH_WEEKDAYS) {
    const value = byDay.get(day);
    if (value !== undefined) result[day] = value;
  }
  return result;
}

function merchantSignals(merchant: Merchant, now: Date): DecisionCard["merchant_signals"] {
  return {
    listing_rating: merchant.listingRating,
    listing_review_count: merchant.listingReviewCount,
    listing_photos_count: merchant.listingPhotosCount,
    hours: frenchHours(merchant.hours),
    zones: [...merchant.zones],
    areas_declared_at: merchant.areasDeclaredAt,
    delivery_enabled: merchant.deliveryEnabled,
    delivery_radius_km: merchant.deliveryRadiusKm,
    available_languages: [...merchant.languages],
    years_in_business: yearsBetween(merchant.foundedOn, now),
    domain_age_years: merchant.domainAgeYears,
    // A generated description the merchant has not reviewed is not presented as theirs;
    // actionability.blocked_because says description_llm_unreviewed.
    description: merchant.descriptionLlmUnreviewed ? null : merchant.description,
    terrain_photos: [...merchant.terrainPhotos],
  };
}

function territorialProof(proof: TerritorialProof | null): DecisionCard["territorial_proof"] {
  return {
    latitude: proof?.latitude ?? null,
    longitude: proof?.longitude ?? null,
    insee_code: proof?.inseeCode ?? null,
    postal_code: proof?.postalCode ?? null,
    city_normalized: proof?.cityNormalized ?? null,
    geocoding_source: proof?.geocodingSource ?? null,
    geocoding_score: proof?.geocodingScore ?? null,
    verified: proof?.verified ?? false,
    verified_at: proof?.verifiedAt ?? null,
    population: proof?.population ?? null,
    department_code: proof?.departmentCode ?? null,
    region_code: proof?.regionCode ?? null,
    epci_code: proof?.epciCode ?? null,
  };
}
