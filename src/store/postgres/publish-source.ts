/**
 * The publication's reads on PostgreSQL: merchants' source stamps and modification dates, the
 * merchants touched since a revision, and profiles loaded a batch at a time for the refresh (the
 * SQLite ones: src/store/publish-source.ts, which says what each stamp and date is made of). The
 * same expressions in PostgreSQL's words (greatest for SQLite's scalar max, numbers cast to text
 * before they are joined). A stamp is compared only with stamps of the same engine: a registry
 * copied from SQLite has its files published again once.
 */
import type pg from "pg";
import type { MerchantProfile, QaCluster } from "../../domain/merchant.ts";
import { type Row, text, toCluster, toMerchant, toNode, toProduct, toProof, toSignal } from "../merchant-rows.ts";
import {
  type MerchantStamp,
  type ModificationRow,
  type ProfileLoader,
  type PublishSource,
  type StampRow,
  stampHash,
} from "../publish-source.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { postgresStoreRevisionReader } from "./registry-feeds.ts";
import { firstRow, inOneSnapshot } from "./transaction.ts";

const STAMP_SQL = `m.status || '|' || m.updated_at
  || '|' || coalesce((SELECT max(p.updated_at) || '#' || count(*) FROM products p WHERE p.ab_id = m.ab_id), '')
  || '|' || coalesce((SELECT max(c.updated_at) || '#' || count(*) FROM qa_clusters c WHERE c.ab_id = m.ab_id), '')
  || '|' || (SELECT count(*) FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = m.ab_id)
  || '|' || coalesce((SELECT max(s.recorded_at) || '#' || coalesce(max(s.verified_at), '') || '#' || coalesce(max(s.expires_at), '') || '#' || count(*) FROM signals s WHERE s.ab_id = m.ab_id), '')
  || '|' || coalesce((SELECT coalesce(t.verified_at, '') || '#' || coalesce(t.latitude::text, '') || ',' || coalesce(t.longitude::text, '') FROM territorial_proofs t WHERE t.ab_id = m.ab_id), '')`;

const LAST_MODIFIED_SQL = `greatest(m.updated_at, coalesce(m.brand_updated_at, ''),
    coalesce((SELECT max(p.updated_at) FROM products p WHERE p.ab_id = m.ab_id), ''),
    coalesce((SELECT max(c.updated_at) FROM qa_clusters c WHERE c.ab_id = m.ab_id), ''),
    coalesce((SELECT max(n.human_verified_at) FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = m.ab_id), ''),
    coalesce((SELECT greatest(max(s.recorded_at), coalesce(max(s.verified_at), '')) FROM signals s WHERE s.ab_id = m.ab_id), ''),
    coalesce((SELECT max(s.expires_at) FROM signals s WHERE s.ab_id = m.ab_id AND s.expires_at <= $1), ''),
    coalesce((SELECT t.verified_at FROM territorial_proofs t WHERE t.ab_id = m.ab_id), ''))`;
const NEXT_CHANGE_SQL = "(SELECT min(s.expires_at) FROM signals s WHERE s.ab_id = m.ab_id AND s.expires_at > $1)";

const toStamp = (row: StampRow): MerchantStamp => ({
  abId: row.ab_id,
  status: row.status,
  stamp: stampHash(row.stamp),
});

export function createPostgresPublishSource(pool: pg.Pool): Asynchronous<PublishSource> {
  const stamps = async (where: string, values: unknown[]) =>
    (
      await pool.query<StampRow>(
        `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m WHERE ${where}`,
        values,
      )
    ).rows.map(toStamp);
  const revision = postgresStoreRevisionReader(pool);
  return {
    stampsAfter: (afterAbId, limit) => stamps("m.ab_id > $1 ORDER BY m.ab_id LIMIT $2", [afterAbId, limit]),
    async modificationsAfter(afterAbId, limit, nowIso) {
      const rows = await pool.query<ModificationRow>(
        `SELECT m.ab_id AS ab_id, m.status AS status, ${LAST_MODIFIED_SQL} AS last_modified, ${NEXT_CHANGE_SQL} AS next_change
         FROM merchants m WHERE m.ab_id > $2 ORDER BY m.ab_id LIMIT $3`,
        [nowIso, afterAbId, limit],
      );
      return rows.rows.map((row) => ({
        abId: row.ab_id,
        status: row.status,
        lastModified: row.last_modified,
        nextChange: row.next_change,
      }));
    },
    stampsOf: (abIds) => stamps("m.ab_id = ANY($1::text[]) ORDER BY m.ab_id", [abIds]),
    touchedSince: (cursor) =>
      // One snapshot: the revision and the touches after the cursor as of the same instant.
      inOneSnapshot(pool, async (client) => {
        const now = await firstRow<{ revision: number }>(
          client,
          "SELECT revision FROM store_revision WHERE id = 1",
          [],
        );
        const touched = await client.query<{ ab_id: string }>(
          "SELECT ab_id FROM merchant_touches WHERE touch > $1 ORDER BY ab_id",
          [cursor],
        );
        return { revision: now?.revision ?? 0, abIds: touched.rows.map((row) => row.ab_id) };
      }),
    revision,
    async stampOf(abId) {
      const [stamp] = await stamps("m.ab_id = $1", [abId]);
      return stamp ?? null;
    },
    async count() {
      return (await firstRow<{ n: number }>(pool, "SELECT count(*) AS n FROM merchants", []))?.n ?? 0;
    },
  };
}

export function createPostgresProfileLoader(pool: pg.Pool): Asynchronous<ProfileLoader> {
  return {
    load: (abIds) =>
      // A batch's six tables in one snapshot: a write committed while they are read (a product
      // added, a status changed) is in every part of a profile or in none.
      inOneSnapshot(pool, async (client) => {
        const profiles = new Map<string, MerchantProfile>();
        if (abIds.length === 0) return profiles;
        const rows = async (sql: string) => (await client.query<Row>(sql, [abIds])).rows;
        const within = "= ANY($1::text[])";
        const merchants = await rows(`SELECT * FROM merchants WHERE ab_id ${within}`);
        const proofs = await rows(`SELECT * FROM territorial_proofs WHERE ab_id ${within}`);
        const products = await rows(
          `SELECT * FROM products WHERE ab_id ${within} ORDER BY ab_id, position, product_id COLLATE "C"`,
        );
        const signals = await rows(`SELECT * FROM signals WHERE ab_id ${within} ORDER BY ab_id, key`);
        const clusterRows = await rows(
          `SELECT * FROM qa_clusters WHERE ab_id ${within} ORDER BY ab_id, position, cluster_id COLLATE "C"`,
        );
        const nodes = await rows(
          `SELECT n.* FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id ${within} ORDER BY n.cluster_id, n.position, n.node_id COLLATE "C"`,
        );
        for (const row of merchants) {
          const merchant = toMerchant(row);
          profiles.set(merchant.abId, { merchant, territorialProof: null, products: [], signals: [], clusters: [] });
        }
        for (const row of proofs) {
          const profile = profiles.get(text(row.ab_id));
          if (profile) profile.territorialProof = toProof(row);
        }
        for (const row of products) profiles.get(text(row.ab_id))?.products.push(toProduct(row));
        for (const row of signals) profiles.get(text(row.ab_id))?.signals.push(toSignal(row));
        const clusters = new Map<string, QaCluster>();
        for (const row of clusterRows) {
          const cluster = toCluster(row);
          clusters.set(cluster.clusterId, cluster);
          profiles.get(cluster.abId)?.clusters.push(cluster);
        }
        for (const row of nodes) clusters.get(text(row.cluster_id))?.nodes.push(toNode(row));
        return profiles;
      }),
  };
}
