/**
 * Leads on PostgreSQL, for several machines (docs/several-machines.md): the same rows and rules as
 * the SQLite lead store (src/store/lead-repository.ts, whose comment gives the duplicate window and
 * idempotency rules), each write one transaction on one pooled connection, but for the common case
 * of a new lead without an Idempotency-Key: one statement (openNewLead).
 *
 * SQLite serialises every write (BEGIN IMMEDIATE); here machines write at once, so each rule that
 * reads before it writes takes a lock first, always in the same order (Idempotency-Key, then the
 * duplicate window, then the lead), so two transactions never wait for each other in a circle:
 * - an Idempotency-Key: a transaction-level advisory lock on (scope, key), so two requests with
 *   one key are answered one after the other (the second replays the first);
 * - the 24-hour window: its upsert takes the window's row lock even when it does not take the
 *   window over, so identical submissions on two machines wait for each other and the second is
 *   answered as a duplicate of the first;
 * - follow-ups and answers: the lead's row (FOR UPDATE) before counting, so a limit is never
 *   passed by two messages at once.
 * PostgreSQL folds the commits of concurrent transactions into shared WAL flushes, which is what
 * the SQLite store's group commit does by hand.
 *
 * Where SQLite orders by rowid (the order written), PostgreSQL has no such order: ties of
 * created_at are broken by id.
 */
import type pg from "pg";
import type {
  InsertFollowUpInput,
  InsertFollowUpOutcome,
  InsertLeadInput,
  InsertLeadOutcome,
  LeadForDelivery,
  LeadRepository,
  RecordResponseOutcome,
} from "../../domain/leads/lead-store.ts";
import {
  LEAD_FOR_DELIVERY,
  LEAD_SUMMARY,
  type LeadRow,
  type LeadSummaryRow,
  MERCHANT_LEAD,
  type MerchantLeadRow,
  type MessageRow,
  merchantStatusOf,
  splitResource,
  toLeadForDelivery,
  toLeadSummary,
  toMerchantLead,
  toMessageRecord,
} from "../lead-repository.ts";
import { inTransaction, firstRow as one } from "./transaction.ts";

type Client = pg.PoolClient;

const FOR_DELIVERY = LEAD_FOR_DELIVERY.replace("WHERE l.lead_id = ?", "WHERE l.lead_id = $1");
const MANY_FOR_DELIVERY = LEAD_FOR_DELIVERY.replace("WHERE l.lead_id = ?", "WHERE l.lead_id = ANY($1::text[])");
const SUMMARY = LEAD_SUMMARY.replace("WHERE l.lead_id = ?", "WHERE l.lead_id = $1");
const INSERT_OUTBOX = `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
  VALUES ($1, $2, $3, 'pending', 0, $4, $4)`;
const MESSAGE_COLUMNS = "message_id, lead_id, direction, body, status, created_at, anonymized_at, author";

/**
 * Opens the lead's 24-hour window ($1-$7, windowValues), or takes over one that has ended. The
 * upsert takes the window's row lock even when it does not take the window over, so identical
 * submissions on two machines wait for each other.
 */
const OPEN_WINDOW = `INSERT INTO lead_dedup_windows (ab_id, email_normalized, lead_type, caller_scope, lead_id, window_ends_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (ab_id, email_normalized, lead_type, caller_scope) DO UPDATE
    SET lead_id = excluded.lead_id, window_ends_at = excluded.window_ends_at
    WHERE lead_dedup_windows.window_ends_at <= $7`;
const LEAD_COLUMNS = `lead_id, ab_id, brick_id, intent, lead_type, contact_name, contact_email, contact_phone,
  message, ai_context, intent_data, metadata, agent_id, channel, tracking_status, created_at`;
const INSERT_LEAD = `INSERT INTO leads (${LEAD_COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'received', $15)`;

/**
 * A new lead in one statement, outside any transaction (one round trip instead of five): the
 * window opened, then the lead and its outbox row written only if this lead opened it. A
 * statement is atomic, so the three rows land together or none does. Parameters: the window's
 * ($1-$7, windowValues; $5 the lead), the lead's ($8-$22, leadValues) and the outbox message
 * ($23). Answers the new lead's id when it was written.
 */
const OPEN_LEAD = `WITH opened AS (${OPEN_WINDOW} RETURNING lead_id),
  lead AS (
    INSERT INTO leads (${LEAD_COLUMNS})
    SELECT $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text, $16::text,
      $17::text, $18::text, $19::text, $20::text, $21::text, 'received', $22::text
    FROM opened WHERE opened.lead_id = $5
    RETURNING lead_id, created_at
  ),
  queued AS (
    INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
    SELECT $23::text, 'lead_notification', lead_id, 'pending', 0, created_at, created_at FROM lead
    RETURNING subject_id
  )
  SELECT (SELECT subject_id FROM queued) AS created`;

function windowValues(input: InsertLeadInput): unknown[] {
  const { lead } = input;
  return [
    lead.abId,
    input.emailNormalized,
    lead.leadType,
    input.callerScope,
    lead.leadId,
    input.windowEndsAt,
    lead.createdAt,
  ];
}

function leadValues(lead: InsertLeadInput["lead"]): unknown[] {
  return [
    lead.leadId,
    lead.abId,
    lead.brickId,
    lead.intent,
    lead.leadType,
    lead.contactName,
    lead.contactEmail,
    lead.contactPhone,
    lead.message,
    lead.aiContext,
    lead.intentData ? JSON.stringify(lead.intentData) : null,
    lead.metadata ? JSON.stringify(lead.metadata) : null,
    lead.agentId,
    lead.channel,
    lead.createdAt,
  ];
}

/**
 * The common case in one round trip: a lead without an Idempotency-Key that opens its window.
 * Null when it did not (a duplicate within 24 hours): nothing was written, and the caller runs
 * the whole rule in a transaction (insertLead).
 */
async function openNewLead(pool: pg.Pool, input: InsertLeadInput): Promise<InsertLeadOutcome | null> {
  const row = await one<{ created: string | null }>(pool, OPEN_LEAD, [
    ...windowValues(input),
    ...leadValues(input.lead),
    input.outboxMessageId,
  ]);
  return row?.created === input.lead.leadId ? { kind: "created", leadId: input.lead.leadId } : null;
}

/** The lead's row locked, then how many follow-ups it has (agent_to_merchant messages). */
async function lockedFollowUpCount(client: Client, leadId: string): Promise<number> {
  await client.query("SELECT 1 FROM leads WHERE lead_id = $1 FOR UPDATE", [leadId]);
  const row = await one<{ n: number }>(
    client,
    "SELECT count(*) AS n FROM lead_messages WHERE lead_id = $1 AND direction = 'agent_to_merchant'",
    [leadId],
  );
  return row?.n ?? 0;
}

async function appendFollowUp(client: Client, input: InsertFollowUpInput): Promise<InsertFollowUpOutcome> {
  const count = await lockedFollowUpCount(client, input.leadId);
  if (count >= input.maxMessages) return { kind: "limit_reached" };
  await client.query(
    `INSERT INTO lead_messages (message_id, lead_id, direction, body, status, created_at)
     VALUES ($1, $2, 'agent_to_merchant', $3, 'pending', $4)`,
    [input.messageId, input.leadId, input.body, input.createdAt],
  );
  await client.query(INSERT_OUTBOX, [input.outboxMessageId, "lead_follow_up", input.messageId, input.createdAt]);
  return { kind: "created", messagesCount: count + 1 };
}

async function insertLead(client: Client, input: InsertLeadInput): Promise<InsertLeadOutcome> {
  const { lead, idempotency } = input;
  if (idempotency) {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `idempotency:${idempotency.scope}:${idempotency.key}`,
    ]);
    const previous = await one<{ request_hash: string; resource_id: string; created_at: string }>(
      client,
      "SELECT request_hash, resource_id, created_at FROM idempotency_keys WHERE scope = $1 AND key = $2",
      [idempotency.scope, idempotency.key],
    );
    if (previous && previous.created_at >= idempotency.forgetBefore) {
      if (previous.request_hash !== idempotency.requestHash) return { kind: "idempotency_conflict" };
      const [originalKind, leadId] = splitResource(previous.resource_id);
      return { kind: "replayed", leadId, originalKind };
    }
  }
  const opened = await one<{ lead_id: string }>(client, `${OPEN_WINDOW} RETURNING lead_id`, windowValues(input));
  let outcome: Extract<InsertLeadOutcome, { kind: "created" | "duplicate" }>;
  if (opened?.lead_id === lead.leadId) {
    await client.query(INSERT_LEAD, leadValues(lead));
    await client.query(INSERT_OUTBOX, [input.outboxMessageId, "lead_notification", lead.leadId, lead.createdAt]);
    outcome = { kind: "created", leadId: lead.leadId };
  } else {
    // The window's row is locked by the upsert above: the winner has committed.
    const existing = await one<{ lead_id: string }>(
      client,
      `SELECT lead_id FROM lead_dedup_windows
       WHERE ab_id = $1 AND email_normalized = $2 AND lead_type = $3 AND caller_scope = $4`,
      [lead.abId, input.emailNormalized, lead.leadType, input.callerScope],
    );
    if (!existing) throw new Error("lead_dedup_windows: the open window vanished inside its transaction");
    let followUpId: string | null = null;
    if (lead.message !== null) {
      const carried = await one<{ carried: boolean }>(
        client,
        `SELECT EXISTS (SELECT 1 FROM leads WHERE lead_id = $1 AND message = $2)
             OR EXISTS (SELECT 1 FROM lead_messages WHERE lead_id = $1 AND direction = 'agent_to_merchant' AND body = $2)
           AS carried`,
        [existing.lead_id, lead.message],
      );
      if (!carried?.carried) {
        const { followUp } = input;
        const appended = await appendFollowUp(client, {
          messageId: followUp.messageId,
          leadId: existing.lead_id,
          body: lead.message,
          createdAt: lead.createdAt,
          outboxMessageId: followUp.outboxMessageId,
          maxMessages: followUp.maxMessages,
        });
        if (appended.kind === "limit_reached") return { kind: "follow_up_limit", leadId: existing.lead_id };
        followUpId = followUp.messageId;
      }
    }
    outcome = { kind: "duplicate", leadId: existing.lead_id, followUpId };
  }
  if (idempotency) {
    await client.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, resource_id, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
         resource_id = excluded.resource_id, created_at = excluded.created_at`,
      [
        idempotency.scope,
        idempotency.key,
        idempotency.requestHash,
        `${outcome.kind}:${outcome.leadId}`,
        lead.createdAt,
      ],
    );
  }
  return outcome;
}

export function createPostgresLeadRepository(pool: pg.Pool): LeadRepository {
  const forDelivery = async (leadId: string) => {
    const row = await one<LeadRow>(pool, FOR_DELIVERY, [leadId]);
    return row ? toLeadForDelivery(row) : null;
  };
  const messageForDelivery = async (row: MessageRow) => {
    const lead = await forDelivery(row.lead_id);
    if (!lead) return null;
    return {
      messageId: row.message_id,
      body: row.body,
      createdAt: row.created_at,
      anonymizedAt: row.anonymized_at,
      lead,
    };
  };

  return {
    insertLead: async (input) =>
      (input.idempotency === null ? await openNewLead(pool, input) : null) ??
      inTransaction(pool, (client) => insertLead(client, input)),
    async findSummary(leadId) {
      const row = await one<LeadSummaryRow>(pool, SUMMARY, [leadId]);
      return row ? toLeadSummary(row) : null;
    },
    findForDelivery: forDelivery,
    async findManyForDelivery(leadIds) {
      const found = new Map<string, LeadForDelivery>();
      if (leadIds.length === 0) return found;
      const rows = await pool.query<LeadRow>(MANY_FOR_DELIVERY, [[...new Set(leadIds)]]);
      for (const row of rows.rows) found.set(row.lead_id, toLeadForDelivery(row));
      return found;
    },
    insertFollowUp: (input) => inTransaction(pool, (client) => appendFollowUp(client, input)),
    async findFollowUpForDelivery(messageId) {
      const row = await one<MessageRow & { position: number }>(
        pool,
        `SELECT lm.${MESSAGE_COLUMNS.split(", ").join(", lm.")},
                (SELECT count(*) FROM lead_messages o
                 WHERE o.lead_id = lm.lead_id AND o.direction = 'agent_to_merchant'
                   AND (o.created_at, o.message_id) <= (lm.created_at, lm.message_id)) AS position
         FROM lead_messages lm WHERE lm.message_id = $1 AND lm.direction = 'agent_to_merchant'`,
        [messageId],
      );
      const message = row ? await messageForDelivery(row) : null;
      return row && message ? { ...message, position: row.position } : null;
    },
    async listAnswers(leadId) {
      const rows = await pool.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM lead_messages WHERE lead_id = $1 AND direction = 'merchant_to_person'
         ORDER BY created_at, message_id`,
        [leadId],
      );
      return rows.rows.map(toMessageRecord);
    },
    async listForMerchant(abId, window) {
      const [total, page] = await Promise.all([
        one<{ n: number }>(pool, "SELECT count(*) AS n FROM leads WHERE ab_id = $1", [abId]),
        pool.query<MerchantLeadRow>(
          `${MERCHANT_LEAD} WHERE l.ab_id = $1 ORDER BY l.created_at DESC, l.lead_id DESC LIMIT $2 OFFSET $3`,
          [abId, window.limit, window.offset],
        ),
      ]);
      return { total: total?.n ?? 0, leads: page.rows.map(toMerchantLead) };
    },
    async findForMerchant(abId, leadId) {
      const row = await one<MerchantLeadRow>(pool, `${MERCHANT_LEAD} WHERE l.ab_id = $1 AND l.lead_id = $2`, [
        abId,
        leadId,
      ]);
      if (!row) return null;
      const messages = await pool.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM lead_messages WHERE lead_id = $1 ORDER BY created_at, message_id`,
        [leadId],
      );
      return { lead: toMerchantLead(row), messages: messages.rows.map(toMessageRecord) };
    },
    recordResponse: (input) =>
      inTransaction(pool, async (client): Promise<RecordResponseOutcome> => {
        const lead = await one<{ merchant_status: string | null; anonymized_at: string | null }>(
          client,
          "SELECT merchant_status, anonymized_at FROM leads WHERE ab_id = $1 AND lead_id = $2 FOR UPDATE",
          [input.abId, input.leadId],
        );
        if (!lead) return { kind: "not_found" };
        if (lead.anonymized_at !== null) return { kind: "anonymized" };
        const counted = await one<{ n: number }>(
          client,
          "SELECT count(*) AS n FROM lead_messages WHERE lead_id = $1 AND direction = 'merchant_to_person'",
          [input.leadId],
        );
        let answersCount = counted?.n ?? 0;
        if (input.answer) {
          if (answersCount >= input.answer.maxAnswers) return { kind: "answer_limit" };
          await client.query(
            `INSERT INTO lead_messages (message_id, lead_id, direction, body, status, created_at, author)
             VALUES ($1, $2, 'merchant_to_person', $3, 'pending', $4, $5)`,
            [input.answer.messageId, input.leadId, input.answer.body, input.at, input.actor],
          );
          await client.query(INSERT_OUTBOX, [
            input.answer.outboxMessageId,
            "lead_answer",
            input.answer.messageId,
            input.at,
          ]);
          answersCount += 1;
        }
        const status = input.nextStatus(merchantStatusOf(lead.merchant_status));
        await client.query(
          "UPDATE leads SET merchant_status = $1, merchant_status_at = $2, merchant_status_by = $3 WHERE lead_id = $4",
          [status, input.at, input.actor, input.leadId],
        );
        return { kind: "recorded", status, answersCount };
      }),
    async findAnswerForDelivery(messageId) {
      const row = await one<MessageRow>(
        pool,
        `SELECT ${MESSAGE_COLUMNS} FROM lead_messages WHERE message_id = $1 AND direction = 'merchant_to_person'`,
        [messageId],
      );
      return row ? messageForDelivery(row) : null;
    },
  };
}
