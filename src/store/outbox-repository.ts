import { hostname } from "node:os";
import type { OutboxKind, OutboxMessage, OutboxRepository, OutboxResult } from "../domain/outbox-store.ts";
import type { Db } from "./db.ts";
import { and, asc, count, eq, inArray, isNull, min } from "./drizzle.ts";
import { waitingChangeSettler } from "./lead-email-confirmation-repository.ts";
import { leadEmailConfirmations, leadMessages, leads, outbox, platformContacts } from "./schema.ts";
import { byKey, inTransaction, rows, run, type Statement, type StoreDb, step } from "./store-db.ts";

/*
 * The transactional outbox, one repository on both engines but for its claims, each engine's own
 * (`OutboxClaims`: SQLite's ranges of the outbox_due index, PostgreSQL's FOR UPDATE SKIP LOCKED,
 * postgres/outbox-repository.ts). Rows are written by the lead, follow-up and platform-contact
 * transactions; workers claim due rows with one UPDATE ... RETURNING (atomic, so two workers, in
 * one process or several, on one machine or several, never claim the same row). A claim is a lease: the row
 * turns `sending` and its next_attempt_at moves to the end of the lease, so a row whose worker
 * died mid-send is claimed again once the lease is over (delivery is at least once; the
 * Message-ID is stable so a receiving client can fold a repeat). A worker's result is applied only
 * if the row still carries the attempt number it claimed.
 *
 * Statuses: pending -> sending -> sent | pending (retry later) | failed (attempts exhausted).
 */

/** How a claim returns its rows: as OutboxMessage's fields (`table.` before each on PostgreSQL's join). */
export const claimedColumns = (table = "") =>
  `${table}message_id AS "messageId", ${table}kind, ${table}subject_id AS "subjectId", ${table}status,
   ${table}attempts, ${table}next_attempt_at AS "nextAttemptAt", ${table}last_error AS "lastError",
   ${table}created_at AS "createdAt", ${table}sent_at AS "sentAt"`;

/** What each engine does its own way: claim due rows, release a dead process's, settle a change. */
export interface OutboxClaims {
  claimDue: OutboxRepository["claimDue"];
  reclaimFromDeadClaimers: OutboxRepository["reclaimFromDeadClaimers"];
  /** A lead email change waiting for a notice, applied or not in the settling's transaction `tx`. */
  settleWaitingChange(
    tx: StoreDb,
    noticeId: string,
    delivery: "sent" | "failed",
    at: string,
  ): Generator<Statement, void, unknown>;
}

type Moving = (tx: StoreDb, subject: string, at: string) => { run(): unknown };

/**
 * What a delivery moves along in the subject's own table (a sign-in link has nothing to move; a
 * notice that a lead email change waits for applies it: settleWaitingChange).
 */
const SUBJECT_SENT: Partial<Record<OutboxKind, Moving>> = {
  lead_notification: (tx, subject, at) => leadTracking(tx, subject, { trackingStatus: "delivered", deliveredAt: at }),
  lead_follow_up: (tx, subject) => messageStatus(tx, subject, "sent"),
  lead_answer: (tx, subject) => messageStatus(tx, subject, "sent"),
  platform_contact: (tx, subject) => contactStatus(tx, subject, "forwarded"),
  lead_email_confirmation: (tx, subject, at) =>
    tx
      .update(leadEmailConfirmations)
      .set({ sentAt: at })
      .where(and(eq(leadEmailConfirmations.confirmationId, subject), isNull(leadEmailConfirmations.sentAt))),
};

const SUBJECT_FAILED: Partial<Record<OutboxKind, Moving>> = {
  lead_notification: (tx, subject, at) => leadTracking(tx, subject, { trackingStatus: "failed", failedAt: at }),
  lead_follow_up: (tx, subject) => messageStatus(tx, subject, "failed"),
  lead_answer: (tx, subject) => messageStatus(tx, subject, "failed"),
  platform_contact: (tx, subject) => contactStatus(tx, subject, "failed"),
  // lead_email_confirmation: none; the request stays waiting, and the merchant who sees no link
  // arrive asks again (a new request withdraws this one).
};

function leadTracking(
  tx: StoreDb,
  leadId: string,
  tracking: { trackingStatus: string; deliveredAt?: string; failedAt?: string },
) {
  return tx
    .update(leads)
    .set(tracking)
    .where(and(eq(leads.leadId, leadId), eq(leads.trackingStatus, "received")));
}

function messageStatus(tx: StoreDb, messageId: string, status: string) {
  return tx
    .update(leadMessages)
    .set({ status })
    .where(and(eq(leadMessages.messageId, messageId), eq(leadMessages.status, "pending")));
}

function contactStatus(tx: StoreDb, contactId: string, status: string) {
  return tx
    .update(platformContacts)
    .set({ status })
    .where(and(eq(platformContacts.contactId, contactId), eq(platformContacts.status, "received")));
}

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
  RETURNING ${claimedColumns()}`;

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

/** The outbox's claims on SQLite: the plan above, and the rows of a dead process of this machine released at once. */
export function sqliteOutboxClaims(db: Db): OutboxClaims {
  const sqlite = db.$client;
  const claim = sqlite.prepare<{ now: string; leaseUntil: string; limit: number; claimer: string }, OutboxMessage>(
    CLAIM_DUE_SQL,
  );
  const claimers = sqlite
    .prepare<[], string>("SELECT DISTINCT claimed_by FROM outbox WHERE status = 'sending' AND claimed_by IS NOT NULL")
    .pluck();
  const release = sqlite.prepare<{ claimer: string; now: string }>(
    "UPDATE outbox SET status = 'pending', next_attempt_at = @now WHERE status = 'sending' AND claimed_by = @claimer",
  );
  let settleWaitingChange: ReturnType<typeof waitingChangeSettler> | null = null;
  return {
    claimDue: async (input) => claim.all({ ...input, claimer: CLAIMER }),
    async reclaimFromDeadClaimers(now) {
      let reclaimed = 0;
      for (const claimer of claimers.all()) {
        if (claimerIsAlive(claimer)) continue;
        reclaimed += release.run({ claimer, now }).changes;
      }
      return reclaimed;
    },
    *settleWaitingChange(_tx, noticeId, delivery, at) {
      settleWaitingChange ??= waitingChangeSettler(sqlite);
      const settle = settleWaitingChange;
      yield* step(() => settle(noticeId, delivery, at));
    },
  };
}

export function createOutboxRepository(db: StoreDb, claims: OutboxClaims): OutboxRepository {
  const byId = byKey(db, outbox, outbox.messageId, "messageId");
  /** Applies one result to the attempt it claimed, and what it moves along; false when that attempt is over. */
  function* applyOne(tx: StoreDb, result: OutboxResult): Generator<Statement, boolean, unknown> {
    const [settled] = yield* rows(
      tx
        .update(outbox)
        .set({
          status: result.outcome === "retry" ? "pending" : result.outcome,
          lastError: result.outcome === "sent" ? null : result.error,
          ...(result.outcome === "retry" ? { nextAttemptAt: result.nextAttemptAt } : {}),
          ...(result.outcome === "sent" ? { sentAt: result.at } : {}),
        })
        .where(
          and(
            eq(outbox.messageId, result.messageId),
            eq(outbox.status, "sending"),
            eq(outbox.attempts, result.attempts),
          ),
        )
        .returning({ kind: outbox.kind, subjectId: outbox.subjectId }),
    );
    if (!settled) return false;
    if (result.outcome === "retry") return true;
    const kind = settled.kind as OutboxKind;
    const moving = (result.outcome === "sent" ? SUBJECT_SENT : SUBJECT_FAILED)[kind];
    if (moving) yield* run(moving(tx, settled.subjectId, result.at));
    // A lead email change waiting for this notice takes effect with its settling, or not at all.
    if (kind === "space_notice") yield* claims.settleWaitingChange(tx, settled.subjectId, result.outcome, result.at);
    return true;
  }
  const settle = async (results: readonly OutboxResult[]): Promise<number> => {
    if (results.length === 0) return 0;
    return inTransaction(db, function* (tx) {
      let applied = 0;
      for (const result of results) if (yield* applyOne(tx, result)) applied += 1;
      return applied;
    });
  };
  /** The first row due of a status: one end of an outbox_due range. */
  const firstDue = async (status: string) =>
    (
      await db
        .select({ due: min(outbox.nextAttemptAt) })
        .from(outbox)
        .where(eq(outbox.status, status))
    )[0]?.due ?? null;

  return {
    claimDue: claims.claimDue,
    reclaimFromDeadClaimers: claims.reclaimFromDeadClaimers,
    markSent: async ({ messageId, attempts, at }) =>
      (await settle([{ messageId, attempts, outcome: "sent", at }])) === 1,
    markRetry: async ({ messageId, attempts, nextAttemptAt, error }) =>
      (await settle([{ messageId, attempts, outcome: "retry", nextAttemptAt, error }])) === 1,
    markFailed: async ({ messageId, attempts, at, error }) =>
      (await settle([{ messageId, attempts, outcome: "failed", at, error }])) === 1,
    settle,
    async nextDueAt() {
      const due = [await firstDue("pending"), await firstDue("sending")].filter((at) => at !== null);
      return due.length === 0 ? null : due.reduce((first, at) => (at < first ? at : first));
    },
    async find(messageId) {
      const row = await byId.get({ messageId });
      return row ? messageOf(row) : null;
    },
    async findBySubject(subjectId) {
      // Ties (rows written at one instant) by id: PostgreSQL has no insertion order to fall back on.
      const found = await db
        .select()
        .from(outbox)
        .where(eq(outbox.subjectId, subjectId))
        .orderBy(asc(outbox.createdAt), asc(outbox.messageId));
      return found.map(messageOf);
    },
    async countByStatus() {
      const counts = await db.select({ status: outbox.status, n: count() }).from(outbox).groupBy(outbox.status);
      return Object.fromEntries(counts.map((row) => [row.status, row.n]));
    },
    async backlog() {
      // Two ranges of the outbox_due index; settled rows (the bulk of the table) are not read.
      const [row] = await db
        .select({ pending: count(), oldest: min(outbox.createdAt) })
        .from(outbox)
        .where(inArray(outbox.status, ["pending", "sending"]));
      return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },
  };
}

function messageOf(row: typeof outbox.$inferSelect): OutboxMessage {
  const { claimedBy: _claimedBy, ...message } = row;
  return { ...message, kind: row.kind as OutboxKind };
}
