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
  /** How well ProConnect knows the person (the ID token's `acr`, assurance.ts); null for the letter path. */
  acr: string | null;
  /** How the person authenticated (the ID token's `amr`: pwd, mail, otp, mfa ...); null when not sent. */
  amr: string[] | null;
  /** The identity provider ProConnect used (its `idp_id`); null for the letter path or when not sent. */
  idpId: string | null;
}

/** What the identity a claim was made on is, so that a later sign-in can be checked against it. */
export type ClaimBasis =
  /** The person's ProConnect `siret` was the listing's. */
  | "siret"
  /** The person is a certified manager of the listing's company (certification-dirigeant) and its `siren` was the listing's. */
  | "siren"
  /** A code posted to the establishment's SIRENE address. */
  | "letter";

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

/**
 * `identity_changed`: a newer ProConnect sign-in of the same person carried another identity
 * (SIRET, SIREN or assurance level): the older sessions no longer say what the provider says.
 */
export type SessionEndReason = "sign_out" | "replaced" | "claim_revoked" | "expired" | "identity_changed";

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
  /** What the claim rests on; null for claims made before it was recorded (issue 36). */
  basis: ClaimBasis | null;
  /** The proof's assurance, authentication methods and identity provider (ProConnect's); null for a letter. */
  acr: string | null;
  amr: string[] | null;
  idpId: string | null;
  createdAt: string;
  /**
   * Set when a later sign-in of the person no longer carried what the claim rests on: the claim
   * opens nothing until a sign-in carries it again (then cleared).
   */
  lapsedAt: string | null;
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

/** The audit event of a claim, a revocation, a lapse or a restoration, written with it in one transaction. */
export interface ClaimEvent {
  at: string;
  actor: string;
  action: "claimed" | "claim_revoked" | "claim_lapsed" | "claim_restored";
  reason: string | null;
}

/** A claim a sign-in's re-check lapses (`lapsed`) or restores (`!lapsed`), with its audit event. */
export interface ClaimRecheck {
  claimId: string;
  abId: string;
  lapsed: boolean;
  event: ClaimEvent;
}

/** Who a person is across the doors of the space: its subject, and its email address (compared without case). */
export interface PersonKeys {
  subjects: string[];
  email: string | null;
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
  /** The claims held under one of these subjects or with this email address (without case), live and revoked, oldest first. */
  claimsOfPerson(person: PersonKeys): Promise<ClaimRecord[]>;
  /** Every claim on a listing, live and revoked, oldest first. */
  claimsOfListing(abId: string): Promise<ClaimRecord[]>;
  /**
   * Revokes the live claims among `claims` (each with its audit event), and ends every open
   * session of the person (any of its subjects, or its email address without case), in one
   * transaction; answers the ids it revoked (a claim revoked meanwhile is not among them).
   */
  revokeClaims(
    claims: readonly { claimId: string; event: ClaimEvent }[],
    revocation: { at: string; by: string; reason: string },
    person: PersonKeys,
  ): Promise<string[]>;
  /**
   * A ProConnect sign-in's re-check, in one transaction: lapses or restores the claims (each
   * still live, with its audit event), and ends the subject's open sessions whose identity
   * (SIRET, SIREN, acr) is not the new sign-in's.
   */
  recheckClaims(
    subject: string,
    identity: Pick<SpacePerson, "siret" | "siren" | "acr">,
    rechecks: readonly ClaimRecheck[],
    at: string,
  ): Promise<void>;
}
