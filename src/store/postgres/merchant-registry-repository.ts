/**
 * The registry's writes on PostgreSQL (the port: src/domain/merchants/merchant-registry.ts; the
 * SQLite store: src/store/merchant-registry-repository.ts). A batch is one pooled client's
 * transaction: it takes the `store_revision` row first (every write to merchant data takes it
 * through the triggers, so registry batches queue there as SQLite's single writer queues them, the
 * change feed's `seq` is drawn after it, and a SIRET or ab_id the batch finds free stays free until
 * it commits), reads the batch's merchants, runs the domain's synchronous decisions over an
 * in-memory view of them (`BatchView`: each write applied to the view at once, so later rows see
 * earlier ones; a row that throws leaves the view as it found it), then writes what they decided,
 * in their order, in the same transaction. Text is ordered byte-wise (COLLATE "C"), as SQLite
 * orders it, whatever the database's collation.
 */
import type pg from "pg";
import type { Merchant, Signal } from "../../domain/merchant.ts";
import type {
  MerchantCreation,
  MerchantEvent,
  MerchantListing,
  MerchantModification,
  MerchantRegistryStore,
  MerchantRegistryView,
  RegisteredMerchant,
  RegistryBatchKeys,
  SignalConfirmation,
} from "../../domain/merchants/merchant-registry.ts";
import { merchantStatusSchema } from "../../schemas/envelope.ts";
import {
  merchantEventRow,
  type Row,
  text,
  toCluster,
  toMerchant,
  toNode,
  toProduct,
  toProof,
  toSignal,
} from "../merchant-rows.ts";
import { and, drizzlePostgres, eq, getTableColumns, sql } from "./drizzle.ts";
import type { LeaderFence } from "./leader-fence.ts";
import * as schema from "./schema.ts";
import { insertNoticeOn } from "./space-notice-repository.ts";
import type { PostgresStore } from "./store.ts";
import { inTransaction, type Queryable } from "./transaction.ts";

/**
 * The registry's writes on PostgreSQL. With a leader's fence (an import the server's leader runs:
 * the daily imports, jobs/job-store.ts), each batch commits only while that instance leads; the
 * fence lets everything through until it follows a term (an operator's import run by hand).
 */
export function createPostgresMerchantRegistryRepository(
  { pool }: PostgresStore,
  fence: Pick<LeaderFence, "transaction"> | null = null,
): MerchantRegistryStore {
  const batch = <T>(keys: RegistryBatchKeys, decide: (view: MerchantRegistryView) => T): Promise<T> => {
    const write = (client: pg.PoolClient) => registryBatchOn(client, keys, decide);
    return fence ? fence.transaction(write) : inTransaction(pool, write);
  };
  return {
    async find(abId) {
      return (await readRegistered(pool, { abIds: [abId] }))[0] ?? null;
    },
    async abIdOfSiret(siret) {
      const row = (await pool.query<{ ab_id: string }>(SIRET_QUERY, [siret])).rows[0];
      return row?.ab_id ?? null;
    },
    async abIdsOfSiren(siren) {
      if (!/^\d{9}$/.test(siren)) return [];
      return (await pool.query<{ ab_id: string }>(SIREN_QUERY, [siren])).rows.map((row) => row.ab_id);
    },
    async create(write) {
      await batch({ abIds: [write.merchant.abId] }, (view) => view.create(write));
    },
    update(write) {
      return batch({ abIds: [write.abId] }, (view) => view.update(write));
    },
    applyBatch: batch,
    async sirets(after, limit) {
      const found = await pool.query<{ siret: string }>(
        `SELECT "siret" FROM "merchants" WHERE "siret" COLLATE "C" > $1 ORDER BY "siret" COLLATE "C" LIMIT $2`,
        [after ?? "", limit],
      );
      return found.rows.map((row) => row.siret);
    },
    async officialRowDigests(sirets) {
      // A digest counts while its merchant is at the revision recorded with it, and is the only one of its SIRET.
      const found = await pool.query<{ siret: string; digest: string }>(
        `SELECT m."siret", d."digest"
         FROM "merchants" m JOIN "official_row_digests" d ON d."ab_id" = m."ab_id" AND d."revision" = m."revision"
         WHERE m."siret" = ANY($1::text[])
           AND (SELECT count(*) FROM "merchants" other WHERE other."siret" = m."siret") = 1`,
        [sirets],
      );
      return new Map(found.rows.map((row) => [row.siret, row.digest]));
    },
    async events(abId) {
      const found = await pool.query<Row>('SELECT * FROM "merchant_events" WHERE "ab_id" = $1 ORDER BY "event_id"', [
        abId,
      ]);
      return found.rows.map(
        (row): MerchantEvent => ({
          eventId: row.event_id as number,
          revision: row.revision as number,
          at: text(row.at),
          actor: text(row.actor),
          action: text(row.action) as MerchantEvent["action"],
          changes: JSON.parse(text(row.changes)) as MerchantEvent["changes"],
          reason: (row.reason as string | null) ?? null,
        }),
      );
    },
    async list(filter) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      const condition = (template: (parameter: string) => string, value: unknown) => {
        values.push(value);
        conditions.push(template(`$${values.length}`));
      };
      if (filter.status) condition((p) => `"status" = ${p}`, filter.status);
      if (filter.sector) condition((p) => `"sector" = ${p}`, filter.sector);
      if (filter.department) {
        condition(
          (p) => `"ab_id" IN (SELECT "ab_id" FROM "territorial_proofs" WHERE "department_code" = ${p})`,
          filter.department,
        );
      }
      values.push(filter.limit);
      const found = await pool.query<Row>(
        `SELECT "ab_id", "business_name", "status", "sector", "postal_code", "city", "revision", "updated_at"
         FROM "merchants" ${conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : ""}
         ORDER BY "ab_id" COLLATE "C" LIMIT $${values.length}`,
        values,
      );
      return found.rows.map(
        (row): MerchantListing => ({
          abId: text(row.ab_id),
          businessName: text(row.business_name),
          status: merchantStatusSchema.parse(row.status),
          sector: text(row.sector),
          postalCode: text(row.postal_code),
          city: text(row.city),
          revision: row.revision as number,
          updatedAt: text(row.updated_at),
        }),
      );
    },
  };
}

/**
 * A registry batch on a client already in a transaction (the confirmation of a lead email runs one
 * beside its own write): the store revision's row taken, the keys' merchants read, `decide` run over
 * them, its writes made.
 */
export async function registryBatchOn<T>(
  client: pg.PoolClient,
  keys: RegistryBatchKeys,
  decide: (view: MerchantRegistryView) => T,
): Promise<T> {
  await client.query('SELECT 1 FROM "store_revision" WHERE "id" = 1 FOR UPDATE');
  const view = new BatchView(keys, await readRegistered(client, keys));
  const result = decide(view);
  if (view.writes.length === 0) return result;
  // The touch triggers stand aside while the batch writes; it touches each merchant it wrote once,
  // in the order written, as the SQLite store does (deferTouches there). The flag is set and
  // cleared in this transaction, under the revision row's lock: no other transaction reads it set.
  await client.query('UPDATE "store_revision" SET "deferred_touches" = 1 WHERE "id" = 1');
  await writeAll(client, view.writes);
  // A digest recorded is no write to the merchant's published inputs (no trigger of SQLite's either).
  const touched = [...new Set(view.writes.flatMap(writtenMerchant))];
  const moved = await client.query<{ revision: string }>(
    'UPDATE "store_revision" SET "deferred_touches" = 0, "revision" = "revision" + $1 WHERE "id" = 1 RETURNING "revision"',
    [touched.length],
  );
  const first = Number(moved.rows[0]?.revision) - touched.length + 1;
  await client.query(
    `INSERT INTO "merchant_touches" ("ab_id", "touch")
     SELECT t."ab_id", $1::bigint + t."at" - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t("ab_id", "at")
     ON CONFLICT ("ab_id") DO UPDATE SET "touch" = excluded."touch"`,
    [first, touched],
  );
  return result;
}

/** The merchant whose published inputs a batch's write changes, if any. */
function writtenMerchant(write: Write): string[] {
  if (write.kind === "create") return [write.write.merchant.abId];
  if (write.kind === "digest") return [];
  return [write.write.abId];
}

// The first merchant of a SIRET, as SQLite's index answers it (there is normally one).
const SIRET_QUERY =
  'SELECT "ab_id" FROM "merchants" WHERE "siret" = $1 ORDER BY "created_at" COLLATE "C", "ab_id" COLLATE "C" LIMIT 1';
// A range on the SIRET index: every 14-digit SIRET of the company sorts between these two.
const SIREN_QUERY = `SELECT "ab_id" FROM "merchants" WHERE "siret" BETWEEN $1 || '00000' AND $1 || '99999' ORDER BY "ab_id" COLLATE "C"`;

/** The merchants a batch names (by ab_id, SIRET or SIREN), whole, in ab_id order. */
async function readRegistered(db: Queryable, keys: RegistryBatchKeys): Promise<RegisteredMerchant[]> {
  const abIds = [...(keys.abIds ?? [])];
  const sirets = [...(keys.sirets ?? [])];
  const sirens = (keys.sirens ?? []).filter((siren) => /^\d{9}$/.test(siren));
  if (abIds.length + sirets.length + sirens.length === 0) return [];
  const rows = async (statement: string, values: unknown[]) => (await db.query<Row>(statement, values)).rows;
  const merchantRows = await rows(
    `SELECT * FROM "merchants" WHERE "ab_id" IN (
       SELECT "ab_id" FROM "merchants" WHERE "ab_id" = ANY($1::text[])
       UNION SELECT "ab_id" FROM "merchants" WHERE "siret" = ANY($2::text[])
       UNION SELECT m."ab_id" FROM unnest($3::text[]) AS s("siren")
         JOIN "merchants" m ON m."siret" BETWEEN s."siren" || '00000' AND s."siren" || '99999'
     ) ORDER BY "ab_id" COLLATE "C"`,
    [abIds, sirets, sirens],
  );
  if (merchantRows.length === 0) return [];
  const ids = merchantRows.map((row) => text(row.ab_id));
  const proofs = await rows('SELECT * FROM "territorial_proofs" WHERE "ab_id" = ANY($1::text[])', [ids]);
  const products = await rows(
    'SELECT * FROM "products" WHERE "ab_id" = ANY($1::text[]) ORDER BY "ab_id" COLLATE "C", "position", "product_id" COLLATE "C"',
    [ids],
  );
  const signals = await rows(
    'SELECT * FROM "signals" WHERE "ab_id" = ANY($1::text[]) ORDER BY "ab_id" COLLATE "C", "key" COLLATE "C"',
    [ids],
  );
  const clusters = await rows(
    'SELECT * FROM "qa_clusters" WHERE "ab_id" = ANY($1::text[]) ORDER BY "ab_id" COLLATE "C", "position", "cluster_id" COLLATE "C"',
    [ids],
  );
  const nodes =
    clusters.length === 0
      ? []
      : await rows(
          'SELECT * FROM "qa_nodes" WHERE "cluster_id" = ANY($1::text[]) ORDER BY "cluster_id" COLLATE "C", "position", "node_id" COLLATE "C"',
          [clusters.map((row) => text(row.cluster_id))],
        );
  const byId = new Map<string, RegisteredMerchant>(
    merchantRows.map((row) => [
      text(row.ab_id),
      {
        merchant: toMerchant(row),
        revision: row.revision as number,
        territorialProof: null,
        products: [],
        signals: [],
        clusters: [],
        paymentAccountId: (row.payment_account_id as string | null) ?? null,
      },
    ]),
  );
  const of = (row: Row) => byId.get(text(row.ab_id)) as RegisteredMerchant;
  for (const row of proofs) of(row).territorialProof = toProof(row);
  for (const row of products) of(row).products.push(toProduct(row));
  for (const row of signals) of(row).signals.push(toSignal(row));
  const clusterById = new Map(
    clusters.map((row) => {
      const cluster = toCluster(row);
      of(row).clusters.push(cluster);
      return [cluster.clusterId, cluster];
    }),
  );
  for (const row of nodes) clusterById.get(text(row.cluster_id))?.nodes.push(toNode(row));
  return [...byId.values()];
}

type Write =
  | { kind: "create"; write: MerchantCreation }
  | { kind: "update"; write: MerchantModification }
  | { kind: "confirm"; write: SignalConfirmation }
  | { kind: "digest"; abId: string; digest: string; revision: number };

/**
 * The registry as a batch's decisions see it on PostgreSQL: the merchants read for its keys, with
 * the batch's own writes applied as they are made. Asking for a merchant the batch did not name is
 * the caller's mistake (an engine that reads first cannot answer it), said by name.
 */
class BatchView implements MerchantRegistryView {
  readonly writes: Write[] = [];
  private readonly merchants = new Map<string, RegisteredMerchant>();
  private readonly abIds: Set<string>;
  private readonly sirets: Set<string>;
  private readonly sirens: Set<string>;
  /** What each write replaced (undefined: the merchant did not exist), to undo a row that throws. */
  private readonly undo: [string, RegisteredMerchant | undefined][] = [];

  constructor(keys: RegistryBatchKeys, read: RegisteredMerchant[]) {
    this.abIds = new Set(keys.abIds ?? []);
    this.sirets = new Set(keys.sirets ?? []);
    this.sirens = new Set(keys.sirens ?? []);
    for (const registered of read) this.merchants.set(registered.merchant.abId, registered);
  }

  find(abId: string): RegisteredMerchant | null {
    if (!this.merchants.has(abId) && !this.abIds.has(abId)) throw notRead(`merchant ${abId}`);
    return this.merchants.get(abId) ?? null;
  }

  abIdOfSiret(siret: string): string | null {
    if (!this.sirets.has(siret) && !this.sirens.has(siret.slice(0, 9))) throw notRead(`SIRET ${siret}`);
    const found = [...this.merchants.values()].filter((registered) => registered.merchant.siret === siret);
    found.sort(
      (a, b) =>
        byCodeUnits(a.merchant.createdAt, b.merchant.createdAt) || byCodeUnits(a.merchant.abId, b.merchant.abId),
    );
    return found[0]?.merchant.abId ?? null;
  }

  abIdsOfSiren(siren: string): string[] {
    if (!/^\d{9}$/.test(siren)) return [];
    if (!this.sirens.has(siren)) throw notRead(`SIREN ${siren}`);
    return [...this.merchants.values()]
      .filter((registered) => registered.merchant.siret.startsWith(siren))
      .map((registered) => registered.merchant.abId)
      .sort();
  }

  /**
   * Free unless the batch knows it taken. An id drawn at random that another merchant holds makes
   * the batch's commit fail on the primary key (nothing written): 8 characters of 32 make that a
   * chance in a trillion per draw for a registry of a million.
   */
  isFree(abId: string): boolean {
    return !this.merchants.has(abId);
  }

  create(write: MerchantCreation): void {
    const { abId } = write.merchant;
    if (this.merchants.has(abId)) throw new Error(`merchant ${abId} exists already: it is not created again`);
    this.set(abId, {
      merchant: write.merchant,
      revision: 1,
      territorialProof: write.territorialProof,
      products: write.products,
      signals: withSignals([], write.signals ?? []),
      clusters: [],
      paymentAccountId: null,
    });
    this.writes.push({ kind: "create", write });
  }

  update(write: MerchantModification): boolean {
    const current = this.find(write.abId);
    if (!current || current.revision !== write.expectedRevision) return false;
    const merchant: Record<string, unknown> = { ...current.merchant };
    for (const [name, value] of Object.entries(write.fields)) {
      // As the UPDATE writes them: a field named without a value becomes NULL.
      if (name !== "abId" && name in merchant) merchant[name] = value ?? null;
    }
    this.set(write.abId, {
      merchant: merchant as unknown as Merchant,
      revision: current.revision + 1,
      territorialProof: write.territorialProof === undefined ? current.territorialProof : write.territorialProof,
      products: write.products ?? current.products,
      signals: withSignals(current.signals, write.signals ?? []),
      clusters: write.clusters ?? current.clusters,
      paymentAccountId: write.paymentAccountId === undefined ? current.paymentAccountId : write.paymentAccountId,
    });
    this.writes.push({ kind: "update", write });
    return true;
  }

  recordOfficialRowDigest(abId: string, digest: string): void {
    const current = this.find(abId);
    if (!current) throw new Error(`merchant ${abId} is not in the batch: no digest is recorded for it`);
    this.writes.push({ kind: "digest", abId, digest, revision: current.revision });
  }

  confirm(write: SignalConfirmation): void {
    const current = this.find(write.abId);
    if (!current) throw new Error(`merchant ${write.abId} is not there to confirm`);
    const byKey = new Map(write.signals.map((signal) => [signal.key, signal]));
    for (const key of byKey.keys()) {
      if (!current.signals.some((signal) => signal.key === key)) {
        throw new Error(`merchant ${write.abId} has no ${key} signal to confirm`);
      }
    }
    this.set(write.abId, {
      ...current,
      signals: current.signals.map((signal) => {
        const dates = byKey.get(signal.key);
        if (!dates) return signal;
        const { changedAt, origin, ...moved } = dates;
        // As the store reads it back: a signal without a change date or an origin has none.
        const { changedAt: _changed, origin: _origin, ...rest } = signal;
        return { ...rest, ...moved, ...(changedAt ? { changedAt } : {}), ...(origin ? { origin } : {}) };
      }),
    });
    this.writes.push({ kind: "confirm", write });
  }

  row<T>(decide: () => T): T {
    const writes = this.writes.length;
    const undo = this.undo.length;
    try {
      return decide();
    } catch (error) {
      this.writes.length = writes;
      for (const [abId, before] of this.undo.splice(undo).reverse()) {
        if (before) this.merchants.set(abId, before);
        else this.merchants.delete(abId);
      }
      throw error;
    }
  }

  private set(abId: string, registered: RegisteredMerchant): void {
    this.undo.push([abId, this.merchants.get(abId)]);
    this.merchants.set(abId, registered);
  }
}

function notRead(what: string): Error {
  return new Error(`the registry batch did not read ${what}: name it in the batch's keys`);
}

/** Signals written over those of the same key, in key order (as the store reads them back). */
function withSignals(current: Signal[], written: Signal[]): Signal[] {
  const byKey = new Map(current.map((signal) => [signal.key, signal]));
  for (const signal of written) byKey.set(signal.key, signal);
  return [...byKey.values()].sort((a, b) => byCodeUnits(a.key, b.key));
}

/** Text compared as SQLite compares it (and PostgreSQL under COLLATE "C"), whatever the locale. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The batch's writes, in the order decided, as the SQLite store makes them (src/store/merchant-registry-repository.ts). */
async function writeAll(client: pg.PoolClient, writes: Write[]): Promise<void> {
  if (writes.length === 0) return;
  const db = drizzlePostgres({ client, schema });
  const record = async (abId: string, revision: number, event: MerchantCreation["event"], feed: string | null) => {
    await db.insert(schema.merchantEvents).values(merchantEventRow(abId, revision, event));
    if (feed) await db.insert(schema.merchantChanges).values({ abId, revision, change: feed, changedAt: event.at });
  };
  const upsertSignals = async (abId: string, signals: Signal[]) => {
    if (signals.length === 0) return;
    const rows = signals.map((signal) => ({ ...signal, abId }));
    await db
      .insert(schema.signals)
      .values(rows)
      .onConflictDoUpdate({
        target: [schema.signals.abId, schema.signals.key],
        set: SIGNAL_REPLACED,
      });
  };
  // Confirmations in a row (most of a newer stock) go as one statement: one round trip for them all.
  let confirmations: SignalConfirmation[] = [];
  const confirmAll = async () => {
    if (confirmations.length === 0) return;
    // A signal confirmed twice in the batch (a row read twice) is written once, with its last dates.
    const latest = new Map(
      confirmations.flatMap(({ abId, signals }) =>
        signals.map((signal) => [`${abId}\u0000${signal.key}`, { abId, ...signal }] as const),
      ),
    );
    const rows = [...latest.values()];
    confirmations = [];
    const moved = await client.query(CONFIRM_SIGNALS, [
      rows.map((row) => row.abId),
      rows.map((row) => row.key),
      rows.map((row) => row.source),
      rows.map((row) => row.sourceUrl),
      rows.map((row) => row.verifiedAt),
      rows.map((row) => row.recordedAt),
      rows.map((row) => row.expiresAt),
      rows.map((row) => row.changedAt ?? null),
      rows.map((row) => row.origin ?? null),
    ]);
    // The batch read these signals under its lock (the view refused any it did not hold).
    if (moved.rowCount !== rows.length) throw new Error("a confirmed signal moved under the registry batch's lock");
  };
  // The official rows' digests go last, as one statement (their merchants are all written by then):
  // a merchant's digest recorded twice in the batch (a row read twice) is written once, the last.
  const digests = new Map<string, { digest: string; revision: number }>();
  for (const entry of writes) {
    if (entry.kind === "confirm") {
      confirmations.push(entry.write);
      continue;
    }
    if (entry.kind === "digest") {
      digests.set(entry.abId, { digest: entry.digest, revision: entry.revision });
      continue;
    }
    await confirmAll();
    const { kind, write } = entry;
    if (kind === "create") {
      const { abId } = write.merchant;
      await db.insert(schema.merchants).values({ ...write.merchant, paymentAccountId: null, revision: 1 });
      if (write.territorialProof) await db.insert(schema.territorialProofs).values({ abId, ...write.territorialProof });
      if (write.products.length > 0) await db.insert(schema.products).values(write.products);
      await upsertSignals(abId, write.signals ?? []);
      await record(abId, 1, write.event, write.feed);
      continue;
    }
    const { abId } = write;
    const columns: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(write.fields)) {
      if (name !== "abId" && name !== "revision" && name in MERCHANT_COLUMNS) columns[name] = value ?? null;
    }
    if (write.paymentAccountId !== undefined) columns.paymentAccountId = write.paymentAccountId;
    const moved = await db
      .update(schema.merchants)
      .set({ ...columns, revision: sql`${schema.merchants.revision} + 1` })
      .where(and(eq(schema.merchants.abId, abId), eq(schema.merchants.revision, write.expectedRevision)))
      .returning({ abId: schema.merchants.abId });
    // The batch holds the store's revision row and read this merchant under it: it cannot have moved.
    if (moved.length !== 1) throw new Error(`merchant ${abId} moved under the registry batch's lock`);
    if (write.territorialProof !== undefined) {
      await db.delete(schema.territorialProofs).where(eq(schema.territorialProofs.abId, abId));
      if (write.territorialProof) await db.insert(schema.territorialProofs).values({ abId, ...write.territorialProof });
    }
    if (write.products) {
      await db.delete(schema.products).where(eq(schema.products.abId, abId));
      if (write.products.length > 0) await db.insert(schema.products).values(write.products);
    }
    await upsertSignals(abId, write.signals ?? []);
    if (write.clusters) {
      // Nodes go with their cluster (ON DELETE CASCADE).
      await db.delete(schema.qaClusters).where(eq(schema.qaClusters.abId, abId));
      for (const { nodes, ...cluster } of write.clusters) {
        await db.insert(schema.qaClusters).values(cluster);
        if (nodes.length > 0) {
          await db.insert(schema.qaNodes).values(nodes.map((node) => ({ ...node, clusterId: cluster.clusterId })));
        }
      }
    }
    await record(abId, write.expectedRevision + 1, write.event, write.feed);
    if (write.notice) await insertNoticeOn(client, write.notice);
  }
  await confirmAll();
  if (digests.size > 0) {
    await client.query(RECORD_DIGESTS, [
      [...digests.keys()],
      [...digests.values()].map((each) => each.digest),
      [...digests.values()].map((each) => each.revision),
    ]);
  }
}

/** Records official rows' digests with their merchants' revisions, as arrays of the same length. */
const RECORD_DIGESTS = `INSERT INTO "official_row_digests" ("ab_id", "digest", "revision")
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
  ON CONFLICT ("ab_id") DO UPDATE SET "digest" = excluded."digest", "revision" = excluded."revision"`;

/** Moves the dates of the signals named by (ab_id, key), as arrays of the same length. */
const CONFIRM_SIGNALS = `UPDATE "signals" AS s
  SET "source" = c."source", "source_url" = c."source_url", "verified_at" = c."verified_at",
      "recorded_at" = c."recorded_at", "expires_at" = c."expires_at", "changed_at" = c."changed_at",
      "origin" = c."origin"
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
    AS c("ab_id", "key", "source", "source_url", "verified_at", "recorded_at", "expires_at", "changed_at", "origin")
  WHERE s."ab_id" = c."ab_id" AND s."key" = c."key"`;

const MERCHANT_COLUMNS = getTableColumns(schema.merchants);

/** What a signal written again replaces: every column but its key. */
const SIGNAL_REPLACED = Object.fromEntries(
  Object.entries(getTableColumns(schema.signals))
    .filter(([name]) => name !== "abId" && name !== "key")
    .map(([name, column]) => [name, sql.raw(`excluded."${column.name}"`)]),
);
