/**
 * The merchant space's links on PostgreSQL: the letter path's sign-in links and the lead email's
 * confirmation links, each with its outbox row (the SQLite stores: sign-in-link-repository.ts,
 * lead-email-confirmation-repository.ts, whose row mappings are reused). A link is taken, or a
 * request confirmed, by one conditional UPDATE: of two at once, one wins.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { applyWaitingLeadEmail } from "../../domain/merchant-space/lead-email.ts";
import type { LeadEmailConfirmationStore } from "../../domain/merchant-space/lead-email-store.ts";
import type { LetterClaimForLink, SignInLinkStore } from "../../domain/merchant-space/sign-in-links.ts";
import { claimIdOfActor } from "../../domain/merchant-space/space-notices.ts";
import {
  CHANGE_WAITING_ON,
  type ConfirmationRow,
  MARK_CONFIRMED,
  SETTLE_WAITING_CHANGE,
  toConfirmation,
  WAITING_CHANGE_OF,
  WITHDRAW_WAITING_CHANGES,
  WITHDRAW_WAITING_LINKS,
} from "../lead-email-confirmation-repository.ts";
import { type LinkRow, linkOf } from "../sign-in-link-repository.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { registryBatchOn } from "./merchant-registry-repository.ts";
import { insertNoticeOn } from "./space-notice-repository.ts";
import { firstRow, inTransaction, numbered } from "./transaction.ts";

const INSERT_OUTBOX = `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
  VALUES ($1, $2, $3, 'pending', 0, $4, $4)`;

export function createPostgresSignInLinkRepository(pool: pg.Pool): Asynchronous<SignInLinkStore> {
  return {
    async liveLetterClaimsOf(email) {
      const claims = await pool.query<LetterClaimForLink>(
        `SELECT c.claim_id AS "claimId", c.ab_id AS "abId", m.business_name AS "businessName"
         FROM merchant_claims c JOIN merchants m ON m.ab_id = c.ab_id
         WHERE c.via = 'letter' AND c.revoked_at IS NULL AND lower(c.email) = lower($1)
         ORDER BY c.created_at`,
        [email],
      );
      return claims.rows;
    },
    insertLinks: (links, at) =>
      inTransaction(pool, async (client) => {
        for (const link of links) {
          await client.query(
            `INSERT INTO space_sign_in_links (link_id, claim_id, email, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)`,
            [link.linkId, link.claimId, link.email, link.createdAt, link.expiresAt],
          );
          await client.query(INSERT_OUTBOX, [randomUUID(), "space_sign_in_link", link.linkId, at]);
        }
      }),
    async takeLink(linkId, at) {
      const row = await firstRow<LinkRow>(
        pool,
        `UPDATE space_sign_in_links SET used_at = $2
         WHERE link_id = $1 AND used_at IS NULL AND expires_at > $2
           AND claim_id IN (SELECT claim_id FROM merchant_claims WHERE revoked_at IS NULL)
         RETURNING *`,
        [linkId, at],
      );
      return row ? linkOf(row) : null;
    },
    async findLink(linkId) {
      const row = await firstRow<LinkRow & { business_name: string }>(
        pool,
        `SELECT l.*, m.business_name FROM space_sign_in_links l
         JOIN merchant_claims c ON c.claim_id = l.claim_id JOIN merchants m ON m.ab_id = c.ab_id
         WHERE l.link_id = $1`,
        [linkId],
      );
      return row ? { ...linkOf(row), businessName: row.business_name } : null;
    },
  };
}

/** Whether a merchant actor's claim is live, its row locked FOR SHARE: a revocation waits for this commit. */
async function claimLiveOn(client: pg.PoolClient, actor: string): Promise<boolean> {
  const claimId = claimIdOfActor(actor);
  if (claimId === null) return false;
  const live = await firstRow<{ claim_id: string }>(
    client,
    "SELECT claim_id FROM merchant_claims WHERE claim_id = $1 AND revoked_at IS NULL AND lapsed_at IS NULL FOR SHARE",
    [claimId],
  );
  return live !== undefined;
}

const sql = (statement: string, parameters: Record<string, unknown>) => numbered(statement, parameters);

/**
 * Applies, inside the outbox's settling transaction, the lead email change that waited for this
 * notice, if one does (the SQLite twin: waitingChangeSettler). The change's row is locked first,
 * then its claim, then the registry batch takes the store revision (a confirmation locks the rows
 * it withdraws before its batch too: the same order, no deadlock).
 */
export async function settleWaitingChangeOn(
  client: pg.PoolClient,
  noticeId: string,
  delivery: "sent" | "failed",
  at: string,
): Promise<void> {
  const waitingOn = sql(`${CHANGE_WAITING_ON} FOR UPDATE OF c`, { noticeId });
  const row = await firstRow<ConfirmationRow & { told_address: string }>(client, waitingOn.text, waitingOn.values);
  if (!row) return;
  const confirmation = toConfirmation(row);
  const waiting = {
    confirmation,
    claimLive: await claimLiveOn(client, confirmation.requestedBy),
    toldAddress: row.told_address,
  };
  const applied = await registryBatchOn(client, { abIds: [confirmation.abId] }, (registry) =>
    applyWaitingLeadEmail(registry, waiting, delivery, at),
  );
  const settle = sql(SETTLE_WAITING_CHANGE, { id: confirmation.confirmationId, at, applied: applied ? 1 : 0 });
  await client.query(settle.text, settle.values);
}

export function createPostgresLeadEmailConfirmationRepository(pool: pg.Pool): LeadEmailConfirmationStore {
  const found = async (text: string, values: unknown[]) => {
    const row = await firstRow<ConfirmationRow>(pool, text, values);
    return row ? toConfirmation(row) : null;
  };
  return {
    request: (confirmation, outboxMessageId) =>
      inTransaction(pool, async (client) => {
        // Requests of one listing queue here: without it two at once would each withdraw what the
        // other has not committed yet, and both links would stay live.
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
          `lead-email-request:${confirmation.abId}`,
        ]);
        // One request waits at a time: the newest withdraws the others (only the latest link works).
        const withdraw = sql(WITHDRAW_WAITING_LINKS, { abId: confirmation.abId, at: confirmation.createdAt });
        await client.query(withdraw.text, withdraw.values);
        await client.query(
          `INSERT INTO lead_email_confirmations
             (confirmation_id, ab_id, email, token_hash, requested_by, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            confirmation.confirmationId,
            confirmation.abId,
            confirmation.email,
            confirmation.tokenHash,
            confirmation.requestedBy,
            confirmation.createdAt,
            confirmation.expiresAt,
          ],
        );
        await client.query(INSERT_OUTBOX, [
          outboxMessageId,
          "lead_email_confirmation",
          confirmation.confirmationId,
          confirmation.createdAt,
        ]);
      }),
    find: (confirmationId) =>
      found("SELECT * FROM lead_email_confirmations WHERE confirmation_id = $1", [confirmationId]),
    async findForDelivery(confirmationId) {
      const row = await firstRow<ConfirmationRow & { business_name: string }>(
        pool,
        `SELECT c.*, m.business_name FROM lead_email_confirmations c JOIN merchants m ON m.ab_id = c.ab_id
         WHERE c.confirmation_id = $1`,
        [confirmationId],
      );
      return row ? { ...toConfirmation(row), businessName: row.business_name } : null;
    },
    findByTokenHash: (tokenHash) => found("SELECT * FROM lead_email_confirmations WHERE token_hash = $1", [tokenHash]),
    pendingOf: (abId, now) =>
      found(
        `SELECT * FROM lead_email_confirmations
         WHERE ab_id = $1 AND confirmed_at IS NULL AND withdrawn_at IS NULL AND expires_at > $2
         ORDER BY created_at DESC LIMIT 1`,
        [abId, now],
      ),
    waitingOf: (abId) => {
      const waiting = sql(WAITING_CHANGE_OF, { abId });
      return found(waiting.text, waiting.values);
    },
    confirm: (confirmationId, at, decide) =>
      inTransaction(pool, async (client) => {
        // The request and its claim are read locked: a second confirmation of the link, a later
        // request withdrawing it, or a revocation of the claim waits for this commit, and this one
        // sees theirs if they committed first.
        const row = await firstRow<ConfirmationRow>(
          client,
          "SELECT * FROM lead_email_confirmations WHERE confirmation_id = $1 FOR UPDATE",
          [confirmationId],
        );
        if (!row) return registryBatchOn(client, {}, (registry) => decide(null, registry).result);
        const found = { confirmation: toConfirmation(row), claimLive: await claimLiveOn(client, row.requested_by) };
        // Rows this confirmation withdraws are locked before the registry batch, as the settling of
        // a notice locks its change before its batch (the same order: no deadlock). Undone with the
        // rest when `decide` refuses.
        const withdraw = sql(WITHDRAW_WAITING_CHANGES, { abId: row.ab_id, at, id: confirmationId });
        await client.query(withdraw.text, withdraw.values);
        const { result, waitFor } = await registryBatchOn(client, { abIds: [row.ab_id] }, (registry) =>
          decide(found, registry),
        );
        const waitingNoticeId = waitFor ? await insertNoticeOn(client, waitFor) : null;
        const mark = sql(MARK_CONFIRMED, { id: confirmationId, at, waitingNoticeId });
        await client.query(mark.text, mark.values);
        return result;
      }),
  };
}
