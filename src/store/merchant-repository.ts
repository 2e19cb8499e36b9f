import type { QaCluster } from "../domain/merchant.ts";
import type { MerchantRepository } from "../domain/registry/merchant-store.ts";
import type { ScorableSignal } from "../domain/trust/compute-trust.ts";
import type { Db } from "./db.ts";
import {
  type Row,
  text,
  toAssessableMerchant,
  toCluster,
  toMerchant,
  toNode,
  toProduct,
  toProof,
  toSignal,
} from "./merchant-rows.ts";
import { storeRevisionReader } from "./store-revision.ts";

export type { LeadTarget, MerchantRepository } from "../domain/registry/merchant-store.ts";

/*
 * Raw prepared statements and the shared row mapping (merchant-rows.ts): on the read path,
 * drizzle's per-column mapping cost more than the queries themselves. Lists of ids travel as one
 * JSON parameter (`IN json_each(?)`), so every statement is prepared once.
 */
export function createMerchantRepository(db: Db): MerchantRepository {
  const reads = createMerchantReads(db);
  // The port is asynchronous; SQLite answers at once, inside each call (one await for the caller).
  return {
    revision: async () => reads.revision(),
    findProfile: async (abId) => reads.findProfile(abId),
    findLeadTarget: async (abId, options) => reads.findLeadTarget(abId, options),
    findMerchants: async (abIds) => reads.findMerchants(abIds),
    findProducts: async (abIds) => reads.findProducts(abIds),
    findTrustSignals: async (abIds) => reads.findTrustSignals(abIds),
    findSignal: async (abIds, key) => reads.findSignal(abIds, key),
    findCluster: async (clusterId) => reads.findCluster(clusterId),
    findClusters: async (abId) => reads.findClusters(abId),
  };
}

/** The same reads, synchronous: for the store's own use inside a transaction (merchant-registry-repository.ts). */
export type MerchantReads = {
  [Method in keyof MerchantRepository]: (
    ...args: Parameters<MerchantRepository[Method]>
  ) => Awaited<ReturnType<MerchantRepository[Method]>>;
};

export function createMerchantReads(db: Db): MerchantReads {
  const sqlite = db.$client;
  const within = "IN (SELECT value FROM json_each(?))";
  const merchantById = sqlite.prepare<[string], Row>("SELECT * FROM merchants WHERE ab_id = ?");
  const assessableById = sqlite.prepare<[string], Row>(
    `SELECT ab_id, status, sector, email, payment_setup, description_llm_unreviewed, brand_voice, closure
     FROM merchants WHERE ab_id = ?`,
  );
  const proofById = sqlite.prepare<[string], Row>("SELECT * FROM territorial_proofs WHERE ab_id = ?");
  const productsById = sqlite.prepare<[string], Row>(
    "SELECT * FROM products WHERE ab_id = ? ORDER BY position, product_id",
  );
  const signalsById = sqlite.prepare<[string], Row>("SELECT * FROM signals WHERE ab_id = ?");
  const clustersById = sqlite.prepare<[string], Row>(
    "SELECT * FROM qa_clusters WHERE ab_id = ? ORDER BY position, cluster_id",
  );
  const clusterById = sqlite.prepare<[string], Row>("SELECT * FROM qa_clusters WHERE cluster_id = ?");
  const nodesOf = sqlite.prepare<[string], Row>(
    `SELECT * FROM qa_nodes WHERE cluster_id ${within} ORDER BY cluster_id, position, node_id`,
  );
  const merchantsByIds = sqlite.prepare<[string], Row>(`SELECT * FROM merchants WHERE ab_id ${within}`);
  const productsByIds = sqlite.prepare<[string], Row>(
    `SELECT * FROM products WHERE ab_id ${within} ORDER BY ab_id, position, product_id`,
  );
  const signalOfIds = sqlite.prepare<[string, string], Row>(`SELECT * FROM signals WHERE key = ? AND ab_id ${within}`);
  // Raw rows (arrays) of the few columns trust reads: the search path reads ~17 signals per
  // result, and building full row objects cost more than the query.
  const trustSignalsByIds = sqlite.prepare<[string], RawTrustSignal>(TRUST_SIGNALS_OF_MERCHANTS_SQL).raw();
  const trustSignalsById = sqlite.prepare<[string], RawTrustSignal>(TRUST_SIGNALS_OF_MERCHANT_SQL).raw();

  const withNodes = (rows: Row[]): QaCluster[] => {
    const clusters = rows.map(toCluster);
    if (clusters.length === 0) return clusters;
    const byId = new Map(clusters.map((cluster) => [cluster.clusterId, cluster]));
    for (const row of nodesOf.all(JSON.stringify([...byId.keys()])))
      byId.get(text(row.cluster_id))?.nodes.push(toNode(row));
    return clusters;
  };

  return {
    revision: storeRevisionReader(db),
    findProfile(abId) {
      const merchant = merchantById.get(abId);
      if (!merchant) return null;
      const proof = proofById.get(abId);
      return {
        merchant: toMerchant(merchant),
        territorialProof: proof ? toProof(proof) : null,
        products: productsById.all(abId).map(toProduct),
        signals: signalsById.all(abId).map(toSignal),
        clusters: withNodes(clustersById.all(abId)),
      };
    },
    findLeadTarget(abId, { withProducts }) {
      const merchant = assessableById.get(abId);
      if (!merchant) return null;
      return {
        merchant: toAssessableMerchant(merchant),
        signals: trustSignalsById.all(abId).map(toTrustSignal),
        products: withProducts ? productsById.all(abId).map(toProduct) : [],
      };
    },
    findMerchants(abIds) {
      if (abIds.length === 0) return [];
      return merchantsByIds.all(JSON.stringify(abIds)).map(toMerchant);
    },
    findProducts(abIds) {
      if (abIds.length === 0) return [];
      return productsByIds.all(JSON.stringify(abIds)).map(toProduct);
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
    findSignal(abIds, key) {
      const byMerchant = new Map<string, ReturnType<typeof toSignal>>();
      if (abIds.length === 0) return byMerchant;
      for (const row of signalOfIds.all(key, JSON.stringify(abIds))) byMerchant.set(text(row.ab_id), toSignal(row));
      return byMerchant;
    },
    findCluster(clusterId) {
      const row = clusterById.get(clusterId);
      return row ? (withNodes([row])[0] ?? null) : null;
    },
    findClusters(abId) {
      return withNodes(clustersById.all(abId));
    },
  };
}

/**
 * The verified signals trust reads, of several merchants (a JSON array of ab_ids) or of one: read
 * from the covering index signals_verified alone (migration 0010), without a table lookup per row.
 */
const TRUST_SIGNAL_COLUMNS = "ab_id, key, value, expires_at FROM signals WHERE status = 'verified'";
export const TRUST_SIGNALS_OF_MERCHANTS_SQL = `SELECT ${TRUST_SIGNAL_COLUMNS} AND ab_id IN (SELECT value FROM json_each(?))`;
export const TRUST_SIGNALS_OF_MERCHANT_SQL = `SELECT ${TRUST_SIGNAL_COLUMNS} AND ab_id = ?`;

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
