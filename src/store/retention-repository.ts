import type { SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { RetentionRepository } from "../domain/privacy/retention-store.ts";
import { and, eq, inArray, isNotNull, isNull, like, lt, lte, or, sql } from "./drizzle.ts";
import {
  idempotencyKeys,
  leadDedupWindows,
  leadEmailConfirmations,
  leadMessages,
  leads,
  orders,
  platformContacts,
  proSessions,
  proSignIns,
  spaceNotices,
  spaceSignInLinks,
} from "./schema.ts";
import { inTransaction, rows, run, type Statement, type StoreDb, sqliteOf, type Work } from "./store-db.ts";

export type { RetentionCounts, RetentionRepository } from "../domain/privacy/retention-store.ts";

/*
 * Anonymisation of personal data past its retention period, on both engines. What identifies or
 * describes a person (names, emails, phones, companies, free text, AI context, sector details,
 * free-text intent fields) is replaced by placeholders or cleared; ids, dates, merchant, lead
 * type, enum intent fields and statuses stay for statistics. Work is done in batches, each its own
 * transaction, so a large backlog never holds the write lock for long; a batch is picked by
 * primary key (`(key) IN (SELECT key ... LIMIT n)`, which both engines read alike). On
 * PostgreSQL the store given is the leader's fenced one (postgres-store.ts): a batch commits only
 * while this instance leads.
 */

export const ANONYMIZED_NAME = "Anonymisé";
export const ANONYMIZED_EMAIL = "anonyme@anonymise.invalid";
export const ANONYMIZED_TEXT = "[anonymisé]";

/** The free-text fields a lead's intent_data loses; the other keys stay in their order. */
const INTENT_FREE_TEXT = ["budget_range", "project_type", "timeline"];

/** A column's placeholder where it holds something, NULL where it holds nothing. */
const clearedWhenSet = (column: SQLiteColumn, value: string) =>
  sql`CASE WHEN ${column} IS NULL THEN NULL ELSE ${value} END`;

export function createRetentionRepository(db: StoreDb): RetentionRepository {
  const sqlite = sqliteOf(db);
  /** Runs one batch after another, each its own transaction, until one changes nothing. */
  const drain = async (batch: Work<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      const changed = await inTransaction(db, batch);
      total += changed;
      if (changed === 0) return total;
    }
  };
  return {
    async anonymizeBefore({ cutoff, now, idempotencyCutoff, sessionCutoff, batchSize = 1000 }) {
      /** The first `batchSize` rows of `table` that `where` picks, by their primary key. */
      const batchOf = (tx: StoreDb, table: SQLiteTable, key: SQLiteColumn[], where: SQL | undefined) => {
        const keys = tx
          .select(Object.fromEntries(key.map((column) => [column.name, column])))
          .from(table)
          .where(where)
          .limit(batchSize);
        return sql`(${sql.join(key, sql`, `)}) in ${keys}`;
      };
      /** Changes (or deletes) one batch: the count of the rows it touched. */
      function* touched(query: { all(): unknown[] | Promise<unknown[]> }): Generator<Statement, number, unknown> {
        return (yield* rows(query)).length;
      }
      const deleteBatches = (table: SQLiteTable, key: SQLiteColumn[], where: SQL | undefined) =>
        drain((tx) =>
          touched(
            tx
              .delete(table)
              .where(batchOf(tx, table, key, where))
              .returning({ one: sql`1` }),
          ),
        );
      const counts = {
        leads: await drain((tx) => leadsBatch(tx)),
        leadMessages: await drain((tx) => {
          // A follow-up message goes with its lead, or when it is itself past the cutoff.
          const keys = tx
            .select({ messageId: leadMessages.messageId })
            .from(leadMessages)
            .innerJoin(leads, eq(leads.leadId, leadMessages.leadId))
            .where(
              and(
                isNull(leadMessages.anonymizedAt),
                or(lt(leadMessages.createdAt, cutoff), isNotNull(leads.anonymizedAt)),
              ),
            )
            .limit(batchSize);
          return touched(
            tx
              .update(leadMessages)
              .set({ body: ANONYMIZED_TEXT, anonymizedAt: now })
              .where(inArray(leadMessages.messageId, keys))
              .returning({ one: sql`1` }),
          );
        }),
        platformContacts: await drain((tx) =>
          touched(
            tx
              .update(platformContacts)
              .set({
                name: ANONYMIZED_NAME,
                email: ANONYMIZED_EMAIL,
                phone: null,
                company: null,
                message: ANONYMIZED_TEXT,
                anonymizedAt: now,
              })
              .where(
                batchOf(
                  tx,
                  platformContacts,
                  [platformContacts.contactId],
                  and(lt(platformContacts.createdAt, cutoff), isNull(platformContacts.anonymizedAt)),
                ),
              )
              .returning({ one: sql`1` }),
          ),
        ),
        // An order keeps its merchant, items, amount and statuses; the buyer's email, address and notes go.
        orders: await drain((tx) =>
          touched(
            tx
              .update(orders)
              .set({
                userEmail: clearedWhenSet(orders.userEmail, ANONYMIZED_EMAIL),
                deliveryAddress: null,
                customerNotes: clearedWhenSet(orders.customerNotes, ANONYMIZED_TEXT),
                anonymizedAt: now,
              })
              .where(
                batchOf(tx, orders, [orders.orderId], and(lt(orders.createdAt, cutoff), isNull(orders.anonymizedAt))),
              )
              .returning({ one: sql`1` }),
          ),
        ),
        dedupWindows: await deleteBatches(
          leadDedupWindows,
          [
            leadDedupWindows.abId,
            leadDedupWindows.emailNormalized,
            leadDedupWindows.leadType,
            leadDedupWindows.callerScope,
          ],
          lte(leadDedupWindows.windowEndsAt, now),
        ),
        idempotencyKeys: await deleteBatches(
          idempotencyKeys,
          [idempotencyKeys.scope, idempotencyKeys.key],
          and(like(idempotencyKeys.scope, "lead:%"), lt(idempotencyKeys.createdAt, idempotencyCutoff)),
        ),
        spaceSessions:
          (await deleteBatches(
            proSessions,
            [proSessions.sessionId],
            or(
              and(isNotNull(proSessions.endedAt), lt(proSessions.endedAt, sessionCutoff)),
              lt(proSessions.absoluteExpiresAt, sessionCutoff),
            ),
          )) +
          (await deleteBatches(proSignIns, [proSignIns.tokenHash], lt(proSignIns.expiresAt, sessionCutoff))) +
          // The letter path's sign-in links hold the address they went to: gone as long after they expired.
          (await deleteBatches(
            spaceSignInLinks,
            [spaceSignInLinks.linkId],
            lt(spaceSignInLinks.expiresAt, sessionCutoff),
          )),
        // A link's row names the address asked for; 30 days after it expired, the audit log holds
        // what became of it (the email change, under the merchant's actor).
        leadEmailLinks: await deleteBatches(
          leadEmailConfirmations,
          [leadEmailConfirmations.confirmationId],
          lt(leadEmailConfirmations.expiresAt, sessionCutoff),
        ),
        // A notice names the addresses told of a change; 30 days after it, the audit log keeps the
        // change (the outbox has long settled it: its retries end within a day).
        spaceNotices: await deleteBatches(spaceNotices, [spaceNotices.noticeId], lt(spaceNotices.at, sessionCutoff)),
      };

      /** A batch of leads: what describes the person cleared, intent_data without its free-text keys. */
      function* leadsBatch(tx: StoreDb): Generator<Statement, number, unknown> {
        const batch = yield* rows(
          tx
            .select({ leadId: leads.leadId, intentData: leads.intentData })
            .from(leads)
            .where(and(lt(leads.createdAt, cutoff), isNull(leads.anonymizedAt)))
            .limit(batchSize),
        );
        if (batch.length === 0) return 0;
        yield* run(
          tx
            .update(leads)
            .set({
              contactName: ANONYMIZED_NAME,
              contactEmail: ANONYMIZED_EMAIL,
              contactPhone: null,
              message: clearedWhenSet(leads.message, ANONYMIZED_TEXT),
              aiContext: null,
              intent: null,
              metadata: null,
              anonymizedAt: now,
            })
            .where(
              inArray(
                leads.leadId,
                batch.map((lead) => lead.leadId),
              ),
            ),
        );
        // Rewritten as drizzle writes JSON (JSON.stringify, the other keys in their order): the
        // bytes SQLite's json_remove wrote, on both engines.
        for (const { leadId, intentData } of batch) {
          if (!intentData || !INTENT_FREE_TEXT.some((key) => key in intentData)) continue;
          const kept = Object.fromEntries(
            Object.entries(intentData).filter(([key]) => !INTENT_FREE_TEXT.includes(key)),
          );
          yield* run(tx.update(leads).set({ intentData: kept }).where(eq(leads.leadId, leadId)));
        }
        return batch.length;
      }
      // On SQLite, secure_delete (db.ts) zeroes what the updates freed in the database's pages;
      // the WAL still holds the pages as they were until it is checkpointed and emptied. A reader
      // in the middle of a transaction can keep it from being emptied this time: the next run does.
      if (sqlite && Object.values(counts).some((count) => count > 0)) {
        try {
          sqlite.$client.pragma("wal_checkpoint(TRUNCATE)");
        } catch {
          // SQLITE_BUSY: another connection holds the WAL; its next checkpoint copies the pages.
        }
      }
      return counts;
    },
  };
}
