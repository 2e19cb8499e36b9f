import { asc, eq, inArray, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type {
  Merchant,
  MerchantProfile,
  Product,
  QaCluster,
  QaNode,
  Signal,
  TerritorialProof,
} from "../domain/merchant.ts";
import type { ScorableSignal } from "../domain/trust/compute-trust.ts";
import type { Db } from "./db.ts";
import { merchants, products, qaClusters, qaNodes, signals, territorialProofs } from "./schema.ts";

/** Read side of the registry: whole merchant profiles, loaded with prepared statements. */
/** What lead creation reads about its merchant: no clusters, no territorial proof. */
export interface LeadTarget {
  merchant: Merchant;
  /** Verified signals only, with the fields trust scoring reads (see findTrustSignals). */
  signals: ScorableSignal[];
  /** Empty unless asked for (only a lead naming a brick_id needs them). */
  products: Product[];
}

export interface MerchantRepository {
  findProfile(abId: string): MerchantProfile | null;
  /** The lead path's share of findProfile (no Q&A clusters, no territorial proof): half its cost. */
  findLeadTarget(abId: string, options: { withProducts: boolean }): LeadTarget | null;
  findMerchants(abIds: string[]): Merchant[];
  findProducts(abIds: string[]): Product[];
  /**
   * The verified signals of each merchant, with only the fields trust scoring reads (key, status,
   * value, expiry): what search results and lead creation need to assess a merchant. Unverified
   * signals score nothing, so they are not read.
   */
  findTrustSignals(abIds: string[]): Map<string, ScorableSignal[]>;
  findCluster(clusterId: string): QaCluster | null;
  findClusters(abId: string): QaCluster[];
  /**
   * A number that moves with every write to merchants, signals, products or territorial proofs,
   * from any connection (triggers keep it, migration 0002): copies of merchant data check it.
   */
  revision(): number;
}

export function createMerchantRepository(db: Db): MerchantRepository {
  const merchantById = db
    .select()
    .from(merchants)
    .where(eq(merchants.abId, placeholderText("abId")))
    .prepare();
  const proofById = db
    .select()
    .from(territorialProofs)
    .where(eq(territorialProofs.abId, placeholderText("abId")))
    .prepare();
  const productsById = db
    .select()
    .from(products)
    .where(eq(products.abId, placeholderText("abId")))
    .orderBy(asc(products.position))
    .prepare();
  const signalsById = db
    .select()
    .from(signals)
    .where(eq(signals.abId, placeholderText("abId")))
    .prepare();
  const clustersById = db
    .select()
    .from(qaClusters)
    .where(eq(qaClusters.abId, placeholderText("abId")))
    .orderBy(asc(qaClusters.position))
    .prepare();
  const clusterById = db
    .select()
    .from(qaClusters)
    .where(eq(qaClusters.clusterId, placeholderText("clusterId")))
    .prepare();

  // Lists of ids travel as one JSON parameter, so these statements are prepared once rather than
  // rebuilt for every IN list (query building cost more than the query on the search path).
  const idsIn = (column: AnySQLiteColumn) => sql`${column} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`;
  const merchantsByIds = db.select().from(merchants).where(idsIn(merchants.abId)).prepare();
  const productsByIds = db
    .select()
    .from(products)
    .where(idsIn(products.abId))
    .orderBy(asc(products.abId), asc(products.position))
    .prepare();
  // Raw rows (arrays) of the few columns trust reads: the search path reads ~17 signals per
  // result, and building full row objects (or drizzle's per-column mapping) cost more than the query.
  const trustSignalColumns = "ab_id, key, value, expires_at FROM signals WHERE status = 'verified'";
  const trustSignalsByIds = db.$client
    .prepare<[string], RawTrustSignal>(`SELECT ${trustSignalColumns} AND ab_id IN (SELECT value FROM json_each(?))`)
    .raw();
  const trustSignalsById = db.$client
    .prepare<[string], RawTrustSignal>(`SELECT ${trustSignalColumns} AND ab_id = ?`)
    .raw();

  const loadNodes = (clusterIds: string[]): Map<string, QaNode[]> => {
    const byCluster = new Map<string, QaNode[]>();
    if (clusterIds.length === 0) return byCluster;
    const rows = db
      .select()
      .from(qaNodes)
      .where(inArray(qaNodes.clusterId, clusterIds))
      .orderBy(asc(qaNodes.clusterId), asc(qaNodes.position))
      .all();
    for (const { clusterId, ...node } of rows) {
      const list = byCluster.get(clusterId) ?? [];
      list.push(node);
      byCluster.set(clusterId, list);
    }
    return byCluster;
  };

  const withNodes = (rows: (typeof qaClusters.$inferSelect)[]): QaCluster[] => {
    const nodes = loadNodes(rows.map((row) => row.clusterId));
    return rows.map((row) => ({ ...toCluster(row), nodes: nodes.get(row.clusterId) ?? [] }));
  };

  const revisionStatement = db.$client.prepare<[], number>("SELECT revision FROM store_revision WHERE id = 1").pluck();

  return {
    revision: () => revisionStatement.get() ?? 0,
    findProfile(abId) {
      const merchant = merchantById.get({ abId });
      if (!merchant) return null;
      const proof = proofById.get({ abId });
      return {
        merchant: toMerchant(merchant),
        territorialProof: proof ? toProof(proof) : null,
        products: productsById.all({ abId }).map(toProduct),
        signals: signalsById.all({ abId }).map(toSignal),
        clusters: withNodes(clustersById.all({ abId })),
      };
    },
    findLeadTarget(abId, { withProducts }) {
      const merchant = merchantById.get({ abId });
      if (!merchant) return null;
      return {
        merchant: toMerchant(merchant),
        signals: trustSignalsById.all(abId).map(toTrustSignal),
        products: withProducts ? productsById.all({ abId }).map(toProduct) : [],
      };
    },
    findMerchants(abIds) {
      if (abIds.length === 0) return [];
      return merchantsByIds.all({ ids: JSON.stringify(abIds) }).map(toMerchant);
    },
    findProducts(abIds) {
      if (abIds.length === 0) return [];
      return productsByIds.all({ ids: JSON.stringify(abIds) }).map(toProduct);
    },
    findTrustSignals(abIds) {
      const byMerchant = new Map<string, ScorableSignal[]>();
      if (abIds.length === 0) return byMerchant;
      for (const raw of trustSignalsByIds.all(JSON.stringify(abIds))) {
        const list = byMerchant.get(raw[0]);
        if (list) list.push(toTrustSignal(raw));
        else byMerchant.set(raw[0], [toTrustSignal(raw)]);
      }
      return byMerchant;
    },
    findCluster(clusterId) {
      const row = clusterById.get({ clusterId });
      return row ? (withNodes([row])[0] ?? null) : null;
    },
    findClusters(abId) {
      return withNodes(clustersById.all({ abId }));
    },
  };
}

function placeholderText(name: string) {
  return sql.placeholder(name) as unknown as string;
}

function toMerchant(row: typeof merchants.$inferSelect): Merchant {
  const { paymentAccountId: _paymentAccountId, ...merchant } = row;
  return {
    ...merchant,
    status: merchant.status as Merchant["status"],
    zones: merchant.zones ?? [],
    languages: merchant.languages ?? [],
    terrainPhotos: merchant.terrainPhotos ?? [],
    sameAs: merchant.sameAs ?? [],
  };
}

function toProof(row: typeof territorialProofs.$inferSelect): TerritorialProof {
  const { abId: _abId, ...proof } = row;
  return proof;
}

function toProduct(row: typeof products.$inferSelect): Product {
  return { ...row, tags: row.tags ?? [] };
}

function toSignal(row: Omit<typeof signals.$inferSelect, "abId"> & { abId?: string }): Signal {
  return {
    key: row.key,
    status: row.status as Signal["status"],
    proofStatus: row.proofStatus,
    source: row.source as Signal["source"],
    sourceUrl: row.sourceUrl,
    value: row.value ?? null,
    verifiedAt: row.verifiedAt,
    recordedAt: row.recordedAt,
    expiresAt: row.expiresAt,
  };
}

function toCluster(row: typeof qaClusters.$inferSelect): Omit<QaCluster, "nodes"> {
  return { ...row, scope: row.scope === "brick" ? "brick" : "merchant" };
}

/** ab_id, key, value (JSON text), expires_at. */
type RawTrustSignal = [string, string, string | null, string | null];

function toTrustSignal([, key, value, expiresAt]: RawTrustSignal): ScorableSignal {
  return {
    key,
    status: "verified",
    value: value === null ? null : (JSON.parse(value) as ScorableSignal["value"]),
    expiresAt,
  };
}
