/**
 * The transactional outbox as the domain and the mail worker need it (a port):
 * src/store/outbox-repository.ts implements it. Rows are written by the lead, follow-up and
 * platform-contact writes in their own transactions; the worker claims due rows, delivers them and
 * settles the results. Statuses: pending -> sending -> sent | pending (retry later) | failed.
 */

export const OUTBOX_KINDS = [
  "lead_notification",
  "lead_follow_up",
  "lead_answer",
  "platform_contact",
  "space_sign_in_link",
  "lead_email_confirmation",
  "space_notice",
] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

export interface OutboxMessage {
  messageId: string;
  kind: OutboxKind;
  subjectId: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** The result of one delivery attempt, as `settle` records it. */
export type OutboxResult =
  | { messageId: string; attempts: number; outcome: "sent"; at: string }
  | { messageId: string; attempts: number; outcome: "retry"; nextAttemptAt: string; error: string }
  | { messageId: string; attempts: number; outcome: "failed"; at: string; error: string };

export interface OutboxRepository {
  /** Claims up to `limit` due rows (pending, or sending with an expired lease); attempts counts this one. */
  claimDue(input: { now: string; leaseUntil: string; limit: number }): Promise<OutboxMessage[]>;
  /**
   * Rows left claimed by a process of this machine that no longer runs (killed in the middle of a
   * batch) go back to pending at once instead of waiting out their lease; rows claimed by a live
   * process, or on another machine, are left to it. Returns how many went back.
   */
  reclaimFromDeadClaimers(now: string): Promise<number>;
  /** Records a delivery and moves the subject along (lead delivered, message sent, contact forwarded). */
  markSent(input: { messageId: string; attempts: number; at: string }): Promise<boolean>;
  markRetry(input: { messageId: string; attempts: number; nextAttemptAt: string; error: string }): Promise<boolean>;
  /** Gives up: the row and its subject turn failed. */
  markFailed(input: { messageId: string; attempts: number; at: string; error: string }): Promise<boolean>;
  /**
   * Records a batch of results in one transaction (one write lock for the whole batch); returns
   * how many applied. A result whose row was claimed again since (lease over) is ignored.
   */
  settle(results: readonly OutboxResult[]): Promise<number>;
  /** When the earliest row that is not settled becomes due, or null when nothing is waiting. */
  nextDueAt(): Promise<string | null>;
  find(messageId: string): Promise<OutboxMessage | null>;
  findBySubject(subjectId: string): Promise<OutboxMessage[]>;
  countByStatus(): Promise<Record<string, number>>;
  /** Rows not settled yet (pending or being sent) and when the oldest of them was written. */
  backlog(): Promise<{ pending: number; oldestCreatedAt: string | null }>;
}
