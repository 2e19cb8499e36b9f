import { randomUUID } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { claimBlockOf } from "../merchants/lifecycle.ts";
import { sirenOf } from "../siret.ts";
import { COMPANY_MANAGER_ACR } from "./assurance.ts";
import type { SpaceDeps, SpaceSession } from "./sessions.ts";
import { claimNotice } from "./space-notices.ts";
import type { ClaimEvent, ClaimRecord, PersonKeys, SpaceListing, SpaceNotice, SpacePerson } from "./space-store.ts";

/**
 * Claims: who may manage a listing in the merchant space. A person signed in with ProConnect
 * reaches the listing whose SIRET is the person's `siret` (the organisation it chose at
 * ProConnect); every listing of its company (`siren`) only when ProConnect certified it as a
 * manager of the company (`certification-dirigeant`, assurance.ts). A letter reaches its own
 * establishment. Several people of one company may claim one listing. Every claim, revocation,
 * lapse and restoration is in the merchant's audit log, with the actor.
 */

/** Why a claim is refused or opens nothing; the page words each in French (src/publish/pro/). */
export type ClaimRefusal = "suspended" | "archived" | "revoked" | "lapsed";

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

/**
 * What a person's sign-in reaches a listing on, or null when it does not reach it: its own SIRET,
 * or its company's SIREN when ProConnect certified the person as the company's manager.
 */
export function basisOfReach(person: SpacePerson, listing: Pick<SpaceListing, "siret">): "siret" | "siren" | null {
  if (person.siret !== null && listing.siret === person.siret) return "siret";
  if (person.acr === COMPANY_MANAGER_ACR && person.siren !== null && sirenOf(listing.siret) === person.siren) {
    return "siren";
  }
  return null;
}

/** The keys a person is known by across the space's doors (revocation, the refusal to claim again). */
export function personKeysOf(holder: { subject: string; email: string | null }): PersonKeys {
  return { subjects: [holder.subject], email: holder.email };
}

/** Whether a claim is the person's: the same subject, or the same email address (without case). */
export function isPersonsClaim(claim: Pick<ClaimRecord, "subject" | "email">, person: PersonKeys): boolean {
  if (person.subjects.includes(claim.subject)) return true;
  return person.email !== null && claim.email !== null && claim.email.toLowerCase() === person.email.toLowerCase();
}

/** A claim that opens its listing's space: neither revoked nor lapsed. */
export const isOpenClaim = (claim: Pick<ClaimRecord, "revokedAt" | "lapsedAt">) =>
  claim.revokedAt === null && claim.lapsedAt === null;

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
  const live = new Map(claims.filter(isOpenClaim).map((claim) => [claim.abId, claim]));
  const lapsed = new Set(
    claims.filter((claim) => claim.revokedAt === null && claim.lapsedAt !== null).map((claim) => claim.abId),
  );
  const listings = new Map<string, SpaceListing>();
  const reach = { siret: person.siret, siren: person.acr === COMPANY_MANAGER_ACR ? person.siren : null };
  for (const listing of await deps.store.listingsOf(reach)) {
    if (basisOfReach(person, listing) !== null) listings.set(listing.abId, listing);
  }
  // A revocation holds against the person, whichever door (subject) it signed in by.
  const revoked = new Set(
    (await deps.store.claimsOfPerson(personKeysOf(person)))
      .filter((claim) => claim.revokedAt !== null)
      .map((claim) => claim.abId),
  );
  for (const claim of [...live.values(), ...claims.filter((held) => lapsed.has(held.abId))]) {
    if (listings.has(claim.abId)) continue;
    const listing = await deps.store.listing(claim.abId);
    if (listing) listings.set(listing.abId, listing);
  }
  return [...listings.values()]
    .sort((a, b) => a.siret.localeCompare(b.siret))
    .map((listing) => {
      const claim = live.get(listing.abId) ?? null;
      const blocked = claim
        ? null
        : revoked.has(listing.abId)
          ? "revoked"
          : lapsed.has(listing.abId)
            ? "lapsed"
            : claimBlockOf(listing.status);
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
  const basis = listing ? basisOfReach(person, listing) : null;
  if (!listing || basis === null) {
    throw new ServiceError("NOT_FOUND", `No listing ${abId} among the person's establishments`);
  }
  const theirs = (await deps.store.claimsOfPerson(personKeysOf(person))).filter((claim) => claim.abId === abId);
  const live = theirs.find((claim) => claim.subject === person.subject && claim.revokedAt === null);
  if (live) return live;
  // Revoked under this subject or another door of the same person (another provider's sub, the same email).
  if (theirs.some((claim) => claim.revokedAt !== null)) throw new ClaimRefusedError(abId, "revoked");
  const block = claimBlockOf(listing.status);
  if (block) throw new ClaimRefusedError(abId, block);
  return recordClaim(deps, {
    abId,
    siren: sirenOf(listing.siret),
    subject: person.subject,
    email: person.email,
    via: person.via,
    basis,
    acr: person.acr,
    amr: person.amr,
    idpId: person.idpId,
  });
}

/** What a new claim is made of: the listing, the person, and the proof it rests on. */
export type NewClaimInput = Pick<
  ClaimRecord,
  "abId" | "siren" | "subject" | "email" | "via" | "basis" | "acr" | "amr" | "idpId"
>;

/** The audit log's words for what a claim rests on: `via proconnect; basis siret; acr eidas1; amr pwd; idp_id ...`. */
export function proofReason(proof: Pick<ClaimRecord, "via" | "basis" | "acr" | "amr" | "idpId">): string {
  return [
    `via ${proof.via}`,
    ...(proof.basis ? [`basis ${proof.basis}`] : []),
    ...(proof.acr ? [`acr ${proof.acr}`] : []),
    ...(proof.amr && proof.amr.length > 0 ? [`amr ${proof.amr.join(" ")}`] : []),
    ...(proof.idpId ? [`idp_id ${proof.idpId}`] : []),
  ].join("; ");
}

/**
 * Writes a claim, its `claimed` audit event (actor: the claim's merchant actor) and its notice to
 * the lead address and the other claimants (space-notices.ts). The one door for every way a claim
 * is made: the ProConnect path above, and the letter path (pro-letters) once it checked its code.
 */
export async function recordClaim(
  deps: Pick<SpaceDeps, "store" | "now" | "notifyOutbox">,
  claim: NewClaimInput,
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
  claim: NewClaimInput,
): { record: ClaimRecord; event: ClaimEvent; notice: SpaceNotice } {
  const at = deps.now().toISOString();
  const claimId = randomUUID();
  const record: ClaimRecord = {
    ...claim,
    claimId,
    createdAt: at,
    lapsedAt: null,
    revokedAt: null,
    revokedBy: null,
    revokedReason: null,
  };
  return {
    record,
    event: { at, actor: merchantActor(claimId), action: "claimed", reason: proofReason(claim) },
    notice: claimNotice(record),
  };
}

/** The person's live claims, each with its listing. */
export async function listClaimsOf(
  deps: SpaceDeps,
  session: SpaceSession,
): Promise<{ claim: ClaimRecord; listing: SpaceListing }[]> {
  const live = (await deps.store.claimsOfSubject(session.person.subject)).filter(isOpenClaim);
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
 * Revokes a claim (the operator's `merchants revoke-claim`): a reason is required. The revocation
 * holds against the person, not one door: every live claim on the listing held under the claim's
 * subject or its email address (another provider's `sub`, a letter claim typed with the same
 * address) is revoked with it, every session of those subjects or of that address ends at once, and
 * each revocation is in the merchant's audit log. The person cannot claim the listing again from
 * the space, by any of those doors (createClaim, the letter path).
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
  const person = personKeysOf(claim);
  const sameListing = (await deps.store.claimsOfPerson(person)).filter((held) => held.abId === claim.abId);
  const live = sameListing.filter((held) => held.revokedAt === null && held.claimId !== claimId);
  const subjects = [...new Set([claim.subject, ...live.map((held) => held.subject)])];
  const revoked = await deps.store.revokeClaims(
    [claim, ...live].map((held) => ({
      claimId: held.claimId,
      event: {
        at,
        actor: revocation.by,
        action: "claim_revoked" as const,
        reason:
          held.claimId === claimId
            ? `claim ${claimId}: ${reason}`
            : `claim ${held.claimId}, with ${claimId}: ${reason}`,
      },
    })),
    { at, by: revocation.by, reason },
    { subjects, email: claim.email },
  );
  if (!revoked.includes(claimId)) throw new ServiceError("CONFLICT", `Claim ${claimId} was revoked meanwhile`);
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
 * The door of every page of a listing's space: the session's person must hold a live claim on it,
 * not lapsed by a later sign-in (recheckClaims).
 * Otherwise NOT_FOUND, the same answer as for a listing that does not exist: another merchant's
 * space is never revealed.
 */
export async function requireClaimedListing(
  deps: SpaceDeps,
  session: SpaceSession,
  abId: string,
): Promise<ClaimedListing> {
  const claim = (await deps.store.claimsOfSubject(session.person.subject)).find(
    (held) => held.abId === abId && isOpenClaim(held),
  );
  const listing = claim ? await deps.store.listing(abId) : null;
  if (!claim || !listing) throw new ServiceError("NOT_FOUND", `No listing ${abId} in this merchant space`);
  return { abId, claimId: claim.claimId, actor: merchantActor(claim.claimId), listing };
}
