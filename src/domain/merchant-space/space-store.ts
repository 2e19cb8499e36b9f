/**
 * What the merchant space needs from storage (implemented by src/store/merchant-space-repository.ts):
 * sessions of people signed in, sign-ins under way at ProConnect, and claims on listings. Tokens
 * are never stored: only their SHA-256 (`tokenHash`), so a copy of the database opens nothing.
 */

/** How a person got into the space: ProConnect, or a code sent by post (pro-letters). */
export type SpaceVia = "proconnect" | "letter";

/** A person in the space, as its identity provider (or letter code) described it at sign-in. */
export interface SpacePerson {
  /** Stable identifier: ProConnect's `sub`, or the letter path's own. */
  subject: string;
  email: string | null;
  givenName: string | null;
  usualName: string | null;
  /** The establishment the person signed in for (ProConnect's `siret` claim). */
  siret: string | null;
  /** Its company (ProConnect's `siren` claim, or the SIRET's first nine digits). */
  siren: string | null;
  via: SpaceVia;
}

export interface SessionRecord {
  sessionId: string;
  tokenHash: string;
  person: SpacePerson;
  /** ProConnect's ID token, for sign-out's id_token_hint; null for the letter path. */
  idToken: string | null;
  createdAt: string;
  lastSeenAt: string;
  idleExpiresAt: string;
  absoluteExpiresAt: string;
  endedAt: string | null;
}

export type SessionEndReason = "sign_out" | "replaced" | "claim_revoked" | "expired";

export interface SignInRecord {
  tokenHash: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  createdAt: string;
  expiresAt: string;
}

export interface ClaimRecord {
  claimId: string;
  abId: string;
  siren: string;
  subject: string;
  email: string | null;
  via: SpaceVia;
  createdAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
  revokedReason: string | null;
}

/** A listing as the space shows and checks it (its identity, not its declared fields). */
export interface SpaceListing {
  abId: string;
  siret: string;
  businessName: string;
  legalName: string;
  street: string;
  postalCode: string;
  city: string;
  status: string;
}

export type NoticeWhat = "claimed" | "lead_email_changed";

/**
 * A change of who manages a listing or where its leads go, to tell (space-notices.ts says who is
 * told and what it says): written in the transaction of the change.
 */
export interface SpaceNotice {
  abId: string;
  what: NoticeWhat;
  /** When the change was made. */
  at: string;
  /** The claim that acted (the claim made, or the claim that asked the change); null: the operators. */
  byClaimId: string | null;
  /** A lead email change: the address in force before it (the one told), and the new one. */
  fromEmail: string | null;
  toEmail: string | null;
  /** The merchant's change (its lead email confirmation) told, when it waits for this notice. */
  confirmationId: string | null;
}

/** The audit event of a claim or a revocation, written with it in one transaction. */
export interface ClaimEvent {
  at: string;
  actor: string;
  action: "claimed" | "claim_revoked";
  reason: string | null;
}

export interface SpaceStore {
  insertSession(session: SessionRecord, replacingTokenHash: string | null): Promise<void>;
  /** The session whose token has this hash, ended or not (the caller checks expiry). */
  findSession(tokenHash: string): Promise<SessionRecord | null>;
  /** Moves a live session's last use and idle expiry. */
  touchSession(sessionId: string, lastSeenAt: string, idleExpiresAt: string): Promise<void>;
  endSession(sessionId: string, at: string, reason: SessionEndReason): Promise<void>;

  insertSignIn(signIn: SignInRecord): Promise<void>;
  /** Takes a sign-in under way, once: the row is marked used and returned; null if unknown, used or expired. */
  takeSignIn(tokenHash: string, at: string): Promise<SignInRecord | null>;

  listing(abId: string): Promise<SpaceListing | null>;
  /** Listings whose SIRET is this one, or (siren given) whose SIRET starts with this SIREN; archived ones included. */
  listingsOf(identity: { siret: string | null; siren: string | null }): Promise<SpaceListing[]>;

  /**
   * Writes a claim, its audit event and its notice (to the lead address and the other claimants as
   * the transaction reads them, each with its outbox row) in one transaction. A live claim of the
   * same person on the same listing already there: nothing written, that claim returned.
   */
  insertClaim(claim: ClaimRecord, event: ClaimEvent, notice: SpaceNotice): Promise<ClaimRecord>;
  findClaim(claimId: string): Promise<ClaimRecord | null>;
  /** The person's claims, live and revoked, newest first. */
  claimsOfSubject(subject: string): Promise<ClaimRecord[]>;
  /** Every claim on a listing, live and revoked, oldest first. */
  claimsOfListing(abId: string): Promise<ClaimRecord[]>;
  /**
   * Revokes a live claim, ends every open session of its person and writes the audit event, in
   * one transaction; false when the claim is not live (unknown or already revoked).
   */
  revokeClaim(
    claimId: string,
    revocation: { at: string; by: string; reason: string },
    event: ClaimEvent,
  ): Promise<boolean>;
}
