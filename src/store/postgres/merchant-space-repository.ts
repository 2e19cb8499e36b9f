/**
 * The merchant space's sessions, sign-ins and claims on PostgreSQL (the port:
 * src/domain/merchant-space/space-store.ts; the SQLite store: src/store/merchant-space-repository.ts).
 * Where SQLite's single writer made a read-then-write safe, the writes here lean on the database:
 * a live claim per (listing, person) is the partial unique index merchant_claims_live
 * (ON CONFLICT DO NOTHING, then the winner read back); a revocation locks its claim's row; a
 * sign-in is taken by one UPDATE ... RETURNING.
 */
import type pg from "pg";
import type { ClaimEvent, ClaimRecord, SpaceNotice, SpaceStore } from "../../domain/merchant-space/space-store.ts";
import {
  amrText,
  type ClaimRow,
  claimChanges,
  claimOf,
  LISTING_COLUMNS,
  type ListingRow,
  listingOf,
  personRowsWhere,
  type SessionRow,
  type SignInRow,
  sessionOf,
} from "../merchant-space-repository.ts";
import { insertNoticeOn } from "./space-notice-repository.ts";
import { firstRow as first, inTransaction, type Queryable } from "./transaction.ts";

/** A claim changes who may edit the merchant, not its record: the event carries the record's revision as it is. */
async function recordEvent(client: Queryable, abId: string, claimId: string, event: ClaimEvent): Promise<void> {
  await client.query(
    `INSERT INTO merchant_events (ab_id, at, actor, action, changes, reason, revision)
     SELECT $1, $2, $3, $4, $5, $6, coalesce((SELECT revision FROM merchants WHERE ab_id = $1), 0)`,
    [abId, event.at, event.actor, event.action, claimChanges(claimId, event), event.reason],
  );
}

/**
 * Writes a claim and its audit event on a client inside a transaction, unless the person already
 * holds a live claim on the listing (that one is returned): the space's insertClaim, and the letter
 * store's spend, which records the claim with the letter it spends.
 */
export async function insertClaimOn(
  client: pg.PoolClient,
  claim: ClaimRecord,
  event: ClaimEvent,
  notice: SpaceNotice,
): Promise<ClaimRecord> {
  const inserted = await first<ClaimRow>(
    client,
    `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, email_key, via, basis, acr, amr, idp_id,
       created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (ab_id, subject) WHERE revoked_at IS NULL DO NOTHING
     RETURNING *`,
    [
      claim.claimId,
      claim.abId,
      claim.siren,
      claim.subject,
      claim.email,
      claim.email?.toLowerCase() ?? null,
      claim.via,
      claim.basis,
      claim.acr,
      amrText(claim.amr),
      claim.idpId,
      claim.createdAt,
    ],
  );
  if (!inserted) {
    const held = await first<ClaimRow>(
      client,
      "SELECT * FROM merchant_claims WHERE ab_id = $1 AND subject = $2 AND revoked_at IS NULL",
      [claim.abId, claim.subject],
    );
    if (!held) throw new Error("merchant_claims: the live claim that refused the insert is gone");
    return claimOf(held);
  }
  await recordEvent(client, claim.abId, claim.claimId, event);
  await insertNoticeOn(client, notice);
  return claim;
}

export function createPostgresMerchantSpaceRepository(pool: pg.Pool): SpaceStore {
  const listingsWhere = async (where: string, values: unknown[]) =>
    (await pool.query<ListingRow>(`SELECT ${LISTING_COLUMNS} FROM merchants WHERE ${where}`, values)).rows;

  return {
    insertSession: (session, replacing) =>
      inTransaction(pool, async (client) => {
        if (replacing !== null) {
          await client.query(
            "UPDATE pro_sessions SET ended_at = $1, ended_reason = 'replaced' WHERE token_hash = $2 AND ended_at IS NULL",
            [session.createdAt, replacing],
          );
        }
        const { person } = session;
        await client.query(
          `INSERT INTO pro_sessions (session_id, token_hash, subject, email, given_name, usual_name, siret, siren, via,
             acr, amr, idp_id, id_token, created_at, last_seen_at, idle_expires_at, absolute_expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
          [
            session.sessionId,
            session.tokenHash,
            person.subject,
            person.email,
            person.givenName,
            person.usualName,
            person.siret,
            person.siren,
            person.via,
            person.acr,
            amrText(person.amr),
            person.idpId,
            session.idToken,
            session.createdAt,
            session.lastSeenAt,
            session.idleExpiresAt,
            session.absoluteExpiresAt,
          ],
        );
      }),
    async findSession(hash) {
      const row = await first<SessionRow>(pool, "SELECT * FROM pro_sessions WHERE token_hash = $1", [hash]);
      return row ? sessionOf(row) : null;
    },
    async touchSession(sessionId, lastSeenAt, idleExpiresAt) {
      await pool.query(
        "UPDATE pro_sessions SET last_seen_at = $1, idle_expires_at = $2 WHERE session_id = $3 AND ended_at IS NULL",
        [lastSeenAt, idleExpiresAt, sessionId],
      );
    },
    async endSession(sessionId, at, reason) {
      await pool.query(
        "UPDATE pro_sessions SET ended_at = $1, ended_reason = $2 WHERE session_id = $3 AND ended_at IS NULL",
        [at, reason, sessionId],
      );
    },
    insertSignIn: (signIn) =>
      inTransaction(pool, async (client) => {
        // Sign-ins over an hour old are of no use to anyone: deleted as new ones come.
        await client.query("DELETE FROM pro_sign_ins WHERE expires_at < $1", [
          new Date(Date.parse(signIn.createdAt) - 60 * 60 * 1000).toISOString(),
        ]);
        await client.query(
          `INSERT INTO pro_sign_ins (token_hash, state, nonce, code_verifier, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [signIn.tokenHash, signIn.state, signIn.nonce, signIn.codeVerifier, signIn.createdAt, signIn.expiresAt],
        );
      }),
    async takeSignIn(hash, at) {
      const row = await first<SignInRow>(
        pool,
        "UPDATE pro_sign_ins SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING *",
        [at, hash],
      );
      return row
        ? {
            tokenHash: row.token_hash,
            state: row.state,
            nonce: row.nonce,
            codeVerifier: row.code_verifier,
            createdAt: row.created_at,
            expiresAt: row.expires_at,
          }
        : null;
    },
    async listing(abId) {
      const [row] = await listingsWhere("ab_id = $1", [abId]);
      return row ? listingOf(row) : null;
    },
    async listingsOf({ siret, siren }) {
      const rows = new Map<string, ListingRow>();
      if (siret !== null)
        for (const row of await listingsWhere("siret = $1 ORDER BY siret", [siret])) rows.set(row.ab_id, row);
      if (siren !== null && /^\d{9}$/.test(siren)) {
        // The SIRETs of one company share its nine first digits: a range on the siret index.
        const company = await listingsWhere("siret >= $1 AND siret <= $2 ORDER BY siret LIMIT 500", [
          `${siren}00000`,
          `${siren}99999`,
        ]);
        for (const row of company) rows.set(row.ab_id, row);
      }
      return [...rows.values()].map(listingOf);
    },
    insertClaim: (claim, event, notice) => inTransaction(pool, (client) => insertClaimOn(client, claim, event, notice)),
    async findClaim(claimId) {
      const row = await first<ClaimRow>(pool, "SELECT * FROM merchant_claims WHERE claim_id = $1", [claimId]);
      return row ? claimOf(row) : null;
    },
    async claimsOfSubject(subject) {
      const rows = await pool.query<ClaimRow>(
        "SELECT * FROM merchant_claims WHERE subject = $1 ORDER BY created_at DESC, claim_id DESC",
        [subject],
      );
      return rows.rows.map(claimOf);
    },
    async claimsOfPerson(person) {
      const { where, values } = personRowsWhere(person, (index) => `$${index}`, "email_key");
      const rows = await pool.query<ClaimRow>(
        `SELECT * FROM merchant_claims WHERE ${where} ORDER BY created_at, claim_id`,
        values,
      );
      return rows.rows.map(claimOf);
    },
    async claimsOfListing(abId) {
      const rows = await pool.query<ClaimRow>(
        "SELECT * FROM merchant_claims WHERE ab_id = $1 ORDER BY created_at, claim_id",
        [abId],
      );
      return rows.rows.map(claimOf);
    },
    revokeClaims: (claims, revocation, person) =>
      inTransaction(pool, async (client) => {
        const revoked: string[] = [];
        for (const { claimId, event } of claims) {
          const claim = await first<ClaimRow>(client, "SELECT * FROM merchant_claims WHERE claim_id = $1 FOR UPDATE", [
            claimId,
          ]);
          if (!claim || claim.revoked_at !== null) continue;
          await client.query(
            "UPDATE merchant_claims SET revoked_at = $1, revoked_by = $2, revoked_reason = $3 WHERE claim_id = $4",
            [revocation.at, revocation.by, revocation.reason, claimId],
          );
          await recordEvent(client, claim.ab_id, claimId, event);
          revoked.push(claimId);
        }
        if (revoked.length > 0) {
          const { where, values } = personRowsWhere(person, (index) => `$${index + 1}`, "lower(email)");
          await client.query(
            `UPDATE pro_sessions SET ended_at = $1, ended_reason = 'claim_revoked' WHERE ended_at IS NULL AND ${where}`,
            [revocation.at, ...values],
          );
        }
        return revoked;
      }),
    recheckClaims: (subject, identity, rechecks, at) =>
      inTransaction(pool, async (client) => {
        for (const recheck of rechecks) {
          const changed = await client.query(
            "UPDATE merchant_claims SET lapsed_at = $1 WHERE claim_id = $2 AND revoked_at IS NULL",
            [recheck.lapsed ? at : null, recheck.claimId],
          );
          if (changed.rowCount === 1) await recordEvent(client, recheck.abId, recheck.claimId, recheck.event);
        }
        // The sessions of a subject that carry another identity than its newest sign-in's.
        await client.query(
          `UPDATE pro_sessions SET ended_at = $1, ended_reason = 'identity_changed'
           WHERE subject = $2 AND ended_at IS NULL
             AND NOT (siret IS NOT DISTINCT FROM $3 AND siren IS NOT DISTINCT FROM $4 AND acr IS NOT DISTINCT FROM $5)`,
          [at, subject, identity.siret, identity.siren, identity.acr],
        );
      }),
  };
}
