import type {
  ClaimEvent,
  ClaimRecord,
  SessionRecord,
  SignInRecord,
  SpaceListing,
  SpaceNotice,
  SpaceStore,
  SpaceVia,
} from "../domain/merchant-space/space-store.ts";
import type { StoreConnection } from "./connection.ts";
import { noticeWriter } from "./space-notice-repository.ts";

export type { SpaceStore } from "../domain/merchant-space/space-store.ts";

export interface SessionRow {
  session_id: string;
  token_hash: string;
  subject: string;
  email: string | null;
  given_name: string | null;
  usual_name: string | null;
  siret: string | null;
  siren: string | null;
  via: string;
  id_token: string | null;
  created_at: string;
  last_seen_at: string;
  idle_expires_at: string;
  absolute_expires_at: string;
  ended_at: string | null;
}

export interface SignInRow {
  token_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ClaimRow {
  claim_id: string;
  ab_id: string;
  siren: string;
  subject: string;
  email: string | null;
  via: string;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  revoked_reason: string | null;
}

export interface ListingRow {
  ab_id: string;
  siret: string;
  business_name: string;
  legal_name: string;
  street: string;
  postal_code: string;
  city: string;
  status: string;
}

export const sessionOf = (row: SessionRow): SessionRecord => ({
  sessionId: row.session_id,
  tokenHash: row.token_hash,
  person: {
    subject: row.subject,
    email: row.email,
    givenName: row.given_name,
    usualName: row.usual_name,
    siret: row.siret,
    siren: row.siren,
    via: row.via as SpaceVia,
  },
  idToken: row.id_token,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  idleExpiresAt: row.idle_expires_at,
  absoluteExpiresAt: row.absolute_expires_at,
  endedAt: row.ended_at,
});

export const claimOf = (row: ClaimRow): ClaimRecord => ({
  claimId: row.claim_id,
  abId: row.ab_id,
  siren: row.siren,
  subject: row.subject,
  email: row.email,
  via: row.via as SpaceVia,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  revokedBy: row.revoked_by,
  revokedReason: row.revoked_reason,
});

export const listingOf = (row: ListingRow): SpaceListing => ({
  abId: row.ab_id,
  siret: row.siret,
  businessName: row.business_name,
  legalName: row.legal_name,
  street: row.street,
  postalCode: row.postal_code,
  city: row.city,
  status: row.status,
});

export const LISTING_COLUMNS = "ab_id, siret, business_name, legal_name, street, postal_code, city, status";

type SqliteClient = StoreConnection["$client"];

/** Writes a claim's audit event (the body of a transaction the caller holds). */
function claimEventWriter(sqlite: SqliteClient): (abId: string, claimId: string, event: ClaimEvent) => void {
  const revisionOf = sqlite.prepare<[string], { revision: number }>("SELECT revision FROM merchants WHERE ab_id = ?");
  // A claim changes who may edit the merchant, not the merchant's record: the event carries the
  // revision the record is at, which does not move (nothing to publish, no change-feed row).
  const insertEvent = sqlite.prepare(
    `INSERT INTO merchant_events (ab_id, at, actor, action, changes, reason, revision)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return (abId, claimId, event) => {
    const revision = revisionOf.get(abId)?.revision ?? 0;
    const changes =
      event.action === "claimed" ? { claim: { from: null, to: claimId } } : { claim: { from: claimId, to: null } };
    insertEvent.run(abId, event.at, event.actor, event.action, JSON.stringify(changes), event.reason, revision);
  };
}

/**
 * Writes a claim, its audit event and its notice unless the person already holds a live claim on
 * the listing (that one is returned). Synchronous, for the body of a transaction: the space's
 * insertClaim, and the letter store's spend, which records the claim with the letter it spends.
 */
export function claimWriter(
  sqlite: SqliteClient,
): (claim: ClaimRecord, event: ClaimEvent, notice: SpaceNotice) => ClaimRecord {
  const insertClaimRow = sqlite.prepare(
    `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, via, created_at)
     VALUES (@claimId, @abId, @siren, @subject, @email, @via, @createdAt)`,
  );
  const liveClaim = sqlite.prepare<[string, string], ClaimRow>(
    "SELECT * FROM merchant_claims WHERE ab_id = ? AND subject = ? AND revoked_at IS NULL",
  );
  const recordEvent = claimEventWriter(sqlite);
  const writeNotice = noticeWriter(sqlite);
  return (claim, event, notice) => {
    const held = liveClaim.get(claim.abId, claim.subject);
    if (held) return claimOf(held);
    insertClaimRow.run(claim);
    recordEvent(claim.abId, claim.claimId, event);
    writeNotice(notice);
    return claim;
  };
}

/** The merchant space's sessions, sign-ins and claims (the port: src/domain/merchant-space/space-store.ts). */
export function createMerchantSpaceRepository(db: StoreConnection): SpaceStore {
  const sqlite = db.$client;
  const insertSessionRow = sqlite.prepare(
    `INSERT INTO pro_sessions (session_id, token_hash, subject, email, given_name, usual_name, siret, siren, via,
       id_token, created_at, last_seen_at, idle_expires_at, absolute_expires_at)
     VALUES (@sessionId, @tokenHash, @subject, @email, @givenName, @usualName, @siret, @siren, @via,
       @idToken, @createdAt, @lastSeenAt, @idleExpiresAt, @absoluteExpiresAt)`,
  );
  const endByTokenHash = sqlite.prepare(
    "UPDATE pro_sessions SET ended_at = ?, ended_reason = 'replaced' WHERE token_hash = ? AND ended_at IS NULL",
  );
  const sessionByToken = sqlite.prepare<[string], SessionRow>("SELECT * FROM pro_sessions WHERE token_hash = ?");
  const touch = sqlite.prepare(
    "UPDATE pro_sessions SET last_seen_at = ?, idle_expires_at = ? WHERE session_id = ? AND ended_at IS NULL",
  );
  const end = sqlite.prepare(
    "UPDATE pro_sessions SET ended_at = ?, ended_reason = ? WHERE session_id = ? AND ended_at IS NULL",
  );
  const endOfSubject = sqlite.prepare(
    "UPDATE pro_sessions SET ended_at = ?, ended_reason = 'claim_revoked' WHERE subject = ? AND ended_at IS NULL",
  );
  const insertSignInRow = sqlite.prepare(
    `INSERT INTO pro_sign_ins (token_hash, state, nonce, code_verifier, created_at, expires_at)
     VALUES (@tokenHash, @state, @nonce, @codeVerifier, @createdAt, @expiresAt)`,
  );
  // Sign-ins over an hour old are of no use to anyone: deleted as new ones come.
  const forgetOldSignIns = sqlite.prepare("DELETE FROM pro_sign_ins WHERE expires_at < ?");
  const takeSignInRow = sqlite.prepare<[string, string, string], SignInRow>(
    `UPDATE pro_sign_ins SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
     RETURNING *`,
  );
  const listingById = sqlite.prepare<[string], ListingRow>(`SELECT ${LISTING_COLUMNS} FROM merchants WHERE ab_id = ?`);
  const listingsBySiret = sqlite.prepare<[string], ListingRow>(
    `SELECT ${LISTING_COLUMNS} FROM merchants WHERE siret = ? ORDER BY siret`,
  );
  // The SIRETs of one company share its nine first digits: a range on the siret index.
  const listingsBySiren = sqlite.prepare<[string, string], ListingRow>(
    `SELECT ${LISTING_COLUMNS} FROM merchants WHERE siret >= ? AND siret <= ? ORDER BY siret LIMIT 500`,
  );
  const claimById = sqlite.prepare<[string], ClaimRow>("SELECT * FROM merchant_claims WHERE claim_id = ?");
  const claimsBySubject = sqlite.prepare<[string], ClaimRow>(
    "SELECT * FROM merchant_claims WHERE subject = ? ORDER BY created_at DESC, rowid DESC",
  );
  const claimsByListing = sqlite.prepare<[string], ClaimRow>(
    "SELECT * FROM merchant_claims WHERE ab_id = ? ORDER BY created_at, rowid",
  );
  const revoke = sqlite.prepare(
    `UPDATE merchant_claims SET revoked_at = ?, revoked_by = ?, revoked_reason = ?
     WHERE claim_id = ? AND revoked_at IS NULL`,
  );
  const recordEvent = claimEventWriter(sqlite);
  const insertClaimOnce = claimWriter(sqlite);

  const openTransaction = sqlite.transaction((session: SessionRecord, replacing: string | null) => {
    if (replacing !== null) endByTokenHash.run(session.createdAt, replacing);
    insertSessionRow.run({
      sessionId: session.sessionId,
      tokenHash: session.tokenHash,
      ...session.person,
      idToken: session.idToken,
      createdAt: session.createdAt,
      lastSeenAt: session.lastSeenAt,
      idleExpiresAt: session.idleExpiresAt,
      absoluteExpiresAt: session.absoluteExpiresAt,
    });
  });
  const signInTransaction = sqlite.transaction((signIn: SignInRecord) => {
    forgetOldSignIns.run(new Date(Date.parse(signIn.createdAt) - 60 * 60 * 1000).toISOString());
    insertSignInRow.run(signIn);
  });
  const claimTransaction = sqlite.transaction(insertClaimOnce);
  const revokeTransaction = sqlite.transaction(
    (claimId: string, revocation: { at: string; by: string; reason: string }, event: ClaimEvent): boolean => {
      const claim = claimById.get(claimId);
      if (!claim || claim.revoked_at !== null) return false;
      revoke.run(revocation.at, revocation.by, revocation.reason, claimId);
      endOfSubject.run(revocation.at, claim.subject);
      recordEvent(claim.ab_id, claimId, event);
      return true;
    },
  );

  return {
    insertSession: async (session, replacing) => openTransaction.immediate(session, replacing),
    async findSession(hash) {
      const row = sessionByToken.get(hash);
      return row ? sessionOf(row) : null;
    },
    async touchSession(sessionId, lastSeenAt, idleExpiresAt) {
      touch.run(lastSeenAt, idleExpiresAt, sessionId);
    },
    async endSession(sessionId, at, reason) {
      end.run(at, reason, sessionId);
    },
    insertSignIn: async (signIn) => signInTransaction.immediate(signIn),
    async takeSignIn(hash, at) {
      const row = takeSignInRow.get(at, hash, at);
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
      const row = listingById.get(abId);
      return row ? listingOf(row) : null;
    },
    async listingsOf({ siret, siren }) {
      const rows = new Map<string, ListingRow>();
      if (siret !== null) for (const row of listingsBySiret.all(siret)) rows.set(row.ab_id, row);
      if (siren !== null && /^\d{9}$/.test(siren)) {
        for (const row of listingsBySiren.all(`${siren}00000`, `${siren}99999`)) rows.set(row.ab_id, row);
      }
      return [...rows.values()].map(listingOf);
    },
    insertClaim: async (claim, event, notice) => claimTransaction.immediate(claim, event, notice),
    async findClaim(claimId) {
      const row = claimById.get(claimId);
      return row ? claimOf(row) : null;
    },
    claimsOfSubject: async (subject) => claimsBySubject.all(subject).map(claimOf),
    claimsOfListing: async (abId) => claimsByListing.all(abId).map(claimOf),
    revokeClaim: async (claimId, revocation, event) => revokeTransaction.immediate(claimId, revocation, event),
  };
}
