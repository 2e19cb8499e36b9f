/**
 * The merchant space's links on PostgreSQL: the letter path's sign-in links and the lead email's
 * confirmation links, each with its outbox row (the SQLite stores: sign-in-link-repository.ts,
 * lead-email-confirmation-repository.ts, whose row mappings are reused). A link is taken, or a
 * request confirmed, by one conditional UPDATE: of two at once, one wins.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { LeadEmailConfirmationStore } from "../../domain/merchant-space/lead-email-store.ts";
import type { LetterClaimForLink, SignInLinkStore } from "../../domain/merchant-space/sign-in-links.ts";
import { type ConfirmationRow, toConfirmation } from "../lead-email-confirmation-repository.ts";
import { type LinkRow, linkOf } from "../sign-in-link-repository.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { registryBatchOn } from "./merchant-registry-repository.ts";
import { firstRow, inTransaction } from "./transaction.ts";

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

export function createPostgresLeadEmailConfirmationRepository(pool: pg.Pool): LeadEmailConfirmationStore {
  const found = async (text: string, values: unknown[]) => {
    const row = await firstRow<ConfirmationRow>(pool, text, values);
    return row ? toConfirmation(row) : null;
  };
  return {
    request: (confirmation, outboxMessageId) =>
      inTransaction(pool, async (client) => {
        // One request waits at a time: the newest withdraws the others (only the latest link works).
        await client.query(
          `UPDATE lead_email_confirmations SET withdrawn_at = $2
           WHERE ab_id = $1 AND confirmed_at IS NULL AND withdrawn_at IS NULL`,
          [confirmation.abId, confirmation.createdAt],
        );
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
    confirm: (confirmationId, at, decide) =>
      inTransaction(pool, async (client) => {
        const confirmed = await firstRow<{ ab_id: string }>(
          client,
          `UPDATE lead_email_confirmations SET confirmed_at = $2
           WHERE confirmation_id = $1 AND confirmed_at IS NULL AND withdrawn_at IS NULL RETURNING ab_id`,
          [confirmationId, at],
        );
        if (!confirmed) return { confirmed: false as const };
        return {
          confirmed: true as const,
          result: await registryBatchOn(client, { abIds: [confirmed.ab_id] }, decide),
        };
      }),
  };
}
