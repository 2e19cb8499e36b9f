import { timingSafeEqual } from "node:crypto";
import { claimBlockOf } from "../merchants/lifecycle.ts";
import { sirenOf } from "../siret.ts";
import { newClaim } from "./claims.ts";
import { checkLetterCode, type LetterCodeRefusal, type LetterDeps } from "./letters.ts";
import { csrfTokenOf, isTokenShaped, openSession, type SpaceDeps, type SpaceSession } from "./sessions.ts";
import { type SignInLinkDeps, takeSignInLink } from "./sign-in-links.ts";
import type { ClaimRecord, SpacePerson } from "./space-store.ts";

/**
 * The letter path into the merchant space (docs/merchant-space.md, "Par courrier"): a right code
 * claims the letter's establishment, and only it, and signs the person in; a sign-in link asked
 * later signs the same person in again.
 *
 * The person of a letter claim is `letter:<letter_id>`, with no SIRET or SIREN: what it may reach
 * comes from its claim alone, never from an identity a code cannot prove (so a letter cannot claim
 * another establishment of the company), and never from the email address typed with the code
 * (anyone can type anyone's address).
 */

/** How many times one code may be typed per hour, whoever types it (the address has its own budget). */
export const LETTER_CODE_TRIES_PER_HOUR = 10;

/** `revoked`: the operators revoked a claim on this listing made with the same email address (by any door). */
export type LetterSignInRefusal = LetterCodeRefusal | "unavailable" | "revoked";

export type LetterSignIn =
  | { ok: true; token: string; session: SpaceSession; claim: ClaimRecord }
  | { ok: false; refusal: LetterSignInRefusal };

export function letterPerson(subject: string, email: string | null): SpacePerson {
  return {
    subject,
    email,
    givenName: null,
    usualName: null,
    siret: null,
    siren: null,
    via: "letter",
    acr: null,
    amr: null,
    idpId: null,
  };
}

/**
 * Checks a typed code and, when right, spends the letter, records the claim of its establishment
 * (`via: "letter"`, in the audit log) in the same transaction, and opens a session (the browser's
 * previous one, `replacing`, ends). A listing suspended or archived since the letter was sent is
 * refused (`unavailable`), the letter left unspent; so is an email address a revoked claim on the
 * listing was made with (`revoked`).
 */
export async function signInWithLetterCode(
  deps: { letters: LetterDeps; space: SpaceDeps },
  input: { code: string; email: string; replacing: string | null },
): Promise<LetterSignIn> {
  const check = await checkLetterCode(deps.letters, input.code);
  if (!check.ok) return { ok: false, refusal: check.refusal };
  const { letter } = check;
  const listing = await deps.space.store.listing(letter.abId);
  if (!listing || claimBlockOf(listing.status) !== null) return { ok: false, refusal: "unavailable" };
  // A person whose claim the operators revoked does not get the listing back through a letter
  // typed with the same address; the letter stays unspent.
  const theirs = await deps.space.store.claimsOfPerson({ subjects: [], email: input.email });
  if (theirs.some((claim) => claim.abId === letter.abId && claim.revokedAt !== null)) {
    return { ok: false, refusal: "revoked" };
  }
  const person = letterPerson(`letter:${letter.letterId}`, input.email);
  const { record, event, notice } = newClaim(deps.space, {
    abId: letter.abId,
    siren: sirenOf(listing.siret),
    subject: person.subject,
    email: input.email,
    via: "letter",
    basis: "letter",
    acr: null,
    amr: null,
    idpId: null,
  });
  const claim = await deps.letters.letters.spend(
    letter.letterId,
    deps.letters.now().toISOString(),
    record,
    event,
    notice,
  );
  if (claim === null) return { ok: false, refusal: "used" };
  deps.space.notifyOutbox?.();
  const { token, session } = await openSession(deps.space, person, { replacing: input.replacing });
  return { ok: true, token, session, claim };
}

/**
 * Signs in with a link from the email (taken once); null for a link unknown, forged, used, expired
 * or whose claim was revoked.
 */
export async function signInWithLink(
  deps: { links: SignInLinkDeps; space: SpaceDeps },
  input: { token: string; replacing: string | null },
): Promise<{ token: string; session: SpaceSession; claim: ClaimRecord } | null> {
  const link = await takeSignInLink(deps.links, input.token);
  if (!link) return null;
  const claim = await deps.space.store.findClaim(link.claimId);
  if (!claim || claim.revokedAt !== null) return null;
  const { token, session } = await openSession(deps.space, letterPerson(claim.subject, claim.email), {
    replacing: input.replacing,
  });
  return { token, session, claim };
}

/**
 * The CSRF token of the forms a person fills in before having a session (the code, the link):
 * bound to a random token the browser holds in a cookie (SameSite=Lax: another site's POST does
 * not carry it), the session's own HMAC over it.
 */
export function formCsrfToken(deps: Pick<SpaceDeps, "csrfSecret">, formCookie: string): string {
  return csrfTokenOf(deps, `form:${formCookie}`);
}

export function isFormCsrfToken(
  deps: Pick<SpaceDeps, "csrfSecret">,
  formCookie: string | null,
  formToken: string | null | undefined,
): boolean {
  if (!isTokenShaped(formCookie) || !isTokenShaped(formToken)) return false;
  return timingSafeEqual(Buffer.from(formToken, "ascii"), Buffer.from(formCsrfToken(deps, formCookie), "ascii"));
}
