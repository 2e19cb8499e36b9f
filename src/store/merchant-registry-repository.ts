import type { Statement } from "better-sqlite3";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Merchant, Signal } from "../domain/merchant.ts";
import type {
  MerchantCreation,
  MerchantEvent,
  MerchantEventInput,
  MerchantListFilter,
  MerchantListing,
  MerchantModification,
  MerchantRegistryStore,
  MerchantRegistryView,
  SignalConfirmation,
} from "../domain/merchants/merchant-registry.ts";
import { merchantStatusSchema } from "../schemas/envelope.ts";
import type { Db } from "./db.ts";
import { and, asc, eq, getTableColumns, getTableConfig, gte, lte, sql } from "./drizzle.ts";
import { createMerchantReads } from "./merchant-repository.ts";
import { merchantEventRow } from "./merchant-rows.ts";
import {
  merchantChanges,
  merchantEvents,
  merchants,
  products,
  qaClusters,
  qaNodes,
  signals,
  territorialProofs,
} from "./schema.ts";
import { noticeWriter } from "./space-notice-repository.ts";

/**
 * The registry on SQLite (the port: src/domain/merchants/merchant-registry.ts). A batch is one
 * BEGIN IMMEDIATE transaction whose decisions read and write through the synchronous view below
 * (each row, and each write, a savepoint of it), so a command can run beside a serving server; a
 * single write is its own such transaction.
 */
export function createMerchantRegistryRepository(db: Db): MerchantRegistryStore {
  const view = createMerchantRegistryView(db);
  const sqlite = db.$client;
  // Every batch writes its merchants' touches once each at its end (the view's deferTouches).
  const batch = sqlite.transaction((decide: (view: MerchantRegistryView) => unknown) =>
    view.deferTouches(() => decide(view)),
  );
  const siretsQuery = sqlite.prepare("SELECT siret FROM merchants WHERE siret > ? ORDER BY siret LIMIT ?").pluck();
  // A digest counts while its merchant is at the revision recorded with it, and is the only one of its SIRET.
  const digestsQuery = sqlite.prepare(
    `SELECT m.siret AS siret, d.digest AS digest
     FROM merchants m JOIN official_row_digests d ON d.ab_id = m.ab_id AND d.revision = m.revision
     WHERE m.siret IN (SELECT value FROM json_each(?))
       AND (SELECT count(*) FROM merchants other WHERE other.siret = m.siret) = 1`,
  );
  return {
    async find(abId) {
      return view.find(abId);
    },
    async abIdOfSiret(siret) {
      return view.abIdOfSiret(siret);
    },
    async abIdsOfSiren(siren) {
      return view.abIdsOfSiren(siren);
    },
    async create(write) {
      batch.immediate(() => view.create(write));
    },
    async update(write) {
      return batch.immediate(() => view.update(write)) as boolean;
    },
    async applyBatch<T>(_keys: unknown, decide: (view: MerchantRegistryView) => T): Promise<T> {
      // SQLite reads as it goes, inside the one writer's transaction: the keys are for engines that read first.
      return batch.immediate(decide) as T;
    },
    async sirets(after, limit) {
      return siretsQuery.all(after ?? "", limit) as string[];
    },
    async officialRowDigests(sirets) {
      const rows = digestsQuery.all(JSON.stringify(sirets)) as { siret: string; digest: string }[];
      return new Map(rows.map((row) => [row.siret, row.digest]));
    },
    async events(abId) {
      return view.events(abId);
    },
    async list(filter) {
      return view.list(filter);
    },
  };
}

/**
 * The registry's reads and writes on SQLite, synchronous: what a batch's decisions see. Statements
 * are prepared once from drizzle's schema (the schema maps the domain's fields to columns, JSON and
 * booleans included; imports write millions of rows). Each write is a transaction of its own, a
 * savepoint when inside one: the merchant row moves from its expected revision or nothing is written.
 */
export function createMerchantRegistryView(db: Db): MerchantRegistryView & {
  events(abId: string): MerchantEvent[];
  list(filter: MerchantListFilter): MerchantListing[];
  /**
   * Runs `write` (inside a transaction the caller began) with the touch triggers standing aside
   * (store_revision.deferred_touches), then touches each merchant the view wrote once, at store
   * revisions of their own, in the order written: what the triggers would have left, the
   * revision moving by one a merchant instead of one a row. Nothing is deferred when it throws:
   * the caller's transaction rolls back with the flag.
   */
  deferTouches<T>(write: () => T): T;
} {
  const reads = createMerchantReads(db);
  // Prepared once: an import asks these for every row of a file of millions.
  // The two an import asks of every row (and every new ab_id), plucked: drizzle's mapping of a
  // one-column row cost more than the index lookup.
  const revisionQuery = db.$client.prepare<[string], number>("SELECT revision FROM merchants WHERE ab_id = ?").pluck();
  const siretQuery = db.$client.prepare<[string], string>("SELECT ab_id FROM merchants WHERE siret = ?").pluck();
  const sirenQuery = db
    .select({ abId: merchants.abId })
    .from(merchants)
    .where(and(gte(merchants.siret, sql.placeholder("from")), lte(merchants.siret, sql.placeholder("to"))))
    .orderBy(asc(merchants.abId))
    .prepare();
  const paymentAccountQuery = db
    .select({ paymentAccountId: merchants.paymentAccountId })
    .from(merchants)
    .where(eq(merchants.abId, sql.placeholder("abId")))
    .prepare();
  const revisionOf = (abId: string) => revisionQuery.get(abId) ?? null;
  const insertMerchant = preparedInsert(db, merchants);
  const insertProof = preparedInsert(db, territorialProofs);
  const insertProduct = preparedInsert(db, products);
  const insertEvent = preparedInsert(db, merchantEvents);
  const insertChange = preparedInsert(db, merchantChanges);
  const insertCluster = preparedInsert(db, qaClusters);
  const insertNode = preparedInsert(db, qaNodes);
  const upsertSignalRow = preparedInsert(db, signals, [signals.abId, signals.key]);
  const upsertSignal = (abId: string, signal: Signal) => upsertSignalRow({ ...signal, abId });

  const record = (abId: string, revision: number, event: MerchantEventInput, feed: string | null) => {
    insertEvent(merchantEventRow(abId, revision, event));
    if (feed) insertChange({ abId, revision, change: feed, changedAt: event.at });
  };

  const sqlite = db.$client;
  const deleteProof = sqlite.prepare("DELETE FROM territorial_proofs WHERE ab_id = ?");
  const deleteProducts = sqlite.prepare("DELETE FROM products WHERE ab_id = ?");
  const deleteClusters = sqlite.prepare("DELETE FROM qa_clusters WHERE ab_id = ?");
  const updateMerchantRow = preparedUpdate(db);
  const recordDigest = sqlite.prepare(
    `INSERT INTO official_row_digests (ab_id, digest, revision)
     SELECT ab_id, ?, revision FROM merchants WHERE ab_id = ?
     ON CONFLICT (ab_id) DO UPDATE SET digest = excluded.digest, revision = excluded.revision`,
  );
  const writeNotice = noticeWriter(sqlite);
  // A confirmation moves a signal's dates and nothing else: one small UPDATE a signal, no merchant row.
  const confirmSignal = sqlite.prepare<
    [string, string | null, string | null, string, string | null, string | null, string | null, string, string]
  >(
    `UPDATE signals SET source = ?, source_url = ?, verified_at = ?, recorded_at = ?, expires_at = ?, changed_at = ?,
       origin = ? WHERE ab_id = ? AND key = ?`,
  );

  const setDeferral = sqlite.prepare("UPDATE store_revision SET deferred_touches = 1 WHERE id = 1");
  const endDeferral = sqlite
    .prepare<[number]>(
      "UPDATE store_revision SET deferred_touches = 0, revision = revision + ? WHERE id = 1 RETURNING revision",
    )
    .pluck();
  // `WHERE true`: SQLite reads ON CONFLICT after a SELECT only past a WHERE.
  const touchAll = sqlite.prepare<[number, string]>(
    `INSERT INTO merchant_touches (ab_id, touch) SELECT value, ? + key FROM json_each(?) WHERE true
     ON CONFLICT (ab_id) DO UPDATE SET touch = excluded.touch`,
  );
  /** The merchants written while touches are deferred, in the order first written; null: not deferring. */
  let touched: Set<string> | null = null;
  const wrote = (abId: string) => touched?.add(abId);

  // A write's rows, run as a transaction function (made once: better-sqlite3 prepares its BEGIN,
  // COMMIT and SAVEPOINT statements with it; inside a batch it becomes a savepoint), or as they are
  // inside a row of a batch, whose own savepoint already takes all or nothing of them: a second
  // savepoint there copied each page the write changed into the statement journal again (a
  // national import writes 16 B-tree entries a new merchant).
  const createRows = (write: MerchantCreation) => {
    insertMerchant({ ...write.merchant, paymentAccountId: null, revision: 1 });
    if (write.territorialProof) insertProof({ abId: write.merchant.abId, ...write.territorialProof });
    for (const product of write.products) insertProduct(product);
    for (const signal of write.signals ?? []) upsertSignal(write.merchant.abId, signal);
    record(write.merchant.abId, 1, write.event, write.feed);
  };
  const createTransaction = sqlite.transaction(createRows);
  const rowTransaction = sqlite.transaction((decide: () => unknown) => decide());
  const updateRows = (write: MerchantModification): boolean => {
    const fields: Partial<typeof merchants.$inferInsert> = columnsOf(write.fields);
    if (write.paymentAccountId !== undefined) fields.paymentAccountId = write.paymentAccountId;
    if (!updateMerchantRow(write.abId, write.expectedRevision, fields)) return false;
    if (write.territorialProof !== undefined) {
      deleteProof.run(write.abId);
      if (write.territorialProof) insertProof({ abId: write.abId, ...write.territorialProof });
    }
    if (write.products) {
      // Leads keep their brick_id as text; a product taken out of the list simply goes.
      deleteProducts.run(write.abId);
      for (const product of write.products) insertProduct(product);
    }
    for (const signal of write.signals ?? []) upsertSignal(write.abId, signal);
    if (write.clusters) {
      // Nodes go with their cluster (ON DELETE CASCADE).
      deleteClusters.run(write.abId);
      for (const { nodes, ...cluster } of write.clusters) {
        insertCluster(cluster);
        for (const node of nodes) insertNode({ ...node, clusterId: cluster.clusterId });
      }
    }
    record(write.abId, write.expectedRevision + 1, write.event, write.feed);
    if (write.notice) writeNotice(write.notice);
    return true;
  };
  const updateTransaction = sqlite.transaction(updateRows);
  /** How many rows of a batch (savepoints of `row`) are running now. */
  let rowsOpen = 0;

  return {
    find(abId) {
      const profile = reads.findProfile(abId);
      const revision = revisionOf(abId);
      if (!profile || revision === null) return null;
      return {
        merchant: profile.merchant,
        revision,
        territorialProof: profile.territorialProof,
        products: profile.products,
        signals: profile.signals,
        clusters: profile.clusters,
        paymentAccountId: paymentAccountQuery.get({ abId })?.paymentAccountId ?? null,
      };
    },
    abIdOfSiret(siret) {
      return siretQuery.get(siret) ?? null;
    },
    abIdsOfSiren(siren) {
      if (!/^\d{9}$/.test(siren)) return [];
      // A range on the SIRET index: every 14-digit SIRET of the company sorts between these two.
      return sirenQuery.all({ from: `${siren}00000`, to: `${siren}99999` }).map((row) => row.abId);
    },
    isFree(abId) {
      return revisionOf(abId) === null;
    },
    create(write: MerchantCreation) {
      wrote(write.merchant.abId);
      if (rowsOpen > 0) createRows(write);
      else createTransaction.immediate(write);
    },
    update(write: MerchantModification) {
      wrote(write.abId);
      return rowsOpen > 0 ? updateRows(write) : updateTransaction.immediate(write);
    },
    deferTouches<T>(write: () => T): T {
      if (touched !== null) return write();
      setDeferral.run();
      touched = new Set();
      try {
        const result = write();
        const ids = [...touched];
        const last = endDeferral.get(ids.length) as number;
        if (ids.length > 0) touchAll.run(last - ids.length + 1, JSON.stringify(ids));
        return result;
      } finally {
        touched = null;
      }
    },
    confirm({ abId, signals: confirmed }: SignalConfirmation) {
      wrote(abId);
      for (const signal of confirmed) {
        const moved = confirmSignal.run(
          signal.source,
          signal.sourceUrl,
          signal.verifiedAt,
          signal.recordedAt,
          signal.expiresAt,
          signal.changedAt ?? null,
          signal.origin ?? null,
          abId,
          signal.key,
        ).changes;
        if (moved !== 1) throw new Error(`merchant ${abId} has no ${signal.key} signal to confirm`);
      }
    },
    row(decide) {
      rowsOpen++;
      try {
        return rowTransaction.immediate(decide) as ReturnType<typeof decide>;
      } finally {
        rowsOpen--;
      }
    },
    recordOfficialRowDigest(abId, digest) {
      recordDigest.run(digest, abId);
    },
    events(abId: string): MerchantEvent[] {
      return db
        .select()
        .from(merchantEvents)
        .where(eq(merchantEvents.abId, abId))
        .orderBy(asc(merchantEvents.eventId))
        .all()
        .map((row) => ({
          eventId: row.eventId,
          revision: row.revision,
          at: row.at,
          actor: row.actor,
          action: row.action as MerchantEvent["action"],
          changes: JSON.parse(row.changes) as MerchantEvent["changes"],
          reason: row.reason,
        }));
    },
    list(filter: MerchantListFilter): MerchantListing[] {
      const conditions = [
        filter.status ? eq(merchants.status, filter.status) : undefined,
        filter.sector ? eq(merchants.sector, filter.sector) : undefined,
        filter.department
          ? sql`${merchants.abId} IN (SELECT ab_id FROM territorial_proofs WHERE department_code = ${filter.department})`
          : undefined,
      ].filter((condition) => condition !== undefined);
      return db
        .select({
          abId: merchants.abId,
          businessName: merchants.businessName,
          status: merchants.status,
          sector: merchants.sector,
          postalCode: merchants.postalCode,
          city: merchants.city,
          revision: merchants.revision,
          updatedAt: merchants.updatedAt,
        })
        .from(merchants)
        .where(conditions.length > 0 ? and(...conditions) : undefined)
        .orderBy(asc(merchants.abId))
        .limit(filter.limit)
        .all()
        .map((row) => ({ ...row, status: merchantStatusSchema.parse(row.status) }));
    },
  };
}

/**
 * An INSERT of every column of a table, prepared once from the drizzle schema (its columns map
 * the fields, JSON and booleans included; NULL stays NULL, never JSON's "null"): a field the row
 * leaves out takes the column's default, or NULL. With `conflictTarget`, a row whose key exists
 * replaces its other columns (an upsert). Building and preparing the statement for each row was
 * most of an import's time.
 */
function preparedInsert<Table extends SQLiteTable>(
  db: Db,
  table: Table,
  conflictTarget?: SQLiteColumn[],
): (row: Table["$inferInsert"]) => void {
  const columns = (Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]).filter(
    ([, column]) => !(column.primary && column.columnType === "SQLiteInteger" && column.hasDefault),
  );
  const quoted = (column: SQLiteColumn) => `"${column.name}"`;
  let text = `INSERT INTO "${getTableConfig(table).name}" (${columns.map(([, column]) => quoted(column)).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
  if (conflictTarget) {
    const others = columns.filter(([, column]) => !conflictTarget.includes(column));
    text += ` ON CONFLICT (${conflictTarget.map(quoted).join(", ")}) DO UPDATE SET ${others
      .map(([, column]) => `${quoted(column)} = excluded.${quoted(column)}`)
      .join(", ")}`;
  }
  const statement = db.$client.prepare<unknown[]>(text);
  return (row) => {
    statement.run(
      columns.map(([name, column]) => {
        const value = (row as Record<string, unknown>)[name] ?? column.default ?? null;
        return value === null ? null : column.mapToDriverValue(value);
      }),
    );
  };
}

/**
 * The UPDATE of a merchant row from its expected revision (the revision moves by one), prepared
 * once per set of columns it changes: the schema's columns map the fields (JSON and booleans
 * included). False when the row is not at that revision.
 */
function preparedUpdate(
  db: Db,
): (abId: string, expectedRevision: number, fields: Partial<typeof merchants.$inferInsert>) => boolean {
  const columns = getTableColumns(merchants) as Record<string, SQLiteColumn>;
  const statements = new Map<string, Statement<unknown[]>>();
  return (abId, expectedRevision, fields) => {
    const names = Object.keys(fields).filter((name) => name in columns && name !== "abId" && name !== "revision");
    const signature = names.join(",");
    let statement = statements.get(signature);
    if (!statement) {
      const sets = names.map((name) => `"${(columns[name] as SQLiteColumn).name}" = ?`);
      statement = db.$client.prepare<unknown[]>(
        `UPDATE merchants SET ${[...sets, "revision = revision + 1"].join(", ")} WHERE ab_id = ? AND revision = ?`,
      );
      statements.set(signature, statement);
    }
    const values = names.map((name) => {
      const value = (fields as Record<string, unknown>)[name];
      return value === null || value === undefined ? null : (columns[name] as SQLiteColumn).mapToDriverValue(value);
    });
    return statement.run(...values, abId, expectedRevision).changes === 1;
  };
}

/** The domain's merchant fields as drizzle's column properties (the same names, ab_id aside). */
function columnsOf(fields: Partial<Merchant>): Partial<typeof merchants.$inferInsert> {
  const { abId: _abId, ...columns } = fields;
  return columns;
}
