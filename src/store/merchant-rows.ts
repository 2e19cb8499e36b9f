import type { AssessableMerchant } from "../domain/assess-merchant.ts";
import type { Merchant, Product, QaCluster, QaNode, Signal, TerritorialProof } from "../domain/merchant.ts";
import type { MerchantEventInput } from "../domain/merchants/merchant-registry.ts";

/*
 * Store rows (as better-sqlite3 returns them: snake_case columns, JSON as text, booleans as 0/1)
 * to domain objects. The one mapping of merchant data: the repository's reads and the refresh
 * job's bulk loader use it, so a profile is the same object whichever way it was loaded.
 */

export type Row = Record<string, unknown>;

const json = <T>(value: unknown, fallback: T): T =>
  value === null || value === undefined ? fallback : (JSON.parse(value as string) as T);
const bool = (value: unknown): boolean => Boolean(value);
export const text = (value: unknown): string => value as string;
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : (value as string);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : (value as number));

/** The columns `findLeadTarget` selects: what an assessment reads. */
export function toAssessableMerchant(row: Row): AssessableMerchant {
  return {
    abId: text(row.ab_id),
    status: text(row.status) as Merchant["status"],
    sector: text(row.sector),
    email: textOrNull(row.email),
    paymentSetup: bool(row.payment_setup),
    descriptionLlmUnreviewed: bool(row.description_llm_unreviewed),
    brandVoice: json<Merchant["brandVoice"]>(row.brand_voice, null),
    closure: json<Merchant["closure"]>(row.closure, null),
  };
}

export function toMerchant(row: Row): Merchant {
  return {
    abId: text(row.ab_id),
    siret: text(row.siret),
    legalName: text(row.legal_name),
    businessName: text(row.business_name),
    slug: text(row.slug),
    nafCode: text(row.naf_code),
    nafCode2025: textOrNull(row.naf_code_2025),
    sector: text(row.sector),
    status: text(row.status) as Merchant["status"],
    rcs: textOrNull(row.rcs),
    vatIntracom: textOrNull(row.vat_intracom),
    street: text(row.street),
    postalCode: text(row.postal_code),
    city: text(row.city),
    phone: textOrNull(row.phone),
    email: textOrNull(row.email),
    website: textOrNull(row.website),
    description: textOrNull(row.description),
    descriptionLlmUnreviewed: bool(row.description_llm_unreviewed),
    brandVoice: json<Merchant["brandVoice"]>(row.brand_voice, null),
    brandUpdatedAt: textOrNull(row.brand_updated_at),
    hours: json<Merchant["hours"]>(row.hours, null),
    hoursExceptions: json<Merchant["hoursExceptions"] | null>(row.hours_exceptions, null) ?? [],
    timezone: text(row.timezone),
    zones: json<string[] | null>(row.zones, null) ?? [],
    areasDeclaredAt: textOrNull(row.areas_declared_at),
    deliveryEnabled: bool(row.delivery_enabled),
    deliveryRadiusKm: numOrNull(row.delivery_radius_km),
    languages: json<string[] | null>(row.languages, null) ?? [],
    foundedOn: text(row.founded_on),
    domainAgeYears: numOrNull(row.domain_age_years),
    listingRating: numOrNull(row.listing_rating),
    listingReviewCount: numOrNull(row.listing_review_count),
    listingPhotosCount: row.listing_photos_count as number,
    terrainPhotos: json<string[] | null>(row.terrain_photos, null) ?? [],
    sameAs: json<string[] | null>(row.same_as, null) ?? [],
    paymentSetup: bool(row.payment_setup),
    closure: json<Merchant["closure"]>(row.closure, null),
    createdAt: text(row.created_at),
    updatedAt: text(row.updated_at),
  };
}

export function toProof(row: Row): TerritorialProof {
  return {
    latitude: numOrNull(row.latitude),
    longitude: numOrNull(row.longitude),
    inseeCode: textOrNull(row.insee_code),
    postalCode: textOrNull(row.postal_code),
    cityNormalized: textOrNull(row.city_normalized),
    geocodingSource: textOrNull(row.geocoding_source),
    geocodingScore: numOrNull(row.geocoding_score),
    verified: bool(row.verified),
    verifiedAt: textOrNull(row.verified_at),
    population: numOrNull(row.population),
    departmentCode: textOrNull(row.department_code),
    regionCode: textOrNull(row.region_code),
    epciCode: textOrNull(row.epci_code),
  };
}

export function toProduct(row: Row): Product {
  return {
    productId: text(row.product_id),
    brickId: text(row.brick_id),
    abId: text(row.ab_id),
    slug: text(row.slug),
    brickType: text(row.brick_type),
    name: text(row.name),
    description: text(row.description),
    priceCents: numOrNull(row.price_cents),
    currency: text(row.currency),
    pricingModel: text(row.pricing_model),
    inventoryStatus: text(row.inventory_status),
    imageUrl: textOrNull(row.image_url),
    externalUrl: textOrNull(row.external_url),
    tags: json<string[] | null>(row.tags, null) ?? [],
    isLocked: bool(row.is_locked),
    position: row.position as number,
    updatedAt: text(row.updated_at),
  };
}

export function toSignal(row: Row): Signal {
  return {
    key: text(row.key),
    status: text(row.status) as Signal["status"],
    proofStatus: text(row.proof_status),
    source: text(row.source) as Signal["source"],
    sourceUrl: textOrNull(row.source_url),
    value: json<Signal["value"]>(row.value, null),
    verifiedAt: textOrNull(row.verified_at),
    recordedAt: text(row.recorded_at),
    expiresAt: textOrNull(row.expires_at),
    // Only the signals that rest on an official notice carry one (the others read as before).
    ...(row.notice === null || row.notice === undefined ? {} : { notice: json<Signal["notice"]>(row.notice, null) }),
    // Likewise the official sources' own dates and names (signals recorded before them read as before).
    ...(row.changed_at === null || row.changed_at === undefined ? {} : { changedAt: text(row.changed_at) }),
    ...(row.origin === null || row.origin === undefined ? {} : { origin: text(row.origin) as Signal["origin"] }),
  };
}

export function toCluster(row: Row): QaCluster {
  return {
    clusterId: text(row.cluster_id),
    abId: text(row.ab_id),
    label: text(row.label),
    type: text(row.type),
    scope: row.scope === "brick" ? "brick" : "merchant",
    brickId: textOrNull(row.brick_id),
    position: row.position as number,
    updatedAt: text(row.updated_at),
    nodes: [],
  };
}

export function toNode(row: Row): QaNode {
  return {
    nodeId: text(row.node_id),
    intent: text(row.intent),
    question: text(row.question),
    answer: text(row.answer),
    answerBluf: text(row.answer_bluf),
    claimSentence: text(row.claim_sentence),
    verificationLevel: text(row.verification_level),
    factLevel: text(row.fact_level),
    factSignal: textOrNull(row.fact_signal),
    factSourceUrl: textOrNull(row.fact_source_url),
    editedByMerchant: bool(row.edited_by_merchant),
    driftSeverity: textOrNull(row.drift_severity),
    humanVerifiedAt: textOrNull(row.human_verified_at),
    position: row.position as number,
  };
}

/** An audit event as both engines write it (merchant_events; the changes as JSON text). */
export function merchantEventRow(abId: string, revision: number, event: MerchantEventInput) {
  return {
    abId,
    at: event.at,
    actor: event.actor,
    action: event.action,
    changes: JSON.stringify(event.changes),
    reason: event.reason,
    revision,
  };
}
