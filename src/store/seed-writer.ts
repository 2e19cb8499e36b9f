/**
 * Bulk writes for the demo seed: prepared statements on the raw better-sqlite3 client, one
 * transaction per batch. Rows come in as the domain's plain types and are serialised here
 * (booleans as 0/1, JSON columns as text), the same way drizzle stores them.
 */
import type { MerchantProfile, TerritorialProof } from "../domain/merchant.ts";
import { isListed, LISTED_STATUSES } from "../domain/merchants/lifecycle.ts";
import type { Db } from "./db.ts";

export interface SeedRecord extends MerchantProfile {
  territorialProof: TerritorialProof;
  paymentAccountId: string | null;
}

export interface RegistryCounts {
  merchants: number;
  territorialProofs: number;
  products: number;
  signals: number;
  clusters: number;
  nodes: number;
}

/**
 * Streams records into the database: `add` inserts at once (inside a transaction it opens), so a
 * record is garbage as soon as it is written; `commit` ends the transaction. Callers commit every
 * few thousand records.
 */
export interface SeedWriter {
  add(record: SeedRecord): void;
  commit(): void;
  /** Rolls back what was added since the last commit. */
  abort(): void;
  /** Commits, then refreshes the query planner's statistics and checkpoints the WAL. */
  finish(): void;
}

const bool = (value: boolean): number => (value ? 1 : 0);
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

function insertSql(table: string, columns: string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
}

export function createSeedWriter(db: Db): SeedWriter {
  const sqlite = db.$client;
  const merchant = sqlite.prepare(
    insertSql("merchants", [
      "ab_id",
      "siret",
      "legal_name",
      "business_name",
      "slug",
      "naf_code",
      "sector",
      "status",
      "rcs",
      "vat_intracom",
      "street",
      "postal_code",
      "city",
      "phone",
      "email",
      "website",
      "description",
      "description_llm_unreviewed",
      "brand_voice",
      "brand_updated_at",
      "hours",
      "timezone",
      "zones",
      "areas_declared_at",
      "delivery_enabled",
      "delivery_radius_km",
      "languages",
      "founded_on",
      "domain_age_years",
      "listing_rating",
      "listing_review_count",
      "listing_photos_count",
      "terrain_photos",
      "same_as",
      "payment_setup",
      "payment_account_id",
      "created_at",
      "updated_at",
    ]),
  );
  const proof = sqlite.prepare(
    insertSql("territorial_proofs", [
      "ab_id",
      "latitude",
      "longitude",
      "insee_code",
      "postal_code",
      "city_normalized",
      "geocoding_source",
      "geocoding_score",
      "verified",
      "verified_at",
      "population",
      "department_code",
      "region_code",
      "epci_code",
    ]),
  );
  const product = sqlite.prepare(
    insertSql("products", [
      "product_id",
      "brick_id",
      "ab_id",
      "slug",
      "brick_type",
      "name",
      "description",
      "price_cents",
      "currency",
      "pricing_model",
      "inventory_status",
      "image_url",
      "external_url",
      "tags",
      "is_locked",
      "position",
      "updated_at",
    ]),
  );
  const signal = sqlite.prepare(
    insertSql("signals", [
      "ab_id",
      "key",
      "status",
      "proof_status",
      "source",
      "source_url",
      "value",
      "verified_at",
      "recorded_at",
      "expires_at",
    ]),
  );
  const cluster = sqlite.prepare(
    insertSql("qa_clusters", ["cluster_id", "ab_id", "label", "type", "scope", "brick_id", "position", "updated_at"]),
  );
  const node = sqlite.prepare(
    insertSql("qa_nodes", [
      "node_id",
      "cluster_id",
      "intent",
      "question",
      "answer",
      "answer_bluf",
      "claim_sentence",
      "verification_level",
      "fact_level",
      "fact_source_url",
      "edited_by_merchant",
      "drift_severity",
      "human_verified_at",
      "position",
    ]),
  );
  // Tag lists and hours are shared between many rows: serialise each distinct object once.
  const jsonCache = new WeakMap<object, string>();
  const cachedJson = (value: object | null): string | null => {
    if (value === null) return null;
    let text = jsonCache.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      jsonCache.set(value, text);
    }
    return text;
  };

  const created = sqlite.prepare(
    "INSERT INTO merchant_changes (ab_id, revision, change, changed_at) VALUES (?, 1, 'created', ?)",
  );
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");

  const insert = (record: SeedRecord) => {
    const m = record.merchant;
    merchant.run(
      m.abId,
      m.siret,
      m.legalName,
      m.businessName,
      m.slug,
      m.nafCode,
      m.sector,
      m.status,
      m.rcs,
      m.vatIntracom,
      m.street,
      m.postalCode,
      m.city,
      m.phone,
      m.email,
      m.website,
      m.description,
      bool(m.descriptionLlmUnreviewed),
      json(m.brandVoice),
      m.brandUpdatedAt,
      cachedJson(m.hours),
      m.timezone,
      json(m.zones),
      m.areasDeclaredAt,
      bool(m.deliveryEnabled),
      m.deliveryRadiusKm,
      json(m.languages),
      m.foundedOn,
      m.domainAgeYears,
      m.listingRating,
      m.listingReviewCount,
      m.listingPhotosCount,
      json(m.terrainPhotos),
      json(m.sameAs),
      bool(m.paymentSetup),
      record.paymentAccountId,
      m.createdAt,
      m.updatedAt,
    );
    // The change feed starts with every listed merchant, like the one migration 0004 backfilled.
    if (isListed(m.status)) created.run(m.abId, m.createdAt);
    const t = record.territorialProof;
    proof.run(
      m.abId,
      t.latitude,
      t.longitude,
      t.inseeCode,
      t.postalCode,
      t.cityNormalized,
      t.geocodingSource,
      t.geocodingScore,
      bool(t.verified),
      t.verifiedAt,
      t.population,
      t.departmentCode,
      t.regionCode,
      t.epciCode,
    );
    for (const p of record.products) {
      product.run(
        p.productId,
        p.brickId,
        m.abId,
        p.slug,
        p.brickType,
        p.name,
        p.description,
        p.priceCents,
        p.currency,
        p.pricingModel,
        p.inventoryStatus,
        p.imageUrl,
        p.externalUrl,
        cachedJson(p.tags),
        bool(p.isLocked),
        p.position,
        p.updatedAt,
      );
    }
    for (const s of record.signals) {
      signal.run(
        m.abId,
        s.key,
        s.status,
        s.proofStatus,
        s.source,
        s.sourceUrl,
        json(s.value),
        s.verifiedAt,
        s.recordedAt,
        s.expiresAt,
      );
    }
    for (const c of record.clusters) {
      cluster.run(c.clusterId, m.abId, c.label, c.type, c.scope, c.brickId, c.position, c.updatedAt);
      for (const n of c.nodes) {
        node.run(
          n.nodeId,
          c.clusterId,
          n.intent,
          n.question,
          n.answer,
          n.answerBluf,
          n.claimSentence,
          n.verificationLevel,
          n.factLevel,
          n.factSourceUrl,
          bool(n.editedByMerchant),
          n.driftSeverity,
          n.humanVerifiedAt,
          n.position,
        );
      }
    }
  };

  return {
    add(record) {
      if (!sqlite.inTransaction) begin.run();
      insert(record);
    },
    commit() {
      if (sqlite.inTransaction) commit.run();
    },
    abort() {
      if (sqlite.inTransaction) rollback.run();
    },
    finish() {
      if (sqlite.inTransaction) commit.run();
      sqlite.pragma("optimize");
      sqlite.pragma("wal_checkpoint(TRUNCATE)");
    },
  };
}

export function isRegistryEmpty(db: Db): boolean {
  return db.$client.prepare("SELECT 1 FROM merchants LIMIT 1").get() === undefined;
}

/**
 * Tables holding rows that depend on merchants (found through the schema's foreign keys, so
 * tables added later are included), children before parents, merchants last.
 */
function merchantDependents(sqlite: Db["$client"]): string[] {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const children = new Map<string, string[]>();
  for (const table of tables) {
    const keys = sqlite.prepare(`SELECT "table" AS parent FROM pragma_foreign_key_list(?)`).all(table) as {
      parent: string;
    }[];
    for (const { parent } of keys) {
      if (parent === table) continue;
      const list = children.get(parent) ?? [];
      if (!list.includes(table)) list.push(table);
      children.set(parent, list);
    }
  }
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const child of children.get(table) ?? []) visit(child, path);
    path.delete(table);
    ordered.push(table);
  };
  visit("merchants", new Set());
  return ordered;
}

/**
 * Deletes every merchant and every row that depends on one (products, signals, Q&A, and also
 * leads, orders and whatever else references merchants), in one transaction. Returns the number
 * of rows deleted per table. Derived search tables are left for the next index rebuild. The
 * change feed (append-only) tells its readers that every listed merchant was withdrawn.
 */
export function clearRegistry(db: Db): Record<string, number> {
  const sqlite = db.$client;
  const deleted: Record<string, number> = {};
  sqlite
    .transaction(() => {
      sqlite
        .prepare(
          `INSERT INTO merchant_changes (ab_id, revision, change, changed_at)
           SELECT ab_id, revision + 1, 'withdrawn', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM merchants
           WHERE status IN (${[...LISTED_STATUSES].map((status) => `'${status}'`).join(", ")}) ORDER BY ab_id`,
        )
        .run();
      for (const table of merchantDependents(sqlite)) {
        deleted[table] = sqlite.prepare(`DELETE FROM "${table}"`).run().changes;
      }
    })
    .immediate();
  return deleted;
}

export function countRegistry(db: Db): RegistryCounts {
  const sqlite = db.$client;
  const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    merchants: count("merchants"),
    territorialProofs: count("territorial_proofs"),
    products: count("products"),
    signals: count("signals"),
    clusters: count("qa_clusters"),
    nodes: count("qa_nodes"),
  };
}
