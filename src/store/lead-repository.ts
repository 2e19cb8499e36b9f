import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type {
  InsertFollowUpInput,
  InsertFollowUpOutcome,
  InsertLeadInput,
  InsertLeadOutcome,
  LeadForDelivery,
  LeadMessageRecord,
  LeadRepository,
  LeadSummary,
  MerchantLead,
  MerchantLeadStatus,
  RecordResponseInput,
  RecordResponseOutcome,
} from "../domain/leads/lead-store.ts";
import type { StoreConnection } from "./connection.ts";
import { groupCommit } from "./group-commit.ts";

export type {
  FollowUpForDelivery,
  IdempotencyClaim,
  InsertFollowUpInput,
  InsertFollowUpOutcome,
  InsertLeadInput,
  InsertLeadOutcome,
  LeadForDelivery,
  LeadRepository,
  LeadSummary,
  NewLead,
} from "../domain/leads/lead-store.ts";

/*
 * Write side of leads: creation with its duplicate window, Idempotency-Key and outbox row in one
 * transaction; follow-up messages; the reads behind lead status and delivery.
 *
 * Concurrency: the 24-hour duplicate rule (src/domain/leads/duplicate-rule.ts) is the primary key
 * of lead_dedup_windows. A new lead opens its window with an upsert that only takes over a window
 * that is already over, so two identical submissions racing (in this process or another one on
 * the same database) cannot both insert a lead: the loser's upsert returns no row and it answers
 * with the winner's lead. The transactions are BEGIN IMMEDIATE, so the idempotency lookup, the
 * messages a duplicate compares with and the follow-up count are read under the write lock: two
 * racing duplicates with the same new message append it once.
 */

export interface LeadRow {
  lead_id: string;
  ab_id: string;
  brick_id: string | null;
  intent: string | null;
  lead_type: string;
  contact_name: string;
  contact_email: string;
  contact_phone: string | null;
  message: string | null;
  ai_context: string | null;
  intent_data: string | null;
  metadata: string | null;
  agent_id: string | null;
  channel: string | null;
  tracking_status: string;
  created_at: string;
  anonymized_at: string | null;
  merchant_name: string;
  merchant_email: string | null;
  merchant_sector: string;
  brick_name: string | null;
}

export interface LeadSummaryRow {
  lead_id: string;
  ab_id: string;
  merchant_name: string;
  lead_type: string;
  tracking_status: string;
  created_at: string;
  delivered_at: string | null;
  failed_at: string | null;
  anonymized_at: string | null;
  messages_count: number;
  merchant_status: string | null;
  merchant_status_at: string | null;
}

/** A lead's status as its tracker reads it, with how many follow-ups it has (`?`: its lead_id). */
export const LEAD_SUMMARY = `
  SELECT l.lead_id, l.ab_id, m.business_name AS merchant_name, l.lead_type, l.tracking_status, l.created_at,
         l.delivered_at, l.failed_at, l.anonymized_at, l.merchant_status, l.merchant_status_at,
         (SELECT count(*) FROM lead_messages lm
          WHERE lm.lead_id = l.lead_id AND lm.direction = 'agent_to_merchant') AS messages_count
  FROM leads l JOIN merchants m ON m.ab_id = l.ab_id WHERE l.lead_id = ?`;

export function toLeadSummary(row: LeadSummaryRow): LeadSummary {
  return {
    leadId: row.lead_id,
    abId: row.ab_id,
    merchantName: row.merchant_name,
    leadType: row.lead_type,
    trackingStatus: row.tracking_status,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
    anonymizedAt: row.anonymized_at,
    messagesCount: row.messages_count,
    merchantStatus: merchantStatusOf(row.merchant_status),
    merchantStatusAt: row.merchant_status_at,
  };
}

export const LEAD_FOR_DELIVERY = `
  SELECT l.lead_id, l.ab_id, l.brick_id, l.intent, l.lead_type, l.contact_name, l.contact_email, l.contact_phone,
         l.message, l.ai_context, l.intent_data, l.metadata, l.agent_id, l.channel, l.tracking_status,
         l.created_at, l.anonymized_at, m.business_name AS merchant_name, m.email AS merchant_email, m.sector AS merchant_sector,
         p.name AS brick_name
  FROM leads l
  JOIN merchants m ON m.ab_id = l.ab_id
  LEFT JOIN products p ON p.brick_id = l.brick_id
  WHERE l.lead_id = ?`;

export function createLeadRepository(db: StoreConnection): LeadRepository {
  const sqlite = db.$client;
  const findIdempotency = sqlite.prepare<
    [string, string],
    { request_hash: string; resource_id: string; created_at: string }
  >("SELECT request_hash, resource_id, created_at FROM idempotency_keys WHERE scope = ? AND key = ?");
  const saveIdempotency = sqlite.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, resource_id, created_at)
     VALUES (@scope, @key, @requestHash, @resourceId, @createdAt)
     ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
       resource_id = excluded.resource_id, created_at = excluded.created_at`,
  );
  const openWindow = sqlite.prepare<
    {
      abId: string;
      email: string;
      leadType: string;
      caller: string;
      leadId: string;
      windowEndsAt: string;
      now: string;
    },
    { lead_id: string }
  >(
    `INSERT INTO lead_dedup_windows (ab_id, email_normalized, lead_type, caller_scope, lead_id, window_ends_at)
     VALUES (@abId, @email, @leadType, @caller, @leadId, @windowEndsAt)
     ON CONFLICT (ab_id, email_normalized, lead_type, caller_scope) DO UPDATE
       SET lead_id = excluded.lead_id, window_ends_at = excluded.window_ends_at
       WHERE lead_dedup_windows.window_ends_at <= @now
     RETURNING lead_id`,
  );
  const currentWindow = sqlite.prepare<[string, string, string, string], { lead_id: string }>(
    `SELECT lead_id FROM lead_dedup_windows
     WHERE ab_id = ? AND email_normalized = ? AND lead_type = ? AND caller_scope = ?`,
  );
  const carriesMessage = sqlite
    .prepare<{ leadId: string; body: string }, number>(
      `SELECT EXISTS (SELECT 1 FROM leads WHERE lead_id = @leadId AND message = @body)
           OR EXISTS (SELECT 1 FROM lead_messages WHERE lead_id = @leadId AND direction = 'agent_to_merchant'
                        AND body = @body)`,
    )
    .pluck();
  const insertLeadRow = sqlite.prepare(
    `INSERT INTO leads (lead_id, ab_id, brick_id, intent, lead_type, contact_name, contact_email, contact_phone,
       message, ai_context, intent_data, metadata, agent_id, channel, tracking_status, created_at)
     VALUES (@leadId, @abId, @brickId, @intent, @leadType, @contactName, @contactEmail, @contactPhone,
       @message, @aiContext, @intentData, @metadata, @agentId, @channel, 'received', @createdAt)`,
  );
  const insertOutbox = sqlite.prepare(
    `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
  );
  const summary = sqlite.prepare<[string], LeadSummaryRow>(LEAD_SUMMARY);
  const forDelivery = sqlite.prepare<[string], LeadRow>(LEAD_FOR_DELIVERY);
  const countMessages = sqlite
    .prepare<[string], number>(
      "SELECT count(*) FROM lead_messages WHERE lead_id = ? AND direction = 'agent_to_merchant'",
    )
    .pluck();
  const insertMessage = sqlite.prepare(
    `INSERT INTO lead_messages (message_id, lead_id, direction, body, status, created_at)
     VALUES (?, ?, 'agent_to_merchant', ?, 'pending', ?)`,
  );
  const followUp = sqlite.prepare<
    [string],
    {
      message_id: string;
      lead_id: string;
      body: string;
      created_at: string;
      anonymized_at: string | null;
      position: number;
    }
  >(
    `SELECT lm.message_id, lm.lead_id, lm.body, lm.created_at, lm.anonymized_at,
            (SELECT count(*) FROM lead_messages o
             WHERE o.lead_id = lm.lead_id AND o.direction = 'agent_to_merchant' AND o.rowid <= lm.rowid) AS position
     FROM lead_messages lm WHERE lm.message_id = ? AND lm.direction = 'agent_to_merchant'`,
  );

  /** A follow-up and its outbox row, within the follow-up limit; inside the caller's transaction. */
  const appendFollowUp = (input: InsertFollowUpInput): InsertFollowUpOutcome => {
    const count = countMessages.get(input.leadId) ?? 0;
    if (count >= input.maxMessages) return { kind: "limit_reached" };
    insertMessage.run(input.messageId, input.leadId, input.body, input.createdAt);
    insertOutbox.run(input.outboxMessageId, "lead_follow_up", input.messageId, input.createdAt, input.createdAt);
    return { kind: "created", messagesCount: count + 1 };
  };

  const insertLeadWork = (input: InsertLeadInput): InsertLeadOutcome => {
    const { lead, idempotency } = input;
    if (idempotency) {
      const previous = findIdempotency.get(idempotency.scope, idempotency.key);
      if (previous && previous.created_at >= idempotency.forgetBefore) {
        if (previous.request_hash !== idempotency.requestHash) return { kind: "idempotency_conflict" };
        const [originalKind, leadId] = splitResource(previous.resource_id);
        return { kind: "replayed", leadId, originalKind };
      }
    }
    const opened = openWindow.get({
      abId: lead.abId,
      email: input.emailNormalized,
      leadType: lead.leadType,
      caller: input.callerScope,
      leadId: lead.leadId,
      windowEndsAt: input.windowEndsAt,
      now: lead.createdAt,
    });
    let outcome: Extract<InsertLeadOutcome, { kind: "created" | "duplicate" }>;
    if (opened?.lead_id === lead.leadId) {
      insertLeadRow.run({
        ...lead,
        intentData: lead.intentData ? JSON.stringify(lead.intentData) : null,
        metadata: lead.metadata ? JSON.stringify(lead.metadata) : null,
      });
      insertOutbox.run(input.outboxMessageId, "lead_notification", lead.leadId, lead.createdAt, lead.createdAt);
      outcome = { kind: "created", leadId: lead.leadId };
    } else {
      const existing = currentWindow.get(lead.abId, input.emailNormalized, lead.leadType, input.callerScope);
      if (!existing) throw new Error("lead_dedup_windows: the open window vanished inside its transaction");
      let followUpId: string | null = null;
      if (lead.message !== null && carriesMessage.get({ leadId: existing.lead_id, body: lead.message }) === 0) {
        const { followUp } = input;
        const appended = appendFollowUp({
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
      outcome = { kind: "duplicate", leadId: existing.lead_id, followUpId };
    }
    if (idempotency) {
      saveIdempotency.run({
        scope: idempotency.scope,
        key: idempotency.key,
        requestHash: idempotency.requestHash,
        resourceId: `${outcome.kind}:${outcome.leadId}`,
        createdAt: lead.createdAt,
      });
    }
    return outcome;
  };

  const insertFollowUpTx = sqlite.transaction(appendFollowUp);
  const { findAnswer, ...merchantReads } = createMerchantLeadStatements(db);

  /** A message on a lead with the lead as its email needs it; null once the lead is gone. */
  const messageForDelivery = (row: {
    message_id: string;
    lead_id: string;
    body: string;
    created_at: string;
    anonymized_at: string | null;
  }) => {
    const lead = forDelivery.get(row.lead_id);
    if (!lead) return null;
    return {
      messageId: row.message_id,
      body: row.body,
      createdAt: row.created_at,
      anonymizedAt: row.anonymized_at,
      lead: toLeadForDelivery(lead),
    };
  };

  return {
    insertLead: groupCommit(sqlite, insertLeadWork),
    async findSummary(leadId) {
      const row = summary.get(leadId);
      return row ? toLeadSummary(row) : null;
    },
    async findForDelivery(leadId) {
      const row = forDelivery.get(leadId);
      return row ? toLeadForDelivery(row) : null;
    },
    async findManyForDelivery(leadIds) {
      // Local reads: one prepared statement per lead costs microseconds.
      const found = new Map<string, LeadForDelivery>();
      for (const leadId of new Set(leadIds)) {
        const row = forDelivery.get(leadId);
        if (row) found.set(leadId, toLeadForDelivery(row));
      }
      return found;
    },
    insertFollowUp: async (input) => insertFollowUpTx.immediate(input),
    async findFollowUpForDelivery(messageId) {
      const row = followUp.get(messageId);
      const message = row ? messageForDelivery(row) : null;
      return row && message ? { ...message, position: row.position } : null;
    },
    ...merchantReads,
    async findAnswerForDelivery(messageId) {
      const row = findAnswer(messageId);
      return row ? messageForDelivery(row) : null;
    },
  };
}

export interface MessageRow {
  message_id: string;
  lead_id: string;
  direction: string;
  body: string;
  status: string;
  created_at: string;
  anonymized_at: string | null;
  author: string | null;
}

export interface MerchantLeadRow {
  lead_id: string;
  ab_id: string;
  lead_type: string;
  merchant_sector: string;
  brick_name: string | null;
  contact_name: string;
  contact_email: string;
  contact_phone: string | null;
  message: string | null;
  ai_context: string | null;
  intent_data: string | null;
  metadata: string | null;
  channel: string | null;
  tracking_status: string;
  created_at: string;
  anonymized_at: string | null;
  merchant_status: string | null;
  merchant_status_at: string | null;
  follow_ups: number;
  answers: number;
}

export const MERCHANT_LEAD = `
  SELECT l.lead_id, l.ab_id, l.lead_type, m.sector AS merchant_sector, p.name AS brick_name, l.contact_name, l.contact_email, l.contact_phone,
         l.message, l.ai_context, l.intent_data, l.metadata, l.channel, l.tracking_status, l.created_at,
         l.anonymized_at, l.merchant_status, l.merchant_status_at,
         (SELECT count(*) FROM lead_messages f WHERE f.lead_id = l.lead_id AND f.direction = 'agent_to_merchant') AS follow_ups,
         (SELECT count(*) FROM lead_messages a WHERE a.lead_id = l.lead_id AND a.direction = 'merchant_to_person') AS answers
  FROM leads l JOIN merchants m ON m.ab_id = l.ab_id LEFT JOIN products p ON p.brick_id = l.brick_id`;

/**
 * The merchant's side of its leads (issue 25): its list and one lead, read by ab_id so a lead of
 * another merchant is simply not there, and its answer and status written in one transaction.
 */
function createMerchantLeadStatements(db: StoreConnection) {
  const sqlite = db.$client;
  const page = sqlite.prepare<{ abId: string; limit: number; offset: number }, MerchantLeadRow>(
    `${MERCHANT_LEAD} WHERE l.ab_id = @abId ORDER BY l.created_at DESC, l.rowid DESC LIMIT @limit OFFSET @offset`,
  );
  const total = sqlite.prepare<[string], number>("SELECT count(*) FROM leads WHERE ab_id = ?").pluck();
  const one = sqlite.prepare<[string, string], MerchantLeadRow>(`${MERCHANT_LEAD} WHERE l.ab_id = ? AND l.lead_id = ?`);
  const messages = sqlite.prepare<[string], MessageRow>(
    `SELECT message_id, lead_id, direction, body, status, created_at, anonymized_at, author
     FROM lead_messages WHERE lead_id = ? ORDER BY created_at, rowid`,
  );
  const answers = sqlite.prepare<[string], MessageRow>(
    `SELECT message_id, lead_id, direction, body, status, created_at, anonymized_at, author
     FROM lead_messages WHERE lead_id = ? AND direction = 'merchant_to_person' ORDER BY created_at, rowid`,
  );
  const answer = sqlite.prepare<[string], MessageRow>(
    `SELECT message_id, lead_id, direction, body, status, created_at, anonymized_at, author
     FROM lead_messages WHERE message_id = ? AND direction = 'merchant_to_person'`,
  );
  const current = sqlite.prepare<[string, string], { merchant_status: string | null; anonymized_at: string | null }>(
    "SELECT merchant_status, anonymized_at FROM leads WHERE ab_id = ? AND lead_id = ?",
  );
  const countAnswers = sqlite
    .prepare<[string], number>(
      "SELECT count(*) FROM lead_messages WHERE lead_id = ? AND direction = 'merchant_to_person'",
    )
    .pluck();
  const insertAnswer = sqlite.prepare(
    `INSERT INTO lead_messages (message_id, lead_id, direction, body, status, created_at, author)
     VALUES (?, ?, 'merchant_to_person', ?, 'pending', ?, ?)`,
  );
  const insertOutbox = sqlite.prepare(
    `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, 'lead_answer', ?, 'pending', 0, ?, ?)`,
  );
  const setStatus = sqlite.prepare(
    "UPDATE leads SET merchant_status = ?, merchant_status_at = ?, merchant_status_by = ? WHERE lead_id = ?",
  );

  const record = sqlite.transaction((input: RecordResponseInput): RecordResponseOutcome => {
    const lead = current.get(input.abId, input.leadId);
    if (!lead) return { kind: "not_found" };
    if (lead.anonymized_at !== null) return { kind: "anonymized" };
    let answersCount = countAnswers.get(input.leadId) ?? 0;
    if (input.answer) {
      if (answersCount >= input.answer.maxAnswers) return { kind: "answer_limit" };
      insertAnswer.run(input.answer.messageId, input.leadId, input.answer.body, input.at, input.actor);
      insertOutbox.run(input.answer.outboxMessageId, input.answer.messageId, input.at, input.at);
      answersCount += 1;
    }
    const status = input.nextStatus(merchantStatusOf(lead.merchant_status));
    setStatus.run(status, input.at, input.actor, input.leadId);
    return { kind: "recorded", status, answersCount };
  });

  return {
    findAnswer: (messageId: string) => answer.get(messageId),
    listAnswers: async (leadId: string): Promise<LeadMessageRecord[]> => answers.all(leadId).map(toMessageRecord),
    async listForMerchant(abId: string, window: { limit: number; offset: number }) {
      return { total: total.get(abId) ?? 0, leads: page.all({ abId, ...window }).map(toMerchantLead) };
    },
    async findForMerchant(abId: string, leadId: string) {
      const row = one.get(abId, leadId);
      if (!row) return null;
      return { lead: toMerchantLead(row), messages: messages.all(leadId).map(toMessageRecord) };
    },
    recordResponse: async (input: RecordResponseInput) => record.immediate(input),
  };
}

export function merchantStatusOf(value: string | null): MerchantLeadStatus | null {
  return value === "answered" || value === "handled" || value === "declined" ? value : null;
}

export function toMessageRecord(row: MessageRow): LeadMessageRecord {
  return {
    messageId: row.message_id,
    direction: row.direction === "merchant_to_person" ? "merchant_to_person" : "agent_to_merchant",
    body: row.body,
    createdAt: row.created_at,
    delivery: row.status === "sent" ? "sent" : row.status === "failed" ? "failed" : "queued",
    anonymizedAt: row.anonymized_at,
    author: row.author,
  };
}

export function toMerchantLead(row: MerchantLeadRow): MerchantLead {
  return {
    leadId: row.lead_id,
    abId: row.ab_id,
    leadType: row.lead_type,
    merchantSector: row.merchant_sector,
    brickName: row.brick_name,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    contactPhone: row.contact_phone,
    message: row.message,
    aiContext: row.ai_context,
    intentData: parseJson<Record<string, string>>(row.intent_data),
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    channel: row.channel === "page" ? "page" : "api",
    trackingStatus: row.tracking_status,
    createdAt: row.created_at,
    anonymizedAt: row.anonymized_at,
    merchantStatus: merchantStatusOf(row.merchant_status),
    merchantStatusAt: row.merchant_status_at,
    followUpsCount: row.follow_ups,
    answersCount: row.answers,
  };
}

/** idempotency_keys.resource_id holds `<outcome>:<lead_id>` so a replay answers the original status. */
export function splitResource(resourceId: string): ["created" | "duplicate", string] {
  const colon = resourceId.indexOf(":");
  const kind = resourceId.slice(0, colon);
  return [kind === "duplicate" ? "duplicate" : "created", resourceId.slice(colon + 1)];
}

export function toLeadForDelivery(row: LeadRow): LeadForDelivery {
  return {
    leadId: row.lead_id,
    abId: row.ab_id,
    brickId: row.brick_id,
    intent: row.intent,
    leadType: row.lead_type,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    contactPhone: row.contact_phone,
    message: row.message,
    aiContext: row.ai_context,
    intentData: parseJson<Record<string, string>>(row.intent_data),
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    agentId: row.agent_id,
    // Leads recorded before the channel was kept came through the API (the page form came later).
    channel: row.channel === "page" ? "page" : "api",
    createdAt: row.created_at,
    trackingStatus: row.tracking_status,
    anonymizedAt: row.anonymized_at,
    merchantName: row.merchant_name,
    merchantEmail: row.merchant_email,
    merchantSector: row.merchant_sector,
    brickName: row.brick_name,
  };
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/**
 * The lead tracking secret (32 random bytes) under DATA_DIR/secrets/, mode 0600, created on first
 * use. Creation is write-to-temp then link, so two processes starting together agree on one key.
 */
export function loadOrCreateSecret(file: string): Buffer {
  try {
    return readSecret(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, randomBytes(32).toString("base64url"), { mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  return readSecret(file);
}

function readSecret(file: string): Buffer {
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  if (key.length < 32) throw new Error(`${file} holds a secret shorter than 32 bytes`);
  return key;
}
