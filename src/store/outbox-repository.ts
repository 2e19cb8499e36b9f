import { hostname } from "node:os";
import type { StoreConnection } from "./connection.ts";

/*
 * The transactional outbox. Rows are written by the lead, follow-up and platform-contact
 * transactions; workers claim due rows with one UPDATE ... RETURNING (atomic in SQLite, so two
 * workers, in one process or several, never claim the same row). A claim is a lease: the row
 * turns `sending` and its next_attempt_at moves to the end of the lease, so a row whose worker
 * died mid-send is claimed again once the lease is over (delivery is at least once; the
 * Message-ID is stable so a receiving client can fold a repeat). A worker's result is applied only
 * if the row still carries the attempt number it claimed.
 *
 * Statuses: pending -> sending -> sent | pending (retry later) | failed (attempts exhausted).
 */

export const OUTBOX_KINDS = [
  "lead_notification",
  "lead_follow_up",
  "lead_answer",
  "platform_contact",
  "space_sign_in_link",
  "lead_email_confirmation",
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
  claimDue(input: { now: string; leaseUntil: string; limit: number }): OutboxMessage[];
  /**
   * Rows left claimed by a process of this machine that no longer runs (killed in the middle of a
   * batch) go back to pending at once instead of waiting out their lease; rows claimed by a live
   * process, or on another machine, are left to it. Returns how many went back.
   */
  reclaimFromDeadClaimers(now: string): number;
  /** Records a delivery and moves the subject along (lead delivered, message sent, contact forwarded). */
  markSent(input: { messageId: string; attempts: number; at: string }): boolean;
  markRetry(input: { messageId: string; attempts: number; nextAttemptAt: string; error: string }): boolean;
  /** Gives up: the row and its subject turn failed. */
  markFailed(input: { messageId: string; attempts: number; at: string; error: string }): boolean;
  /**
   * Records a batch of results in one transaction (one write lock for the whole batch); returns
   * how many applied. A result whose row was claimed again since (lease over) is ignored.
   */
  settle(results: readonly OutboxResult[]): number;
  /** When the earliest row that is not settled becomes due, or null when nothing is waiting. */
  nextDueAt(): string | null;
  find(messageId: string): OutboxMessage | null;
  findBySubject(subjectId: string): OutboxMessage[];
  countByStatus(): Record<string, number>;
  /** Rows not settled yet (pending or being sent) and when the oldest of them was written. */
  backlog(): { pending: number; oldestCreatedAt: string | null };
}

export interface OutboxRow {
  message_id: string;
  kind: string;
  subject_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** What a delivery moves along in the subject's own table (a sign-in link has nothing to move). */
export const SUBJECT_SENT: Partial<Record<OutboxKind, string>> = {
  lead_notification:
    "UPDATE leads SET tracking_status = 'delivered', delivered_at = @at WHERE lead_id = @subject AND tracking_status = 'received'",
  lead_follow_up: "UPDATE lead_messages SET status = 'sent' WHERE message_id = @subject AND status = 'pending'",
  lead_answer: "UPDATE lead_messages SET status = 'sent' WHERE message_id = @subject AND status = 'pending'",
  platform_contact:
    "UPDATE platform_contacts SET status = 'forwarded' WHERE contact_id = @subject AND status = 'received'",
  lead_email_confirmation:
    "UPDATE lead_email_confirmations SET sent_at = @at WHERE confirmation_id = @subject AND sent_at IS NULL",
};

export const SUBJECT_FAILED: Partial<Record<OutboxKind, string>> = {
  lead_notification:
    "UPDATE leads SET tracking_status = 'failed', failed_at = @at WHERE lead_id = @subject AND tracking_status = 'received'",
  lead_follow_up: "UPDATE lead_messages SET status = 'failed' WHERE message_id = @subject AND status = 'pending'",
  lead_answer: "UPDATE lead_messages SET status = 'failed' WHERE message_id = @subject AND status = 'pending'",
  platform_contact:
    "UPDATE platform_contacts SET status = 'failed' WHERE contact_id = @subject AND status = 'received'",
  // lead_email_confirmation: none; the request stays waiting, and the merchant who sees no link
  // arrive asks again (a new request withdraws this one).
};

// One ordered index range per status, each stopping at `limit` rows: with `status IN (...)` SQLite
// would sort every due row to take the first few, so a backlog (an SMTP server down for an hour)
// would make each claim slower than the deliveries it hands out. The unary + keeps the outer
// UPDATE on the primary key of the few ids chosen rather than on a scan of the due rows.
const dueOf = (status: string) =>
  `SELECT * FROM (SELECT message_id, next_attempt_at FROM outbox
     WHERE status = '${status}' AND next_attempt_at <= @now ORDER BY next_attempt_at LIMIT @limit)`;
export const CLAIM_DUE_SQL = `UPDATE outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = @leaseUntil,
    claimed_by = @claimer
  WHERE message_id IN (
    SELECT message_id FROM (${dueOf("pending")} UNION ALL ${dueOf("sending")})
    ORDER BY next_attempt_at LIMIT @limit)
    AND +status IN ('pending', 'sending') AND +next_attempt_at <= @now
  RETURNING *`;

/** Who claims: this machine and process (a worker thread claims as its process: they die together). */
export const CLAIMER = `${hostname()}:${process.pid}`;

/** A claimer on another machine cannot be checked from here: taken as alive (its lease still ends). */
function claimerIsAlive(claimer: string): boolean {
  const separator = claimer.lastIndexOf(":");
  if (claimer.slice(0, separator) !== hostname()) return true;
  const pid = Number(claimer.slice(separator + 1));
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

export function createOutboxRepository(db: StoreConnection): OutboxRepository {
  const sqlite = db.$client;
  const claim = sqlite.prepare<{ now: string; leaseUntil: string; limit: number; claimer: string }, OutboxRow>(
    CLAIM_DUE_SQL,
  );
  const claimers = sqlite
    .prepare<[], string>("SELECT DISTINCT claimed_by FROM outbox WHERE status = 'sending' AND claimed_by IS NOT NULL")
    .pluck();
  const release = sqlite.prepare<{ claimer: string; now: string }>(
    "UPDATE outbox SET status = 'pending', next_attempt_at = @now WHERE status = 'sending' AND claimed_by = @claimer",
  );
  const settle = sqlite.prepare<
    {
      messageId: string;
      attempts: number;
      status: string;
      nextAttemptAt: string | null;
      error: string | null;
      at: string | null;
    },
    { kind: string; subject_id: string }
  >(
    `UPDATE outbox SET status = @status, next_attempt_at = coalesce(@nextAttemptAt, next_attempt_at),
       last_error = @error, sent_at = coalesce(@at, sent_at)
     WHERE message_id = @messageId AND status = 'sending' AND attempts = @attempts
     RETURNING kind, subject_id`,
  );
  const prepared = (text: string | undefined) => (text === undefined ? undefined : sqlite.prepare(text));
  const sentStatements = mapKinds((kind) => prepared(SUBJECT_SENT[kind]));
  const failedStatements = mapKinds((kind) => prepared(SUBJECT_FAILED[kind]));
  const nextDue = sqlite
    .prepare<[], string | null>(
      `SELECT min(due) FROM (
         SELECT min(next_attempt_at) AS due FROM outbox WHERE status = 'pending'
         UNION ALL SELECT min(next_attempt_at) FROM outbox WHERE status = 'sending')`,
    )
    .pluck();
  const byId = sqlite.prepare<[string], OutboxRow>("SELECT * FROM outbox WHERE message_id = ?");
  const bySubject = sqlite.prepare<[string], OutboxRow>(
    "SELECT * FROM outbox WHERE subject_id = ? ORDER BY created_at, rowid",
  );
  const counts = sqlite.prepare<[], { status: string; n: number }>(
    "SELECT status, count(*) AS n FROM outbox GROUP BY status",
  );
  // Two ranges of the outbox_due index; settled rows (the bulk of the table) are not read.
  const backlog = sqlite.prepare<[], { pending: number; oldest: string | null }>(
    "SELECT count(*) AS pending, min(created_at) AS oldest FROM outbox WHERE status IN ('pending', 'sending')",
  );

  const applyOne = (result: OutboxResult): boolean => {
    const settled = settle.get({
      messageId: result.messageId,
      attempts: result.attempts,
      status: result.outcome === "retry" ? "pending" : result.outcome,
      nextAttemptAt: result.outcome === "retry" ? result.nextAttemptAt : null,
      error: result.outcome === "sent" ? null : result.error,
      at: result.outcome === "sent" ? result.at : null,
    });
    if (!settled) return false;
    const kind = settled.kind as OutboxKind;
    if (result.outcome === "sent") sentStatements[kind]?.run({ subject: settled.subject_id, at: result.at });
    if (result.outcome === "failed") failedStatements[kind]?.run({ subject: settled.subject_id, at: result.at });
    return true;
  };
  const settleTx = sqlite.transaction((results: readonly OutboxResult[]): number => {
    let applied = 0;
    for (const result of results) if (applyOne(result)) applied += 1;
    return applied;
  });

  return {
    claimDue: (input) => claim.all({ ...input, claimer: CLAIMER }).map(toMessage),
    reclaimFromDeadClaimers(now) {
      let reclaimed = 0;
      for (const claimer of claimers.all()) {
        if (claimerIsAlive(claimer)) continue;
        reclaimed += release.run({ claimer, now }).changes;
      }
      return reclaimed;
    },
    markSent: ({ messageId, attempts, at }) => settleTx.immediate([{ messageId, attempts, outcome: "sent", at }]) === 1,
    markRetry: ({ messageId, attempts, nextAttemptAt, error }) =>
      settleTx.immediate([{ messageId, attempts, outcome: "retry", nextAttemptAt, error }]) === 1,
    markFailed: ({ messageId, attempts, at, error }) =>
      settleTx.immediate([{ messageId, attempts, outcome: "failed", at, error }]) === 1,
    settle: (results) => (results.length === 0 ? 0 : settleTx.immediate(results)),
    nextDueAt: () => nextDue.get() ?? null,
    find(messageId) {
      const row = byId.get(messageId);
      return row ? toMessage(row) : null;
    },
    findBySubject: (subjectId) => bySubject.all(subjectId).map(toMessage),
    countByStatus: () => Object.fromEntries(counts.all().map((row) => [row.status, row.n])),
    backlog() {
      const row = backlog.get();
      return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },
  };
}

function mapKinds<T>(build: (kind: OutboxKind) => T): Partial<Record<OutboxKind, T>> {
  return Object.fromEntries(OUTBOX_KINDS.map((kind) => [kind, build(kind)])) as Partial<Record<OutboxKind, T>>;
}

export function toMessage(row: OutboxRow): OutboxMessage {
  return {
    messageId: row.message_id,
    kind: row.kind as OutboxKind,
    subjectId: row.subject_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
  };
}
