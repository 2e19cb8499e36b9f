/**
 * The storage this part of the domain needs (a port): src/store/lead-repository.ts implements it.
 */

/**
 * How a lead reached Abeille: `page`, the form of the merchant's page in a person's browser (the
 * request carries the page's form token, page-form-token.ts); `api`, the lead endpoint or the MCP
 * tool, called by a program (an AI agent, registered with a key or not). The merchant's email says
 * which.
 */
export type LeadChannel = "page" | "api";

export interface NewLead {
  leadId: string;
  abId: string;
  brickId: string | null;
  intent: string | null;
  leadType: string;
  contactName: string;
  contactEmail: string;
  contactPhone: string | null;
  message: string | null;
  aiContext: string | null;
  intentData: Record<string, string> | null;
  metadata: Record<string, unknown> | null;
  agentId: string | null;
  channel: LeadChannel;
  createdAt: string;
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  requestHash: string;
  /** Keys recorded before this instant are forgotten (their window is over). */
  forgetBefore: string;
}

export interface InsertLeadInput {
  lead: NewLead;
  emailNormalized: string;
  /** The caller part of the duplicate key (`agent:<id>` or `ip:<address>`). */
  callerScope: string;
  windowEndsAt: string;
  outboxMessageId: string;
  /**
   * Where a duplicate's message goes when the first lead does not carry that text yet (neither as
   * its message nor as a follow-up): a follow-up on the first lead, with its outbox row.
   */
  followUp: { messageId: string; outboxMessageId: string; maxMessages: number };
  idempotency: IdempotencyClaim | null;
}

export type InsertLeadOutcome =
  | { kind: "created"; leadId: string }
  /** followUpId: the follow-up that carries the duplicate's new message, or null when it had none. */
  | { kind: "duplicate"; leadId: string; followUpId: string | null }
  | { kind: "replayed"; leadId: string; originalKind: "created" | "duplicate" }
  | { kind: "idempotency_conflict" }
  /** The duplicate's new message would exceed the first lead's follow-ups: nothing was written. */
  | { kind: "follow_up_limit"; leadId: string };

export interface LeadSummary {
  leadId: string;
  abId: string;
  merchantName: string;
  leadType: string;
  trackingStatus: string;
  createdAt: string;
  deliveredAt: string | null;
  failedAt: string | null;
  anonymizedAt: string | null;
  /** The agent's follow-ups (direction agent_to_merchant); the merchant's answers are not counted. */
  messagesCount: number;
  /** The merchant's word on the lead from its space (null until it acts) and when it last acted. */
  merchantStatus: MerchantLeadStatus | null;
  merchantStatusAt: string | null;
}

/** What the merchant did with a lead from its space (respond-to-lead.ts). */
export type MerchantLeadStatus = "answered" | "handled" | "declined";

/** queued: its outbox row waits; sent: the person's mailbox accepted it; failed: refused for good. */
export type LeadMessageDelivery = "queued" | "sent" | "failed";

/** A message on a lead: an agent's follow-up to the merchant, or the merchant's answer to the person. */
export interface LeadMessageRecord {
  messageId: string;
  direction: "agent_to_merchant" | "merchant_to_person";
  /** The text; the store's placeholder once anonymised. */
  body: string;
  createdAt: string;
  delivery: LeadMessageDelivery;
  anonymizedAt: string | null;
  /** The audit actor who wrote a merchant's answer (`merchant:<claim id>`); null for a follow-up. */
  author: string | null;
}

/** A lead as its merchant sees it in its space (list and detail). */
export interface MerchantLead
  extends Pick<
    NewLead,
    | "leadId"
    | "abId"
    | "leadType"
    | "contactName"
    | "contactEmail"
    | "contactPhone"
    | "message"
    | "aiContext"
    | "intentData"
    | "metadata"
    | "channel"
    | "createdAt"
  > {
  /** The merchant's sector: which sector fields its lead contract asked for (metadata). */
  merchantSector: string;
  brickName: string | null;
  trackingStatus: string;
  anonymizedAt: string | null;
  merchantStatus: MerchantLeadStatus | null;
  merchantStatusAt: string | null;
  followUpsCount: number;
  answersCount: number;
}

export interface RecordResponseInput {
  leadId: string;
  /** The listing the lead must belong to: a lead of another merchant is `not_found`. */
  abId: string;
  at: string;
  actor: string;
  /** The status to store, from the one the lead has (read inside the transaction). */
  nextStatus: (current: MerchantLeadStatus | null) => MerchantLeadStatus;
  answer: { messageId: string; body: string; outboxMessageId: string; maxAnswers: number } | null;
}

export type RecordResponseOutcome =
  | { kind: "recorded"; status: MerchantLeadStatus; answersCount: number }
  | { kind: "not_found" }
  | { kind: "anonymized" }
  | { kind: "answer_limit" };

/** A merchant's answer with what its email to the person needs. */
export interface AnswerForDelivery {
  messageId: string;
  body: string;
  createdAt: string;
  anonymizedAt: string | null;
  lead: LeadForDelivery;
}

/** A lead with what its notification email needs about the merchant and the brick. */
export interface LeadForDelivery extends NewLead {
  trackingStatus: string;
  anonymizedAt: string | null;
  merchantName: string;
  merchantEmail: string | null;
  merchantSector: string;
  brickName: string | null;
}

export interface FollowUpForDelivery {
  messageId: string;
  body: string;
  createdAt: string;
  anonymizedAt: string | null;
  lead: LeadForDelivery;
  /** Position of this message among the lead's follow-ups (1-based). */
  position: number;
}

export interface InsertFollowUpInput {
  messageId: string;
  leadId: string;
  body: string;
  createdAt: string;
  outboxMessageId: string;
  maxMessages: number;
}

export type InsertFollowUpOutcome = { kind: "created"; messagesCount: number } | { kind: "limit_reached" };

export interface LeadRepository {
  /**
   * Records a lead, its duplicate-window entry and its outbox row in one transaction, shared with
   * the other leads of the same event-loop turn (group-commit.ts); resolves once committed.
   */
  insertLead(input: InsertLeadInput): Promise<InsertLeadOutcome>;
  findSummary(leadId: string): Promise<LeadSummary | null>;
  findForDelivery(leadId: string): Promise<LeadForDelivery | null>;
  /**
   * The leads of a claimed outbox batch in one read, by id (those that no longer exist are
   * absent): on PostgreSQL one round trip for the batch instead of one per email.
   */
  findManyForDelivery(leadIds: readonly string[]): Promise<Map<string, LeadForDelivery>>;
  insertFollowUp(input: InsertFollowUpInput): Promise<InsertFollowUpOutcome>;
  findFollowUpForDelivery(messageId: string): Promise<FollowUpForDelivery | null>;
  /** The merchant's answers on a lead, oldest first. */
  listAnswers(leadId: string): Promise<LeadMessageRecord[]>;
  /** A merchant's leads, newest first, one page, and how many it has in all. */
  listForMerchant(
    abId: string,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; leads: MerchantLead[] }>;
  /** One lead of this merchant with its messages (oldest first); null for another merchant's lead. */
  findForMerchant(abId: string, leadId: string): Promise<{ lead: MerchantLead; messages: LeadMessageRecord[] } | null>;
  /** The merchant's status, and its answer with its outbox row, in one IMMEDIATE transaction. */
  recordResponse(input: RecordResponseInput): Promise<RecordResponseOutcome>;
  findAnswerForDelivery(messageId: string): Promise<AnswerForDelivery | null>;
}
