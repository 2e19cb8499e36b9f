/**
 * Merchant reads on PostgreSQL (the port: src/domain/registry/merchant-store.ts; the SQLite store:
 * src/store/merchant-repository.ts): the same statements and the one row mapping
 * (merchant-rows.ts, which reads booleans whether 0/1 or true/false), lists of ids as one array
 * parameter. The independent reads of a profile go out together (one round trip each, at once).
 * Signals come in key order, the order SQLite reads them by its primary key and index.
 */
import type pg from "pg";
import type { QaCluster } from "../../domain/merchant.ts";
import type { MerchantRepository } from "../../domain/registry/merchant-store.ts";
import type { ScorableSignal } from "../../domain/trust/compute-trust.ts";
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
} from "../merchant-rows.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { postgresStoreRevisionReader } from "./registry-feeds.ts";
import { firstRow } from "./transaction.ts";

const TRUST_SIGNAL_COLUMNS = "ab_id, key, value, expires_at FROM signals WHERE status = 'verified'";

interface TrustSignalRow {
  ab_id: string;
  key: string;
  value: string | null;
  expires_at: string | null;
}

function toTrustSignal(row: TrustSignalRow): ScorableSignal {
  return {
    key: row.key,
    status: "verified",
    value: row.value === null ? null : (JSON.parse(row.value) as ScorableSignal["value"]),
    expiresAt: row.expires_at,
  };
}

export function createPostgresMerchantRepository(pool: pg.Pool): Asynchronous<MerchantRepository> {
  const rows = async (sql: string, values: unknown[]) => (await pool.query<Row>(sql, values)).rows;

  const withNodes = async (clusterRows: Row[]): Promise<QaCluster[]> => {
    const clusters = clusterRows.map(toCluster);
    if (clusters.length === 0) return clusters;
    const byId = new Map(clusters.map((cluster) => [cluster.clusterId, cluster]));
    const nodes = await rows(
      'SELECT * FROM qa_nodes WHERE cluster_id = ANY($1::text[]) ORDER BY cluster_id, position, node_id COLLATE "C"',
      [[...byId.keys()]],
    );
    for (const row of nodes) byId.get(text(row.cluster_id))?.nodes.push(toNode(row));
    return clusters;
  };
  const productsOf = async (abId: string) =>
    (await rows('SELECT * FROM products WHERE ab_id = $1 ORDER BY position, product_id COLLATE "C"', [abId])).map(
      toProduct,
    );

  return {
    revision: postgresStoreRevisionReader(pool),
    async findProfile(abId) {
      const [merchant, proof, products, signals, clusters] = await Promise.all([
        firstRow<Row>(pool, "SELECT * FROM merchants WHERE ab_id = $1", [abId]),
        firstRow<Row>(pool, "SELECT * FROM territorial_proofs WHERE ab_id = $1", [abId]),
        productsOf(abId),
        rows("SELECT * FROM signals WHERE ab_id = $1 ORDER BY key", [abId]),
        rows('SELECT * FROM qa_clusters WHERE ab_id = $1 ORDER BY position, cluster_id COLLATE "C"', [abId]),
      ]);
      if (!merchant) return null;
      return {
        merchant: toMerchant(merchant),
        territorialProof: proof ? toProof(proof) : null,
        products,
        signals: signals.map(toSignal),
        clusters: await withNodes(clusters),
      };
    },
    async findLeadTarget(abId, { withProducts }) {
      const [merchant, signals, products] = await Promise.all([
        firstRow<Row>(
          pool,
          `SELECT ab_id, status, sector, email, payment_setup, description_llm_unreviewed, brand_voice, closure
           FROM merchants WHERE ab_id = $1`,
          [abId],
        ),
        pool.query<TrustSignalRow>(`SELECT ${TRUST_SIGNAL_COLUMNS} AND ab_id = $1 ORDER BY key`, [abId]),
        withProducts ? productsOf(abId) : Promise.resolve([]),
      ]);
      if (!merchant) return null;
      return { merchant: toAssessableMerchant(merchant), signals: signals.rows.map(toTrustSignal), products };
    },
    async findMerchants(abIds) {
      if (abIds.length === 0) return [];
      return (await rows("SELECT * FROM merchants WHERE ab_id = ANY($1::text[])", [abIds])).map(toMerchant);
    },
    async findProducts(abIds) {
      if (abIds.length === 0) return [];
      return (
        await rows(
          'SELECT * FROM products WHERE ab_id = ANY($1::text[]) ORDER BY ab_id, position, product_id COLLATE "C"',
          [abIds],
        )
      ).map(toProduct);
    },
    async findTrustSignals(abIds) {
      const byMerchant = new Map<string, ScorableSignal[]>();
      if (abIds.length === 0) return byMerchant;
      const found = await pool.query<TrustSignalRow>(
        `SELECT ${TRUST_SIGNAL_COLUMNS} AND ab_id = ANY($1::text[]) ORDER BY ab_id, key`,
        [abIds],
      );
      for (const row of found.rows) {
        const list = byMerchant.get(row.ab_id);
        if (list) list.push(toTrustSignal(row));
        else byMerchant.set(row.ab_id, [toTrustSignal(row)]);
      }
      return byMerchant;
    },
    async findSignal(abIds, key) {
      const byMerchant = new Map<string, ReturnType<typeof toSignal>>();
      if (abIds.length === 0) return byMerchant;
      for (const row of await rows("SELECT * FROM signals WHERE key = $1 AND ab_id = ANY($2::text[])", [key, abIds])) {
        byMerchant.set(text(row.ab_id), toSignal(row));
      }
      return byMerchant;
    },
    async findCluster(clusterId) {
      const row = await firstRow<Row>(pool, "SELECT * FROM qa_clusters WHERE cluster_id = $1", [clusterId]);
      return row ? ((await withNodes([row]))[0] ?? null) : null;
    },
    async findClusters(abId) {
      return withNodes(
        await rows('SELECT * FROM qa_clusters WHERE ab_id = $1 ORDER BY position, cluster_id COLLATE "C"', [abId]),
      );
    },
  };
}
