import { hostname } from "node:os";
import {
  OUTBOX_KINDS,
  type OutboxKind,
  type OutboxMessage,
  type OutboxRepository,
  type OutboxResult,
} from "../domain/outbox-store.ts";
import type { StoreConnection } from "./connection.ts";
import { waitingChangeSettler } from "./lead-email-confirmation-repository.ts";

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

/**
 * What a delivery moves along in the subject's own table (a sign-in link has nothing to move; a
 * notice that a lead email change waits for applies it: waitingChangeSettler, below).
 */
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

  let settleWaitingChange: ReturnType<typeof waitingChangeSettler> | null = null;
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
    // A lead email change waiting for this notice takes effect with its settling, or not at all.
    if (kind === "space_notice" && result.outcome !== "retry") {
      settleWaitingChange ??= waitingChangeSettler(sqlite);
      settleWaitingChange(settled.subject_id, result.outcome, result.at);
    }
    return true;
  };
  const settleTx = sqlite.transaction((results: readonly OutboxResult[]): number => {
    let applied = 0;
    for (const result of results) if (applyOne(result)) applied += 1;
    return applied;
  });

  return {
    claimDue: async (input) => claim.all({ ...input, claimer: CLAIMER }).map(toMessage),
    async reclaimFromDeadClaimers(now) {
      let reclaimed = 0;
      for (const claimer of claimers.all()) {
        if (claimerIsAlive(claimer)) continue;
        reclaimed += release.run({ claimer, now }).changes;
      }
      return reclaimed;
    },
    markSent: async ({ messageId, attempts, at }) =>
      settleTx.immediate([{ messageId, attempts, outcome: "sent", at }]) === 1,
    markRetry: async ({ messageId, attempts, nextAttemptAt, error }) =>
      settleTx.immediate([{ messageId, attempts, outcome: "retry", nextAttemptAt, error }]) === 1,
    markFailed: async ({ messageId, attempts, at, error }) =>
      settleTx.immediate([{ messageId, attempts, outcome: "failed", at, error }]) === 1,
    settle: async (results) => (results.length === 0 ? 0 : settleTx.immediate(results)),
    nextDueAt: async () => nextDue.get() ?? null,
    async find(messageId) {
      const row = byId.get(messageId);
      return row ? toMessage(row) : null;
    },
    findBySubject: async (subjectId) => bySubject.all(subjectId).map(toMessage),
    countByStatus: async () => Object.fromEntries(counts.all().map((row) => [row.status, row.n])),
    async backlog() {
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
