import { basisOfReach, merchantActor } from "./claims.ts";
import type { SpaceDeps } from "./sessions.ts";
import type { ClaimRecheck, SpacePerson } from "./space-store.ts";

/**
 * A claim is re-checked at every ProConnect sign-in of its person: ProConnect's `siret` is the
 * organisation the person chose this time, and its `acr` how well it knows the person this time.
 * A claim the new sign-in no longer reaches (basisOfReach: the listing's SIRET, or its SIREN with
 * certification-dirigeant) lapses: its listing's space and leads answer the space's 404 until a
 * sign-in reaches it again (the claim is then restored) or a letter proves the establishment. A
 * claim made through a letter rests on the letter, not on a sign-in: it is not re-checked here.
 * The person's other open sessions that carry another identity end (they would still claim what
 * the provider no longer says).
 */
export async function recheckClaims(deps: Pick<SpaceDeps, "store" | "now">, person: SpacePerson): Promise<void> {
  if (person.via !== "proconnect") return;
  const at = deps.now().toISOString();
  const rechecks: ClaimRecheck[] = [];
  for (const claim of await deps.store.claimsOfSubject(person.subject)) {
    if (claim.revokedAt !== null || claim.via === "letter" || claim.basis === "letter") continue;
    const listing = await deps.store.listing(claim.abId);
    const reach = listing ? basisOfReach(person, listing) : null;
    const wasLapsed = claim.lapsedAt !== null;
    if ((reach !== null) !== wasLapsed) continue;
    const carried = `siret ${person.siret ?? "none"}, acr ${person.acr ?? "none"}`;
    rechecks.push({
      claimId: claim.claimId,
      abId: claim.abId,
      lapsed: reach === null,
      event: {
        at,
        actor: merchantActor(claim.claimId),
        action: reach === null ? "claim_lapsed" : "claim_restored",
        reason:
          reach === null
            ? `sign-in no longer carries the claim's ${claim.basis ?? "siret or siren"} (${carried})`
            : `sign-in carries the claim's ${reach} again (${carried})`,
      },
    });
  }
  await deps.store.recheckClaims(person.subject, person, rechecks, at);
}
