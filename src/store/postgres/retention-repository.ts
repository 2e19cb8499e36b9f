/**
 * Anonymisation of personal data past its retention period, on PostgreSQL: what the SQLite store
 * does (src/store/retention-repository.ts says what goes and what stays), batch by batch, each
 * batch its own transaction. Rows are picked by ctid, as SQLite picks them by rowid. The fields a
 * lead's intent_data loses are taken out of its JSON text keeping the other keys in their order
 * and the text minified, byte for byte what SQLite's json_remove writes.
 */
import type pg from "pg";
import type { RetentionRepository } from "../../domain/privacy/retention-store.ts";
import { ANONYMIZED_EMAIL, ANONYMIZED_NAME, ANONYMIZED_TEXT } from "../retention-repository.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { numbered } from "./transaction.ts";

/** intent_data without its free-text fields (the keys SQLite's statement removes). */
const INTENT_DATA_KEPT = `(SELECT coalesce('{' || string_agg(to_json(field.key)::text || ':' || field.value::text, ',' ORDER BY field.position) || '}', '{}')
   FROM json_each(intent_data::json) WITH ORDINALITY AS field(key, value, position)
   WHERE field.key NOT IN ('budget_range', 'project_type', 'timeline'))`;

const batchOf = (table: string, where: string) => `ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT @batch)`;

/** Each statement with its named parameters (numbered by `numbered` before it is sent). */
const STATEMENTS = {
  leads: `UPDATE leads SET contact_name = @name, contact_email = @email, contact_phone = NULL,
      message = CASE WHEN message IS NULL THEN NULL ELSE @text END, ai_context = NULL, intent = NULL,
      intent_data = CASE WHEN intent_data IS NULL THEN NULL ELSE ${INTENT_DATA_KEPT} END,
      metadata = NULL, anonymized_at = @now
    WHERE ${batchOf("leads", "created_at < @cutoff AND anonymized_at IS NULL")}`,
  leadMessages: `UPDATE lead_messages SET body = @text, anonymized_at = @now
    WHERE ctid IN (
      SELECT lm.ctid FROM lead_messages lm JOIN leads l ON l.lead_id = lm.lead_id
      WHERE lm.anonymized_at IS NULL AND (lm.created_at < @cutoff OR l.anonymized_at IS NOT NULL)
      LIMIT @batch)`,
  platformContacts: `UPDATE platform_contacts SET name = @name, email = @email, phone = NULL, company = NULL,
      message = @text, anonymized_at = @now
    WHERE ${batchOf("platform_contacts", "created_at < @cutoff AND anonymized_at IS NULL")}`,
  orders: `UPDATE orders SET user_email = CASE WHEN user_email IS NULL THEN NULL ELSE @email END,
      delivery_address = NULL, customer_notes = CASE WHEN customer_notes IS NULL THEN NULL ELSE @text END,
      anonymized_at = @now
    WHERE ${batchOf("orders", "created_at < @cutoff AND anonymized_at IS NULL")}`,
  dedupWindows: `DELETE FROM lead_dedup_windows WHERE ${batchOf("lead_dedup_windows", "window_ends_at <= @now")}`,
  idempotencyKeys: `DELETE FROM idempotency_keys
    WHERE ${batchOf("idempotency_keys", "scope LIKE 'lead:%' AND created_at < @idempotencyCutoff")}`,
  spaceSessions: `DELETE FROM pro_sessions WHERE ${batchOf(
    "pro_sessions",
    "(ended_at IS NOT NULL AND ended_at < @sessionCutoff) OR absolute_expires_at < @sessionCutoff",
  )}`,
  signIns: `DELETE FROM pro_sign_ins WHERE ${batchOf("pro_sign_ins", "expires_at < @sessionCutoff")}`,
  signInLinks: `DELETE FROM space_sign_in_links WHERE ${batchOf("space_sign_in_links", "expires_at < @sessionCutoff")}`,
  leadEmailLinks: `DELETE FROM lead_email_confirmations
    WHERE ${batchOf("lead_email_confirmations", "expires_at < @sessionCutoff")}`,
  spaceNotices: `DELETE FROM space_notices WHERE ${batchOf("space_notices", "at < @sessionCutoff")}`,
};

type Parameters = Record<string, string | number>;

/**
 * `fence`: the server's, through which each batch commits only while its instance leads (the
 * retention schedule runs on the leader, leader-fence.ts); without it, plain statements.
 */
export function createPostgresRetentionRepository(pool: pg.Pool, fence?: LeaderFence): RetentionRepository {
  const run = (text: string, values: unknown[]) =>
    fence ? fence.transaction((client) => client.query(text, values)) : pool.query(text, values);
  const drain = async (statement: string, parameters: Parameters): Promise<number> => {
    const { text, values } = numbered(statement, parameters);
    let total = 0;
    for (;;) {
      const changed = (await run(text, values)).rowCount ?? 0;
      total += changed;
      if (changed === 0) return total;
    }
  };
  return {
    async anonymizeBefore({ cutoff, now, idempotencyCutoff, sessionCutoff, batchSize = 1000 }) {
      const parameters: Parameters = {
        cutoff,
        now,
        idempotencyCutoff,
        sessionCutoff,
        batch: batchSize,
        name: ANONYMIZED_NAME,
        email: ANONYMIZED_EMAIL,
        text: ANONYMIZED_TEXT,
      };
      return {
        leads: await drain(STATEMENTS.leads, parameters),
        leadMessages: await drain(STATEMENTS.leadMessages, parameters),
        platformContacts: await drain(STATEMENTS.platformContacts, parameters),
        orders: await drain(STATEMENTS.orders, parameters),
        dedupWindows: await drain(STATEMENTS.dedupWindows, parameters),
        idempotencyKeys: await drain(STATEMENTS.idempotencyKeys, parameters),
        spaceSessions:
          (await drain(STATEMENTS.spaceSessions, parameters)) +
          (await drain(STATEMENTS.signIns, parameters)) +
          (await drain(STATEMENTS.signInLinks, parameters)),
        leadEmailLinks: await drain(STATEMENTS.leadEmailLinks, parameters),
        spaceNotices: await drain(STATEMENTS.spaceNotices, parameters),
      };
    },
  };
}
