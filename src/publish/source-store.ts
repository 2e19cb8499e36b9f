import { createHash } from "node:crypto";
import type {
  Merchant,
  MerchantProfile,
  Product,
  QaCluster,
  QaNode,
  Signal,
  TerritorialProof,
} from "../domain/merchant.ts";
import type { Db } from "../store/db.ts";

/*
 * The publication's own read queries (raw SQL on the store's connection, read-only). They belong
 * with the repositories in src/store/ and can move there as they are; they live here while the
 * publish module is being built so it touches no shared file.
 */

/**
 * A merchant's source stamp: what the store says about when the merchant's published inputs last
 * changed. Writers bump `updated_at` of the merchant, product or cluster row they change (a node
 * edit bumps its cluster) and `recorded_at` of a signal; counts catch deletions. Cheap enough to
 * check on every request (one indexed lookup), so the server knows a published file is current.
 */
const STAMP_SQL = `m.status || '|' || m.updated_at
  || '|' || coalesce((SELECT max(p.updated_at) || '#' || count(*) FROM products p WHERE p.ab_id = m.ab_id), '')
  || '|' || coalesce((SELECT max(c.updated_at) || '#' || count(*) FROM qa_clusters c WHERE c.ab_id = m.ab_id), '')
  || '|' || (SELECT count(*) FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = m.ab_id)
  || '|' || coalesce((SELECT max(s.recorded_at) || '#' || coalesce(max(s.verified_at), '') || '#' || coalesce(max(s.expires_at), '') || '#' || count(*) FROM signals s WHERE s.ab_id = m.ab_id), '')
  || '|' || coalesce((SELECT coalesce(t.verified_at, '') || '#' || coalesce(t.latitude, '') || ',' || coalesce(t.longitude, '') FROM territorial_proofs t WHERE t.ab_id = m.ab_id), '')`;

export function stampHash(raw: string): string {
  return createHash("sha1").update(raw).digest("base64url");
}

export interface MerchantStamp {
  abId: string;
  status: string;
  /** stampHash of the raw stamp. */
  stamp: string;
}

interface StampRow {
  ab_id: string;
  status: string;
  stamp: string;
}

export interface PublishSource {
  /** Merchants after `afterAbId` in ab_id order, with their status and stamp. */
  stampsAfter(afterAbId: string, limit: number): MerchantStamp[];
  /** One merchant's status and stamp, or null when unknown. */
  stampOf(abId: string): MerchantStamp | null;
  count(): number;
}

export function createPublishSource(db: Db): PublishSource {
  const sqlite = db.$client;
  const after = sqlite.prepare<[string, number], StampRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m WHERE m.ab_id > ? ORDER BY m.ab_id LIMIT ?`,
  );
  const one = sqlite.prepare<[string], StampRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m WHERE m.ab_id = ?`,
  );
  const count = sqlite.prepare<[], { n: number }>("SELECT count(*) AS n FROM merchants");
  const toStamp = (row: StampRow): MerchantStamp => ({
    abId: row.ab_id,
    status: row.status,
    stamp: stampHash(row.stamp),
  });
  return {
    stampsAfter: (afterAbId, limit) => after.all(afterAbId, limit).map(toStamp),
    stampOf: (abId) => {
      const row = one.get(abId);
      return row ? toStamp(row) : null;
    },
    count: () => count.get()?.n ?? 0,
  };
}

/* ---- Bulk profile loading for the refresh job ---- */

type Row = Record<string, unknown>;

const json = <T>(value: unknown, fallback: T): T =>
  value === null || value === undefined ? fallback : (JSON.parse(value as string) as T);
const bool = (value: unknown): boolean => Boolean(value);
const text = (value: unknown): string => value as string;
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : (value as string);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : (value as number));

function toMerchant(row: Row): Merchant {
  return {
    abId: text(row.ab_id),
    siret: text(row.siret),
    legalName: text(row.legal_name),
    businessName: text(row.business_name),
    slug: text(row.slug),
    nafCode: text(row.naf_code),
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
    createdAt: text(row.created_at),
    updatedAt: text(row.updated_at),
  };
}

function toProof(row: Row): TerritorialProof {
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

function toProduct(row: Row): Product {
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

function toSignal(row: Row): Signal {
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
  };
}

function toCluster(row: Row): QaCluster {
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

function toNode(row: Row): QaNode {
  return {
    nodeId: text(row.node_id),
    intent: text(row.intent),
    question: text(row.question),
    answer: text(row.answer),
    answerBluf: text(row.answer_bluf),
    claimSentence: text(row.claim_sentence),
    verificationLevel: text(row.verification_level),
    factLevel: text(row.fact_level),
    factSourceUrl: textOrNull(row.fact_source_url),
    editedByMerchant: bool(row.edited_by_merchant),
    driftSeverity: textOrNull(row.drift_severity),
    humanVerifiedAt: textOrNull(row.human_verified_at),
    position: row.position as number,
  };
}

export interface ProfileLoader {
  /** The profiles of these merchants (the same objects `MerchantRepository.findProfile` builds), six queries in all. */
  load(abIds: readonly string[]): Map<string, MerchantProfile>;
}

/**
 * Loads many profiles at once: one query per table over the batch (`ab_id IN json_each(?)`,
 * indexed) instead of five per merchant. What it builds is checked against findProfile by
 * test/integration/publish-refresh.test.ts.
 */
export function createProfileLoader(db: Db): ProfileLoader {
  const sqlite = db.$client;
  const within = "IN (SELECT value FROM json_each(?))";
  const merchantsQuery = sqlite.prepare<[string], Row>(`SELECT * FROM merchants WHERE ab_id ${within}`);
  const proofsQuery = sqlite.prepare<[string], Row>(`SELECT * FROM territorial_proofs WHERE ab_id ${within}`);
  const productsQuery = sqlite.prepare<[string], Row>(
    `SELECT * FROM products WHERE ab_id ${within} ORDER BY ab_id, position`,
  );
  const signalsQuery = sqlite.prepare<[string], Row>(`SELECT * FROM signals WHERE ab_id ${within} ORDER BY ab_id, key`);
  const clustersQuery = sqlite.prepare<[string], Row>(
    `SELECT * FROM qa_clusters WHERE ab_id ${within} ORDER BY ab_id, position`,
  );
  const nodesQuery = sqlite.prepare<[string], Row>(
    `SELECT n.* FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id ${within} ORDER BY n.cluster_id, n.position`,
  );
  return {
    load(abIds) {
      const profiles = new Map<string, MerchantProfile>();
      if (abIds.length === 0) return profiles;
      const ids = JSON.stringify(abIds);
      for (const row of merchantsQuery.all(ids)) {
        const merchant = toMerchant(row);
        profiles.set(merchant.abId, { merchant, territorialProof: null, products: [], signals: [], clusters: [] });
      }
      for (const row of proofsQuery.all(ids)) {
        const profile = profiles.get(text(row.ab_id));
        if (profile) profile.territorialProof = toProof(row);
      }
      for (const row of productsQuery.all(ids)) profiles.get(text(row.ab_id))?.products.push(toProduct(row));
      for (const row of signalsQuery.all(ids)) profiles.get(text(row.ab_id))?.signals.push(toSignal(row));
      const clusters = new Map<string, QaCluster>();
      for (const row of clustersQuery.all(ids)) {
        const cluster = toCluster(row);
        clusters.set(cluster.clusterId, cluster);
        profiles.get(cluster.abId)?.clusters.push(cluster);
      }
      for (const row of nodesQuery.all(ids)) clusters.get(text(row.cluster_id))?.nodes.push(toNode(row));
      return profiles;
    },
  };
}
