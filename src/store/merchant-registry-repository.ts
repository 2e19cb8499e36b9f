import type { SQLiteColumn, SQLiteInsertValue, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Merchant, Signal } from "../domain/merchant.ts";
import type {
  MerchantCreation,
  MerchantEvent,
  MerchantEventInput,
  MerchantListing,
  MerchantModification,
  MerchantRegistryStore,
} from "../domain/merchants/merchant-registry.ts";
import { merchantStatusSchema } from "../schemas/envelope.ts";
import type { Db } from "./db.ts";
import { and, asc, eq, getTableColumns, gte, lte, sql } from "./drizzle.ts";
import { createMerchantRepository } from "./merchant-repository.ts";
import { merchantChanges, merchantEvents, merchants, products, signals, territorialProofs } from "./schema.ts";

/**
 * The merchant lifecycle's writes, through drizzle's query builder (commands and imports, not a
 * request's hot path): the schema maps the domain's fields to columns, JSON and booleans
 * included. Each write is one BEGIN IMMEDIATE transaction, so a command can run beside a serving
 * server: the merchant row moves from its expected revision or nothing is written.
 */
export function createMerchantRegistryRepository(db: Db): MerchantRegistryStore {
  const reads = createMerchantRepository(db);
  // Prepared once: an import asks these for every row of a file of millions.
  const revisionQuery = db
    .select({ revision: merchants.revision })
    .from(merchants)
    .where(eq(merchants.abId, sql.placeholder("abId")))
    .prepare();
  const siretQuery = db
    .select({ abId: merchants.abId })
    .from(merchants)
    .where(eq(merchants.siret, sql.placeholder("siret")))
    .prepare();
  const revisionOf = (abId: string) => revisionQuery.get({ abId })?.revision ?? null;
  const insertMerchant = preparedInsert(db, merchants);
  const insertProof = preparedInsert(db, territorialProofs);
  const insertProduct = preparedInsert(db, products);
  const insertEvent = preparedInsert(db, merchantEvents);
  const insertChange = preparedInsert(db, merchantChanges);
  const upsertSignal = (abId: string, signal: Signal) => {
    const { key, ...rest } = signal;
    db.insert(signals)
      .values({ abId, key, ...rest })
      .onConflictDoUpdate({ target: [signals.abId, signals.key], set: rest })
      .run();
  };

  const record = (abId: string, revision: number, event: MerchantEventInput, feed: string | null) => {
    insertEvent({
      abId,
      at: event.at,
      actor: event.actor,
      action: event.action,
      changes: JSON.stringify(event.changes),
      reason: event.reason,
      revision,
    });
    if (feed) insertChange({ abId, revision, change: feed, changedAt: event.at });
  };

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
      };
    },
    abIdOfSiret(siret) {
      return siretQuery.get({ siret })?.abId ?? null;
    },
    abIdsOfSiren(siren) {
      if (!/^\d{9}$/.test(siren)) return [];
      // A range on the SIRET index: every 14-digit SIRET of the company sorts between these two.
      return db
        .select({ abId: merchants.abId })
        .from(merchants)
        .where(and(gte(merchants.siret, `${siren}00000`), lte(merchants.siret, `${siren}99999`)))
        .orderBy(asc(merchants.abId))
        .all()
        .map((row) => row.abId);
    },
    isFree(abId) {
      return revisionOf(abId) === null;
    },
    create(write: MerchantCreation) {
      db.transaction(
        () => {
          insertMerchant({ ...write.merchant, paymentAccountId: null, revision: 1 });
          if (write.territorialProof) insertProof({ abId: write.merchant.abId, ...write.territorialProof });
          for (const product of write.products) insertProduct(product);
          for (const signal of write.signals ?? []) upsertSignal(write.merchant.abId, signal);
          record(write.merchant.abId, 1, write.event, write.feed);
        },
        { behavior: "immediate" },
      );
    },
    update(write: MerchantModification) {
      return db.transaction(
        (tx) => {
          const moved = tx
            .update(merchants)
            .set({ ...columnsOf(write.fields), revision: sql`${merchants.revision} + 1` })
            .where(and(eq(merchants.abId, write.abId), eq(merchants.revision, write.expectedRevision)))
            .run();
          if (moved.changes !== 1) return false;
          if (write.territorialProof !== undefined) {
            tx.delete(territorialProofs).where(eq(territorialProofs.abId, write.abId)).run();
            if (write.territorialProof) insertProof({ abId: write.abId, ...write.territorialProof });
          }
          if (write.products) {
            // Leads keep their brick_id as text; a product taken out of the list simply goes.
            tx.delete(products).where(eq(products.abId, write.abId)).run();
            for (const product of write.products) insertProduct(product);
          }
          for (const signal of write.signals ?? []) upsertSignal(write.abId, signal);
          record(write.abId, write.expectedRevision + 1, write.event, write.feed);
          return true;
        },
        { behavior: "immediate" },
      );
    },
    inOneTransaction(work) {
      return db.$client.transaction(work).immediate();
    },
    events(abId): MerchantEvent[] {
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
    list(filter): MerchantListing[] {
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
 * An INSERT of every column of a table, prepared once with drizzle's placeholders (so the schema
 * still maps fields to columns, JSON and booleans included): a field the row leaves out takes the
 * column's default, or NULL. Building and preparing the statement for each row was most of an
 * import's time.
 */
function preparedInsert<Table extends SQLiteTable>(db: Db, table: Table): (row: Table["$inferInsert"]) => void {
  const columns = (Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]).filter(
    ([, column]) => !(column.primary && column.columnType === "SQLiteInteger" && column.hasDefault),
  );
  // Every column a placeholder: typed by the row the returned function takes, not by this object.
  const placeholders = Object.fromEntries(columns.map(([name]) => [name, sql.placeholder(name)]));
  const statement = db
    .insert(table as SQLiteTable)
    .values(placeholders as SQLiteInsertValue<SQLiteTable>)
    .prepare();
  return (row) => {
    statement.run(
      Object.fromEntries(
        columns.map(([name, column]) => [name, (row as Record<string, unknown>)[name] ?? column.default ?? null]),
      ),
    );
  };
}

/** The domain's merchant fields as drizzle's column properties (the same names, ab_id aside). */
function columnsOf(fields: Partial<Merchant>): Partial<typeof merchants.$inferInsert> {
  const { abId: _abId, ...columns } = fields;
  return columns;
}
