import type { RetentionRepository } from "../domain/privacy/retention-store.ts";
import type { Db } from "./db.ts";

export type { RetentionCounts, RetentionRepository } from "../domain/privacy/retention-store.ts";

/*
 * Anonymisation of personal data past its retention period. What identifies or describes a
 * person (names, emails, phones, companies, free text, AI context, sector details, free-text
 * intent fields) is replaced by placeholders or cleared; ids, dates, merchant, lead type, enum
 * intent fields and statuses stay for statistics. Work is done in batches so a large backlog
 * never holds the write lock for long.
 */

export const ANONYMIZED_NAME = "Anonymisé";
export const ANONYMIZED_EMAIL = "anonyme@anonymise.invalid";
export const ANONYMIZED_TEXT = "[anonymisé]";

export function createRetentionRepository(db: Db): RetentionRepository {
  const sqlite = db.$client;
  const leads = sqlite.prepare(
    `UPDATE leads SET contact_name = @name, contact_email = @email, contact_phone = NULL,
       message = CASE WHEN message IS NULL THEN NULL ELSE @text END, ai_context = NULL, intent = NULL,
       intent_data = CASE WHEN intent_data IS NULL THEN NULL
         ELSE json_remove(intent_data, '$.budget_range', '$.project_type', '$.timeline') END,
       metadata = NULL, anonymized_at = @now
     WHERE rowid IN (SELECT rowid FROM leads WHERE created_at < @cutoff AND anonymized_at IS NULL LIMIT @batch)`,
  );
  const messages = sqlite.prepare(
    `UPDATE lead_messages SET body = @text, anonymized_at = @now
     WHERE rowid IN (
       SELECT lm.rowid FROM lead_messages lm JOIN leads l ON l.lead_id = lm.lead_id
       WHERE lm.anonymized_at IS NULL AND (lm.created_at < @cutoff OR l.anonymized_at IS NOT NULL)
       LIMIT @batch)`,
  );
  const contacts = sqlite.prepare(
    `UPDATE platform_contacts SET name = @name, email = @email, phone = NULL, company = NULL, message = @text,
       anonymized_at = @now
     WHERE rowid IN (
       SELECT rowid FROM platform_contacts WHERE created_at < @cutoff AND anonymized_at IS NULL LIMIT @batch)`,
  );
  // An order keeps its merchant, items, amount and statuses; the buyer's email, address and notes go.
  const orders = sqlite.prepare(
    `UPDATE orders SET user_email = CASE WHEN user_email IS NULL THEN NULL ELSE @email END,
       delivery_address = NULL, customer_notes = CASE WHEN customer_notes IS NULL THEN NULL ELSE @text END,
       anonymized_at = @now
     WHERE rowid IN (SELECT rowid FROM orders WHERE created_at < @cutoff AND anonymized_at IS NULL LIMIT @batch)`,
  );
  const windows = sqlite.prepare(
    `DELETE FROM lead_dedup_windows WHERE rowid IN (
       SELECT rowid FROM lead_dedup_windows WHERE window_ends_at <= @now LIMIT @batch)`,
  );
  const keys = sqlite.prepare(
    `DELETE FROM idempotency_keys WHERE rowid IN (
       SELECT rowid FROM idempotency_keys WHERE scope LIKE 'lead:%' AND created_at < @idempotencyCutoff LIMIT @batch)`,
  );

  const spaceSessions = sqlite.prepare(
    `DELETE FROM pro_sessions WHERE rowid IN (
       SELECT rowid FROM pro_sessions
       WHERE (ended_at IS NOT NULL AND ended_at < @sessionCutoff) OR absolute_expires_at < @sessionCutoff
       LIMIT @batch)`,
  );
  const signIns = sqlite.prepare(
    `DELETE FROM pro_sign_ins WHERE rowid IN (
       SELECT rowid FROM pro_sign_ins WHERE expires_at < @sessionCutoff LIMIT @batch)`,
  );
  // The letter path's sign-in links hold the address they went to: gone as long after they expired.
  const signInLinks = sqlite.prepare(
    `DELETE FROM space_sign_in_links WHERE rowid IN (
       SELECT rowid FROM space_sign_in_links WHERE expires_at < @sessionCutoff LIMIT @batch)`,
  );

  // A link's row names the address asked for; 30 days after it expired, the audit log holds what
  // became of it (the email change, under the merchant's actor).
  const leadEmailLinks = sqlite.prepare(
    `DELETE FROM lead_email_confirmations WHERE rowid IN (
       SELECT rowid FROM lead_email_confirmations WHERE expires_at < @sessionCutoff LIMIT @batch)`,
  );

  // A notice names the addresses told of a change; 30 days after it, the audit log keeps the change
  // (the outbox has long settled it: its retries end within a day).
  const spaceNotices = sqlite.prepare(
    `DELETE FROM space_notices WHERE rowid IN (
       SELECT rowid FROM space_notices WHERE at < @sessionCutoff LIMIT @batch)`,
  );

  const drain = (run: () => number): number => {
    let total = 0;
    for (;;) {
      const changed = sqlite.transaction(run).immediate();
      total += changed;
      if (changed === 0) return total;
    }
  };

  return {
    async anonymizeBefore({ cutoff, now, idempotencyCutoff, sessionCutoff, batchSize = 1000 }) {
      const params = {
        cutoff,
        now,
        idempotencyCutoff,
        sessionCutoff,
        batch: batchSize,
        name: ANONYMIZED_NAME,
        email: ANONYMIZED_EMAIL,
        text: ANONYMIZED_TEXT,
      };
      const pick = <K extends string>(...names: K[]) =>
        Object.fromEntries(names.map((name) => [name, params[name as keyof typeof params]]));
      const counts = {
        leads: drain(() => leads.run(pick("name", "email", "text", "now", "cutoff", "batch")).changes),
        leadMessages: drain(() => messages.run(pick("text", "now", "cutoff", "batch")).changes),
        platformContacts: drain(() => contacts.run(pick("name", "email", "text", "now", "cutoff", "batch")).changes),
        orders: drain(() => orders.run(pick("email", "text", "now", "cutoff", "batch")).changes),
        dedupWindows: drain(() => windows.run(pick("now", "batch")).changes),
        idempotencyKeys: drain(() => keys.run(pick("idempotencyCutoff", "batch")).changes),
        spaceSessions:
          drain(() => spaceSessions.run(pick("sessionCutoff", "batch")).changes) +
          drain(() => signIns.run(pick("sessionCutoff", "batch")).changes) +
          drain(() => signInLinks.run(pick("sessionCutoff", "batch")).changes),
        leadEmailLinks: drain(() => leadEmailLinks.run(pick("sessionCutoff", "batch")).changes),
        spaceNotices: drain(() => spaceNotices.run(pick("sessionCutoff", "batch")).changes),
      };
      // secure_delete (db.ts) zeroes what the updates freed in the database's pages; the WAL
      // still holds the pages as they were until it is checkpointed and emptied. A reader in
      // the middle of a transaction can keep it from being emptied this time: the next run does.
      if (Object.values(counts).some((count) => count > 0)) {
        try {
          sqlite.pragma("wal_checkpoint(TRUNCATE)");
        } catch {
          // SQLITE_BUSY: another connection holds the WAL; its next checkpoint copies the pages.
        }
      }
      return counts;
    },
  };
}
