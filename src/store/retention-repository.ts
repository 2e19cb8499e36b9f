import type { SQLWrapper } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
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
import { inTransaction, rows, run, type StoreDb, sqliteOf } from "./store-db.ts";

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

/** `(columns) IN (keys)`: the rows of a batch by their primary key, as both engines read it. */
const picked = (columns: SQLiteColumn[], keys: SQLWrapper) => sql`(${sql.join(columns, sql`, `)}) in ${keys}`;

/** A column's placeholder where it holds something, NULL where it holds nothing. */
const clearedWhenSet = (column: SQLiteColumn, value: string) =>
  sql`CASE WHEN ${column} IS NULL THEN NULL ELSE ${value} END`;

export function createRetentionRepository(db: StoreDb): RetentionRepository {
  const sqlite = sqliteOf(db);
  /** Runs one batch after another, each its own transaction, until one changes nothing. */
  const drain = async (batch: (tx: StoreDb) => { all(): unknown[] | Promise<unknown[]> }): Promise<number> => {
    let total = 0;
    for (;;) {
      const changed = (await inTransaction(db, (tx) => rows(batch(tx)))).length;
      total += changed;
      if (changed === 0) return total;
    }
  };
  return {
    async anonymizeBefore({ cutoff, now, idempotencyCutoff, sessionCutoff, batchSize = 1000 }) {
      const leadBatch = async (): Promise<number> => {
        let total = 0;
        for (;;) {
          const changed = await inTransaction(db, function* (tx) {
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
            // intent_data loses its free-text keys, rewritten as drizzle wrote it (JSON.stringify):
            // the bytes SQLite's json_remove wrote, on both engines.
            for (const { leadId, intentData } of batch) {
              if (!intentData || !INTENT_FREE_TEXT.some((key) => key in intentData)) continue;
              const kept = Object.fromEntries(
                Object.entries(intentData).filter(([key]) => !INTENT_FREE_TEXT.includes(key)),
              );
              yield* run(tx.update(leads).set({ intentData: kept }).where(eq(leads.leadId, leadId)));
            }
            return batch.length;
          });
          total += changed;
          if (changed === 0) return total;
        }
      };
      const counts = {
        leads: await leadBatch(),
        leadMessages: await drain((tx) =>
          tx
            .update(leadMessages)
            .set({ body: ANONYMIZED_TEXT, anonymizedAt: now })
            .where(
              picked(
                [leadMessages.messageId],
                tx
                  .select({ messageId: leadMessages.messageId })
                  .from(leadMessages)
                  .innerJoin(leads, eq(leads.leadId, leadMessages.leadId))
                  .where(
                    and(
                      isNull(leadMessages.anonymizedAt),
                      or(lt(leadMessages.createdAt, cutoff), isNotNull(leads.anonymizedAt)),
                    ),
                  )
                  .limit(batchSize),
              ),
            )
            .returning({ messageId: leadMessages.messageId }),
        ),
        platformContacts: await drain((tx) =>
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
              picked(
                [platformContacts.contactId],
                tx
                  .select({ contactId: platformContacts.contactId })
                  .from(platformContacts)
                  .where(and(lt(platformContacts.createdAt, cutoff), isNull(platformContacts.anonymizedAt)))
                  .limit(batchSize),
              ),
            )
            .returning({ contactId: platformContacts.contactId }),
        ),
        // An order keeps its merchant, items, amount and statuses; the buyer's email, address and notes go.
        orders: await drain((tx) =>
          tx
            .update(orders)
            .set({
              userEmail: clearedWhenSet(orders.userEmail, ANONYMIZED_EMAIL),
              deliveryAddress: null,
              customerNotes: clearedWhenSet(orders.customerNotes, ANONYMIZED_TEXT),
              anonymizedAt: now,
            })
            .where(
              picked(
                [orders.orderId],
                tx
                  .select({ orderId: orders.orderId })
                  .from(orders)
                  .where(and(lt(orders.createdAt, cutoff), isNull(orders.anonymizedAt)))
                  .limit(batchSize),
              ),
            )
            .returning({ orderId: orders.orderId }),
        ),
        dedupWindows: await drain((tx) => {
          const key = [
            leadDedupWindows.abId,
            leadDedupWindows.emailNormalized,
            leadDedupWindows.leadType,
            leadDedupWindows.callerScope,
          ];
          return tx
            .delete(leadDedupWindows)
            .where(
              picked(
                key,
                tx
                  .select({
                    abId: leadDedupWindows.abId,
                    emailNormalized: leadDedupWindows.emailNormalized,
                    leadType: leadDedupWindows.leadType,
                    callerScope: leadDedupWindows.callerScope,
                  })
                  .from(leadDedupWindows)
                  .where(lte(leadDedupWindows.windowEndsAt, now))
                  .limit(batchSize),
              ),
            )
            .returning({ abId: leadDedupWindows.abId });
        }),
        idempotencyKeys: await drain((tx) =>
          tx
            .delete(idempotencyKeys)
            .where(
              picked(
                [idempotencyKeys.scope, idempotencyKeys.key],
                tx
                  .select({ scope: idempotencyKeys.scope, key: idempotencyKeys.key })
                  .from(idempotencyKeys)
                  .where(and(like(idempotencyKeys.scope, "lead:%"), lt(idempotencyKeys.createdAt, idempotencyCutoff)))
                  .limit(batchSize),
              ),
            )
            .returning({ scope: idempotencyKeys.scope }),
        ),
        spaceSessions:
          (await drain((tx) =>
            tx
              .delete(proSessions)
              .where(
                picked(
                  [proSessions.sessionId],
                  tx
                    .select({ sessionId: proSessions.sessionId })
                    .from(proSessions)
                    .where(
                      or(
                        and(isNotNull(proSessions.endedAt), lt(proSessions.endedAt, sessionCutoff)),
                        lt(proSessions.absoluteExpiresAt, sessionCutoff),
                      ),
                    )
                    .limit(batchSize),
                ),
              )
              .returning({ sessionId: proSessions.sessionId }),
          )) +
          (await drain((tx) =>
            tx
              .delete(proSignIns)
              .where(
                picked(
                  [proSignIns.tokenHash],
                  tx
                    .select({ tokenHash: proSignIns.tokenHash })
                    .from(proSignIns)
                    .where(lt(proSignIns.expiresAt, sessionCutoff))
                    .limit(batchSize),
                ),
              )
              .returning({ tokenHash: proSignIns.tokenHash }),
          )) +
          // The letter path's sign-in links hold the address they went to: gone as long after they expired.
          (await drain((tx) =>
            tx
              .delete(spaceSignInLinks)
              .where(
                picked(
                  [spaceSignInLinks.linkId],
                  tx
                    .select({ linkId: spaceSignInLinks.linkId })
                    .from(spaceSignInLinks)
                    .where(lt(spaceSignInLinks.expiresAt, sessionCutoff))
                    .limit(batchSize),
                ),
              )
              .returning({ linkId: spaceSignInLinks.linkId }),
          )),
        // A link's row names the address asked for; 30 days after it expired, the audit log holds
        // what became of it (the email change, under the merchant's actor).
        leadEmailLinks: await drain((tx) =>
          tx
            .delete(leadEmailConfirmations)
            .where(
              picked(
                [leadEmailConfirmations.confirmationId],
                tx
                  .select({ confirmationId: leadEmailConfirmations.confirmationId })
                  .from(leadEmailConfirmations)
                  .where(lt(leadEmailConfirmations.expiresAt, sessionCutoff))
                  .limit(batchSize),
              ),
            )
            .returning({ confirmationId: leadEmailConfirmations.confirmationId }),
        ),
        // A notice names the addresses told of a change; 30 days after it, the audit log keeps the
        // change (the outbox has long settled it: its retries end within a day).
        spaceNotices: await drain((tx) =>
          tx
            .delete(spaceNotices)
            .where(
              picked(
                [spaceNotices.noticeId],
                tx
                  .select({ noticeId: spaceNotices.noticeId })
                  .from(spaceNotices)
                  .where(lt(spaceNotices.at, sessionCutoff))
                  .limit(batchSize),
              ),
            )
            .returning({ noticeId: spaceNotices.noticeId }),
        ),
      };
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
