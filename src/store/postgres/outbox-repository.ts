/**
 * The transactional outbox on PostgreSQL, for several machines (docs/several-machines.md): the
 * same rows, statuses, leases and fencing as the SQLite outbox (src/store/outbox-repository.ts,
 * whose comment says how a claim is a lease and a result applies only to the attempt it claimed),
 * with what several machines need on top:
 *
 * - a claim takes due rows with `FOR UPDATE SKIP LOCKED`: machines claiming at the same instant
 *   each take other rows, none waits for another's, none takes a row twice;
 * - a machine that dies leaves `sending` rows whose lease ends; any machine's next claim takes
 *   them (the SQLite outbox also releases at once the rows of a dead process of its own machine:
 *   that check stays per machine, `reclaimFromDeadClaimers`, the lease covers the others);
 * - a batch of results is settled in one transaction on one pooled connection.
 */
import type pg from "pg";
import type { OutboxKind, OutboxRepository, OutboxResult } from "../../domain/outbox-store.ts";
import { CLAIMER, type OutboxRow, SUBJECT_FAILED, SUBJECT_SENT, toMessage } from "../outbox-repository.ts";
import { settleWaitingChangeOn } from "./space-link-repositories.ts";
import { inTransaction, numbered } from "./transaction.ts";

/** The outbox port (asynchronous in the domain since issue 26's async seam); the name the tests use. */
export type AsyncOutboxRepository = OutboxRepository;

const CLAIM_DUE = `UPDATE outbox o SET status = 'sending', attempts = o.attempts + 1, next_attempt_at = $2, claimed_by = $4
  FROM (
    SELECT message_id FROM outbox
    WHERE status IN ('pending', 'sending') AND next_attempt_at <= $1
    ORDER BY next_attempt_at LIMIT $3
    FOR UPDATE SKIP LOCKED
  ) due
  WHERE o.message_id = due.message_id
  RETURNING o.*`;

const SETTLE = `UPDATE outbox SET status = $3, next_attempt_at = coalesce($4, next_attempt_at),
    last_error = $5, sent_at = coalesce($6, sent_at)
  WHERE message_id = $1 AND status = 'sending' AND attempts = $2
  RETURNING kind, subject_id`;

export function createPostgresOutboxRepository(pool: pg.Pool): AsyncOutboxRepository {
  const applyOne = async (client: pg.PoolClient, result: OutboxResult): Promise<boolean> => {
    const settled = await client.query<{ kind: string; subject_id: string }>(SETTLE, [
      result.messageId,
      result.attempts,
      result.outcome === "retry" ? "pending" : result.outcome,
      result.outcome === "retry" ? result.nextAttemptAt : null,
      result.outcome === "sent" ? null : result.error,
      result.outcome === "sent" ? result.at : null,
    ]);
    const row = settled.rows[0];
    if (!row) return false;
    const kind = row.kind as OutboxKind;
    if (result.outcome === "retry") return true;
    // The SQLite outbox's subject statements: one home for what a delivery moves along.
    const statement = (result.outcome === "sent" ? SUBJECT_SENT : SUBJECT_FAILED)[kind];
    if (statement) {
      const subject = numbered(statement, { subject: row.subject_id, at: result.at });
      await client.query(subject.text, subject.values);
    }
    // A lead email change waiting for this notice takes effect with its settling, or not at all.
    if (kind === "space_notice") await settleWaitingChangeOn(client, row.subject_id, result.outcome, result.at);
    return true;
  };

  const settle = async (results: readonly OutboxResult[]): Promise<number> => {
    if (results.length === 0) return 0;
    return inTransaction(pool, async (client) => {
      let applied = 0;
      for (const result of results) if (await applyOne(client, result)) applied += 1;
      return applied;
    });
  };

  return {
    async claimDue({ now, leaseUntil, limit }) {
      const claimed = await pool.query<OutboxRow>(CLAIM_DUE, [now, leaseUntil, limit, CLAIMER]);
      return claimed.rows.map(toMessage);
    },
    // Another machine's processes cannot be checked from here; their leases end.
    reclaimFromDeadClaimers: async () => 0,
    markSent: async ({ messageId, attempts, at }) =>
      (await settle([{ messageId, attempts, outcome: "sent", at }])) === 1,
    markRetry: async ({ messageId, attempts, nextAttemptAt, error }) =>
      (await settle([{ messageId, attempts, outcome: "retry", nextAttemptAt, error }])) === 1,
    markFailed: async ({ messageId, attempts, at, error }) =>
      (await settle([{ messageId, attempts, outcome: "failed", at, error }])) === 1,
    settle,
    async nextDueAt() {
      const due = await pool.query<{ due: string | null }>(
        "SELECT min(next_attempt_at) AS due FROM outbox WHERE status IN ('pending', 'sending')",
      );
      return due.rows[0]?.due ?? null;
    },
    async find(messageId) {
      const found = await pool.query<OutboxRow>("SELECT * FROM outbox WHERE message_id = $1", [messageId]);
      return found.rows[0] ? toMessage(found.rows[0]) : null;
    },
    async findBySubject(subjectId) {
      // SQLite breaks ties by rowid (the order written); PostgreSQL has none: by id.
      const found = await pool.query<OutboxRow>(
        "SELECT * FROM outbox WHERE subject_id = $1 ORDER BY created_at, message_id",
        [subjectId],
      );
      return found.rows.map(toMessage);
    },
    async countByStatus() {
      const counts = await pool.query<{ status: string; n: number }>(
        "SELECT status, count(*) AS n FROM outbox GROUP BY status",
      );
      return Object.fromEntries(counts.rows.map((row) => [row.status, row.n]));
    },
    async backlog() {
      const row = (
        await pool.query<{ pending: number; oldest: string | null }>(
          "SELECT count(*) AS pending, min(created_at) AS oldest FROM outbox WHERE status IN ('pending', 'sending')",
        )
      ).rows[0];
      return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },
  };
}
