import { createHash } from "node:crypto";
import type { MerchantProfile, QaCluster } from "../domain/merchant.ts";
import type { Db } from "./db.ts";
import { type Row, text, toCluster, toMerchant, toNode, toProduct, toProof, toSignal } from "./merchant-rows.ts";

/*
 * The publication's read queries (raw SQL on the store's connection, read-only): merchant source
 * stamps, and profiles loaded a batch at a time for the refresh job.
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

/**
 * When a merchant's page last changed: the latest write to its published inputs (the merchant, its
 * brand voice, products, Q&A clusters and their reviews, signals, territorial proof) or signal
 * expiry already passed (`@now`). The sources and the expiries are those of the documents'
 * content period (src/publish/period.ts); the yearly steps of "N ans d'activité" and of the lead
 * contract's example date are not counted as a modification of the page.
 * `next_change`: the next expiry to come, when the date moves by itself.
 */
const LAST_MODIFIED_SQL = `max(m.updated_at, coalesce(m.brand_updated_at, ''),
    coalesce((SELECT max(p.updated_at) FROM products p WHERE p.ab_id = m.ab_id), ''),
    coalesce((SELECT max(c.updated_at) FROM qa_clusters c WHERE c.ab_id = m.ab_id), ''),
    coalesce((SELECT max(n.human_verified_at) FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = m.ab_id), ''),
    coalesce((SELECT max(max(s.recorded_at), coalesce(max(s.verified_at), '')) FROM signals s WHERE s.ab_id = m.ab_id), ''),
    coalesce((SELECT max(s.expires_at) FROM signals s WHERE s.ab_id = m.ab_id AND s.expires_at <= @now), ''),
    coalesce((SELECT t.verified_at FROM territorial_proofs t WHERE t.ab_id = m.ab_id), ''))`;
const NEXT_CHANGE_SQL = "(SELECT min(s.expires_at) FROM signals s WHERE s.ab_id = m.ab_id AND s.expires_at > @now)";

/** A merchant's status and when its page last changed (LAST_MODIFIED_SQL). */
export interface MerchantModification {
  abId: string;
  status: string;
  lastModified: string;
  /** The next instant its page changes with no write (a signal's expiry), or null. */
  nextChange: string | null;
}

export interface ModificationRow {
  ab_id: string;
  status: string;
  last_modified: string;
  next_change: string | null;
}

export function stampHash(raw: string): string {
  return createHash("sha1").update(raw).digest("base64url");
}

export interface MerchantStamp {
  abId: string;
  status: string;
  /** stampHash of the raw stamp. */
  stamp: string;
}

export interface StampRow {
  ab_id: string;
  status: string;
  stamp: string;
}

export interface PublishSource {
  /** Merchants after `afterAbId` in ab_id order, with their status and stamp. */
  stampsAfter(afterAbId: string, limit: number): Promise<MerchantStamp[]>;
  /** Merchants after `afterAbId` in ab_id order, with their status and when their page last changed, as of `nowIso`. */
  modificationsAfter(afterAbId: string, limit: number, nowIso: string): Promise<MerchantModification[]>;
  /** The status and stamp of these merchants (in ab_id order); a merchant the store no longer has is absent. */
  stampsOf(abIds: readonly string[]): Promise<MerchantStamp[]>;
  /**
   * The store revision now and the merchants whose published inputs were written after `cursor`
   * (a previous answer's revision), read in one snapshot of the store (merchant_touches).
   */
  touchedSince(cursor: number): Promise<{ revision: number; abIds: string[] }>;
  /** The store revision now (a later touchedSince(revision) names whatever is written after). */
  revision(): Promise<number>;
  /**
   * The store revision now when this process can tell without waiting (SQLite: one read of the
   * shared file; PostgreSQL: the last revision notice, while listening), else null: the per-request
   * fast path then answers without a Promise.
   */
  knownRevision?(): number | null;
  /** One merchant's status and stamp, or null when unknown. */
  stampOf(abId: string): Promise<MerchantStamp | null>;
  count(): Promise<number>;
}

export function createPublishSource(db: Db): PublishSource {
  const sqlite = db.$client;
  const after = sqlite.prepare<[string, number], StampRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m WHERE m.ab_id > ? ORDER BY m.ab_id LIMIT ?`,
  );
  const one = sqlite.prepare<[string], StampRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m WHERE m.ab_id = ?`,
  );
  const modifications = sqlite.prepare<[{ now: string; after: string; limit: number }], ModificationRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${LAST_MODIFIED_SQL} AS last_modified, ${NEXT_CHANGE_SQL} AS next_change
     FROM merchants m WHERE m.ab_id > @after ORDER BY m.ab_id LIMIT @limit`,
  );
  const count = sqlite.prepare<[], { n: number }>("SELECT count(*) AS n FROM merchants");
  const revision = sqlite.prepare<[], number>("SELECT revision FROM store_revision WHERE id = 1").pluck();
  const touched = sqlite
    .prepare<[number], string>("SELECT ab_id FROM merchant_touches WHERE touch > ? ORDER BY ab_id")
    .pluck();
  const several = sqlite.prepare<[string], StampRow>(
    `SELECT m.ab_id AS ab_id, m.status AS status, ${STAMP_SQL} AS stamp FROM merchants m
     WHERE m.ab_id IN (SELECT value FROM json_each(?)) ORDER BY m.ab_id`,
  );
  const touchedSince = sqlite.transaction((cursor: number) => ({
    revision: revision.get() ?? 0,
    abIds: touched.all(cursor),
  }));
  const toStamp = (row: StampRow): MerchantStamp => ({
    abId: row.ab_id,
    status: row.status,
    stamp: stampHash(row.stamp),
  });
  return {
    stampsAfter: async (afterAbId, limit) => after.all(afterAbId, limit).map(toStamp),
    modificationsAfter: async (afterAbId, limit, nowIso) =>
      modifications.all({ now: nowIso, after: afterAbId, limit }).map((row) => ({
        abId: row.ab_id,
        status: row.status,
        lastModified: row.last_modified,
        nextChange: row.next_change,
      })),
    stampsOf: async (abIds) => several.all(JSON.stringify(abIds)).map(toStamp),
    // One read transaction: the revision and the merchants touched up to it, from one snapshot.
    touchedSince: async (cursor) => touchedSince.deferred(cursor),
    revision: async () => revision.get() ?? 0,
    knownRevision: () => revision.get() ?? 0,
    stampOf: async (abId) => {
      const row = one.get(abId);
      return row ? toStamp(row) : null;
    },
    count: async () => count.get()?.n ?? 0,
  };
}

/* ---- Bulk profile loading for the refresh job ---- */

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
    `SELECT * FROM products WHERE ab_id ${within} ORDER BY ab_id, position, product_id`,
  );
  const signalsQuery = sqlite.prepare<[string], Row>(`SELECT * FROM signals WHERE ab_id ${within} ORDER BY ab_id, key`);
  const clustersQuery = sqlite.prepare<[string], Row>(
    `SELECT * FROM qa_clusters WHERE ab_id ${within} ORDER BY ab_id, position, cluster_id`,
  );
  const nodesQuery = sqlite.prepare<[string], Row>(
    `SELECT n.* FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id ${within} ORDER BY n.cluster_id, n.position, n.node_id`,
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
