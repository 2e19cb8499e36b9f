import { randomUUID } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { claimBlockOf } from "../merchants/lifecycle.ts";
import { sirenOf } from "../siret.ts";
import type { SpaceDeps, SpaceSession } from "./sessions.ts";
import { claimNotice } from "./space-notices.ts";
import type { ClaimEvent, ClaimRecord, SpaceListing, SpaceNotice, SpacePerson } from "./space-store.ts";

/**
 * Claims: who may manage a listing in the merchant space. A person reaches a listing only when
 * the listing's SIRET is the person's `siret`, or its SIREN the person's `siren` (a company with
 * several establishments); several people of one company may claim one listing. Every claim and
 * revocation is in the merchant's audit log, with the actor.
 */

/** Why a claim is refused; the page words each in French (src/publish/pro/). */
export type ClaimRefusal = "suspended" | "archived" | "revoked";

export class ClaimRefusedError extends ServiceError {
  readonly refusal: ClaimRefusal;
  constructor(abId: string, refusal: ClaimRefusal) {
    super(
      "CONFLICT",
      refusal === "revoked"
        ? `Listing ${abId}: this person's claim was revoked by the operators; it cannot be claimed again from the space`
        : `Listing ${abId} is ${refusal.toUpperCase()}: it cannot be claimed`,
    );
    this.refusal = refusal;
  }
}

/** The audit log's actor for what a merchant does through one claim (the operator's is `operator:<name>`). */
export function merchantActor(claimId: string): string {
  return `merchant:${claimId}`;
}

/** Whether a listing belongs to the establishment or the company the person signed in for. */
export function isPersonsListing(person: SpacePerson, listing: Pick<SpaceListing, "siret">): boolean {
  if (person.siret !== null && listing.siret === person.siret) return true;
  return person.siren !== null && sirenOf(listing.siret) === person.siren;
}

export interface ListingForPerson {
  listing: SpaceListing;
  /** The person's live claim on it, if any. */
  claimId: string | null;
  /** Why it cannot be claimed, if it cannot (and is not already claimed). */
  blocked: ClaimRefusal | null;
}

/**
 * The listings a person can see in the space: those of its establishment and company, each with
 * the person's live claim or why it cannot be claimed. Listings claimed through a letter (no
 * `siret` in the person) come from the claims alone.
 */
export async function listingsForPerson(deps: SpaceDeps, session: SpaceSession): Promise<ListingForPerson[]> {
  const { person } = session;
  const claims = await deps.store.claimsOfSubject(person.subject);
  const live = new Map(claims.filter((claim) => claim.revokedAt === null).map((claim) => [claim.abId, claim]));
  const revoked = new Set(claims.filter((claim) => claim.revokedAt !== null).map((claim) => claim.abId));
  const listings = new Map<string, SpaceListing>();
  for (const listing of await deps.store.listingsOf({ siret: person.siret, siren: person.siren })) {
    if (isPersonsListing(person, listing)) listings.set(listing.abId, listing);
  }
  for (const claim of live.values()) {
    if (listings.has(claim.abId)) continue;
    const listing = await deps.store.listing(claim.abId);
    if (listing) listings.set(listing.abId, listing);
  }
  return [...listings.values()]
    .sort((a, b) => a.siret.localeCompare(b.siret))
    .map((listing) => {
      const claim = live.get(listing.abId) ?? null;
      const blocked = claim ? null : revoked.has(listing.abId) ? "revoked" : claimBlockOf(listing.status);
      return { listing, claimId: claim?.claimId ?? null, blocked };
    });
}

/**
 * Claims a listing for the signed-in person (the ProConnect path). A listing that is not the
 * person's (another company's, unknown) is NOT_FOUND: the space never tells what exists
 * elsewhere. A suspended or archived listing, or one whose claim by this person the operators
 * revoked, is refused (ClaimRefusedError). Claiming a listing already claimed by the person
 * answers the claim held.
 */
export async function createClaim(deps: SpaceDeps, session: SpaceSession, abId: string): Promise<ClaimRecord> {
  const { person } = session;
  const listing = await deps.store.listing(abId);
  if (!listing || !isPersonsListing(person, listing)) {
    throw new ServiceError("NOT_FOUND", `No listing ${abId} among the person's establishments`);
  }
  const held = (await deps.store.claimsOfSubject(person.subject)).filter((claim) => claim.abId === abId);
  const live = held.find((claim) => claim.revokedAt === null);
  if (live) return live;
  if (held.length > 0) throw new ClaimRefusedError(abId, "revoked");
  const block = claimBlockOf(listing.status);
  if (block) throw new ClaimRefusedError(abId, block);
  return recordClaim(deps, {
    abId,
    siren: sirenOf(listing.siret),
    subject: person.subject,
    email: person.email,
    via: person.via,
  });
}

/**
 * Writes a claim, its `claimed` audit event (actor: the claim's merchant actor) and its notice to
 * the lead address and the other claimants (space-notices.ts). The one door for every way a claim
 * is made: the ProConnect path above, and the letter path (pro-letters) once it checked its code.
 */
export async function recordClaim(
  deps: Pick<SpaceDeps, "store" | "now" | "notifyOutbox">,
  claim: Pick<ClaimRecord, "abId" | "siren" | "subject" | "email" | "via">,
): Promise<ClaimRecord> {
  const { record, event, notice } = newClaim(deps, claim);
  const recorded = await deps.store.insertClaim(record, event, notice);
  deps.notifyOutbox?.();
  return recorded;
}

/**
 * A new claim, its `claimed` audit event (actor: the claim's merchant actor) and its notice, not
 * written yet: recordClaim writes them through the space's store, the letter path with the letter
 * it spends.
 */
export function newClaim(
  deps: Pick<SpaceDeps, "now">,
  claim: Pick<ClaimRecord, "abId" | "siren" | "subject" | "email" | "via">,
): { record: ClaimRecord; event: ClaimEvent; notice: SpaceNotice } {
  const at = deps.now().toISOString();
  const claimId = randomUUID();
  const record: ClaimRecord = {
    ...claim,
    claimId,
    createdAt: at,
    revokedAt: null,
    revokedBy: null,
    revokedReason: null,
  };
  return {
    record,
    event: { at, actor: merchantActor(claimId), action: "claimed", reason: `via ${claim.via}` },
    notice: claimNotice(record),
  };
}

/** The person's live claims, each with its listing. */
export async function listClaimsOf(
  deps: SpaceDeps,
  session: SpaceSession,
): Promise<{ claim: ClaimRecord; listing: SpaceListing }[]> {
  const live = (await deps.store.claimsOfSubject(session.person.subject)).filter((claim) => claim.revokedAt === null);
  const held: { claim: ClaimRecord; listing: SpaceListing }[] = [];
  for (const claim of live) {
    const listing = await deps.store.listing(claim.abId);
    if (listing) held.push({ claim, listing });
  }
  return held;
}

/** Every claim on a listing, live and revoked (the operator's `merchants claims`). */
export async function claimsOfListing(deps: Pick<SpaceDeps, "store">, abId: string): Promise<ClaimRecord[]> {
  if (!(await deps.store.listing(abId))) throw new ServiceError("MERCHANT_NOT_FOUND", `No merchant ${abId}`);
  return deps.store.claimsOfListing(abId);
}

/**
 * Revokes a claim (the operator's `merchants revoke-claim`): a reason is required; every session
 * of the claim's person ends at once, and the revocation is in the merchant's audit log.
 */
export async function revokeClaim(
  deps: Pick<SpaceDeps, "store" | "now">,
  claimId: string,
  revocation: { by: string; reason: string },
): Promise<ClaimRecord> {
  const reason = revocation.reason.trim();
  if (reason === "") throw new ServiceError("VALIDATION_ERROR", "A reason is required to revoke a claim (--reason)");
  const claim = await deps.store.findClaim(claimId);
  if (!claim) throw new ServiceError("NOT_FOUND", `No claim ${claimId}`);
  if (claim.revokedAt !== null) {
    throw new ServiceError(
      "CONFLICT",
      `Claim ${claimId} was already revoked at ${claim.revokedAt} by ${claim.revokedBy}`,
    );
  }
  const at = deps.now().toISOString();
  const revoked = await deps.store.revokeClaim(
    claimId,
    { at, by: revocation.by, reason },
    { at, actor: revocation.by, action: "claim_revoked", reason: `claim ${claimId}: ${reason}` },
  );
  if (!revoked) throw new ServiceError("CONFLICT", `Claim ${claimId} was revoked meanwhile`);
  return { ...claim, revokedAt: at, revokedBy: revocation.by, revokedReason: reason };
}

/** What a route of the space gets for a listing the session's person holds a live claim on. */
export interface ClaimedListing {
  abId: string;
  claimId: string;
  /** The audit log's actor for what the merchant does here: `merchant:<claimId>`. */
  actor: string;
  listing: SpaceListing;
}

/**
 * The door of every page of a listing's space: the session's person must hold a live claim on it.
 * Otherwise NOT_FOUND, the same answer as for a listing that does not exist: another merchant's
 * space is never revealed.
 */
export async function requireClaimedListing(
  deps: SpaceDeps,
  session: SpaceSession,
  abId: string,
): Promise<ClaimedListing> {
  const claim = (await deps.store.claimsOfSubject(session.person.subject)).find(
    (held) => held.abId === abId && held.revokedAt === null,
  );
  const listing = claim ? await deps.store.listing(abId) : null;
  if (!claim || !listing) throw new ServiceError("NOT_FOUND", `No listing ${abId} in this merchant space`);
  return { abId, claimId: claim.claimId, actor: merchantActor(claim.claimId), listing };
}
