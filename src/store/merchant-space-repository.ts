import type {
  ClaimBasis,
  ClaimEvent,
  ClaimRecheck,
  ClaimRecord,
  PersonKeys,
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
  acr: string | null;
  amr: string | null;
  idp_id: string | null;
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
  basis: string | null;
  acr: string | null;
  amr: string | null;
  idp_id: string | null;
  created_at: string;
  lapsed_at: string | null;
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

/** `amr` is kept as a JSON array of strings; anything else reads as null. */
export function amrOf(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : null;
  } catch {
    return null;
  }
}

export const amrText = (amr: string[] | null): string | null => (amr === null ? null : JSON.stringify(amr));

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
    acr: row.acr,
    amr: amrOf(row.amr),
    idpId: row.idp_id,
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
  basis: row.basis as ClaimBasis | null,
  acr: row.acr,
  amr: amrOf(row.amr),
  idpId: row.idp_id,
  createdAt: row.created_at,
  lapsedAt: row.lapsed_at,
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

/** A claim event's `changes`: the claim that now opens the listing (claimed, restored) or no longer does. */
export function claimChanges(claimId: string, event: ClaimEvent): string {
  const opens = event.action === "claimed" || event.action === "claim_restored";
  return JSON.stringify(opens ? { claim: { from: null, to: claimId } } : { claim: { from: claimId, to: null } });
}

/**
 * The SQL of the rows (claims or sessions) held under one of `subjects` or with `email` (without
 * case: the `email_key` column of claims, `lower(email)` for sessions), and its values.
 */
export function personRowsWhere(
  person: PersonKeys,
  placeholder: (index: number) => string,
  emailColumn: "email_key" | "lower(email)",
) {
  const values: (string | null)[] = [...person.subjects];
  const subjects = person.subjects.map((_, index) => placeholder(index + 1));
  const bySubject = subjects.length > 0 ? `subject IN (${subjects.join(", ")})` : "FALSE";
  if (person.email === null) return { where: bySubject, values };
  values.push(person.email.toLowerCase());
  return { where: `(${bySubject} OR ${emailColumn} = ${placeholder(values.length)})`, values };
}

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
    insertEvent.run(abId, event.at, event.actor, event.action, claimChanges(claimId, event), event.reason, revision);
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
    `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, email_key, via, basis, acr, amr, idp_id,
       created_at)
     VALUES (@claimId, @abId, @siren, @subject, @email, @emailKey, @via, @basis, @acr, @amr, @idpId, @createdAt)`,
  );
  const liveClaim = sqlite.prepare<[string, string], ClaimRow>(
    "SELECT * FROM merchant_claims WHERE ab_id = ? AND subject = ? AND revoked_at IS NULL",
  );
  const recordEvent = claimEventWriter(sqlite);
  const writeNotice = noticeWriter(sqlite);
  return (claim, event, notice) => {
    const held = liveClaim.get(claim.abId, claim.subject);
    if (held) return claimOf(held);
    insertClaimRow.run({ ...claim, emailKey: claim.email?.toLowerCase() ?? null, amr: amrText(claim.amr) });
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
       acr, amr, idp_id, id_token, created_at, last_seen_at, idle_expires_at, absolute_expires_at)
     VALUES (@sessionId, @tokenHash, @subject, @email, @givenName, @usualName, @siret, @siren, @via,
       @acr, @amr, @idpId, @idToken, @createdAt, @lastSeenAt, @idleExpiresAt, @absoluteExpiresAt)`,
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
  // The sessions of a subject that carry another identity than its newest sign-in's (IS: equal, nulls included).
  const endOtherIdentities = sqlite.prepare(
    `UPDATE pro_sessions SET ended_at = @at, ended_reason = 'identity_changed'
     WHERE subject = @subject AND ended_at IS NULL AND NOT (siret IS @siret AND siren IS @siren AND acr IS @acr)`,
  );
  const setLapsed = sqlite.prepare(
    "UPDATE merchant_claims SET lapsed_at = ? WHERE claim_id = ? AND revoked_at IS NULL",
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
      amr: amrText(session.person.amr),
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
    (
      claims: readonly { claimId: string; event: ClaimEvent }[],
      revocation: { at: string; by: string; reason: string },
      person: PersonKeys,
    ): string[] => {
      const revoked: string[] = [];
      for (const { claimId, event } of claims) {
        const claim = claimById.get(claimId);
        if (!claim || claim.revoked_at !== null) continue;
        revoke.run(revocation.at, revocation.by, revocation.reason, claimId);
        recordEvent(claim.ab_id, claimId, event);
        revoked.push(claimId);
      }
      if (revoked.length > 0) {
        const { where, values } = personRowsWhere(person, () => "?", "lower(email)");
        sqlite
          .prepare(
            `UPDATE pro_sessions SET ended_at = ?, ended_reason = 'claim_revoked' WHERE ended_at IS NULL AND ${where}`,
          )
          .run(revocation.at, ...values);
      }
      return revoked;
    },
  );
  const recheckTransaction = sqlite.transaction(
    (
      subject: string,
      identity: { siret: string | null; siren: string | null; acr: string | null },
      rechecks: readonly ClaimRecheck[],
      at: string,
    ) => {
      for (const recheck of rechecks) {
        if (setLapsed.run(recheck.lapsed ? at : null, recheck.claimId).changes === 1) {
          recordEvent(recheck.abId, recheck.claimId, recheck.event);
        }
      }
      endOtherIdentities.run({ at, subject, siret: identity.siret, siren: identity.siren, acr: identity.acr });
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
    async claimsOfPerson(person) {
      const { where, values } = personRowsWhere(person, () => "?", "email_key");
      return sqlite
        .prepare<(string | null)[], ClaimRow>(`SELECT * FROM merchant_claims WHERE ${where} ORDER BY created_at, rowid`)
        .all(...values)
        .map(claimOf);
    },
    claimsOfListing: async (abId) => claimsByListing.all(abId).map(claimOf),
    revokeClaims: async (claims, revocation, person) => revokeTransaction.immediate(claims, revocation, person),
    recheckClaims: async (subject, identity, rechecks, at) =>
      recheckTransaction.immediate(subject, identity, rechecks, at),
  };
}
