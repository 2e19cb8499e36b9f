/**
 * The outbox's claims on PostgreSQL, for several machines (docs/several-machines.md); the rest of
 * the outbox is the shared repository (src/store/outbox-repository.ts, whose comment says how a
 * claim is a lease and a result applies only to the attempt it claimed):
 *
 * - a claim takes due rows with `FOR UPDATE SKIP LOCKED`: machines claiming at the same instant
 *   each take other rows, none waits for another's, none takes a row twice;
 * - a machine that dies leaves `sending` rows whose lease ends; any machine's next claim takes
 *   them (the SQLite outbox also releases at once the rows of a dead process of its own machine:
 *   that check stays per machine, `reclaimFromDeadClaimers`, the lease covers the others);
 * - a lead email change waiting for a notice is settled on the settling's own connection.
 */
import type { OutboxMessage, OutboxRepository } from "../../domain/outbox-store.ts";
import { CLAIMER, claimedColumns, createOutboxRepository, type OutboxClaims } from "../outbox-repository.ts";
import { step } from "../store-db.ts";
import { settleWaitingChangeOn } from "./space-link-repositories.ts";
import type { PostgresStore } from "./store.ts";
import { connectionOf } from "./store-db.ts";

const CLAIM_DUE = `UPDATE outbox o SET status = 'sending', attempts = o.attempts + 1, next_attempt_at = $2, claimed_by = $4
  FROM (
    SELECT message_id FROM outbox
    WHERE status IN ('pending', 'sending') AND next_attempt_at <= $1
    ORDER BY next_attempt_at LIMIT $3
    FOR UPDATE SKIP LOCKED
  ) due
  WHERE o.message_id = due.message_id
  RETURNING ${claimedColumns("o.")}`;

export function createPostgresOutboxRepository({ pool, storeDb }: PostgresStore): OutboxRepository {
  const claims: OutboxClaims = {
    async claimDue({ now, leaseUntil, limit }) {
      return (await pool.query<OutboxMessage>(CLAIM_DUE, [now, leaseUntil, limit, CLAIMER])).rows;
    },
    // Another machine's processes cannot be checked from here; their leases end.
    reclaimFromDeadClaimers: async () => 0,
    *settleWaitingChange(tx, noticeId, delivery, at) {
      yield* step(() => settleWaitingChangeOn(connectionOf(tx), noticeId, delivery, at));
    },
  };
  return createOutboxRepository(storeDb, claims);
}
