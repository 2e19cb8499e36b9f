import type { ClaimRefusal, ListingForPerson } from "../../domain/merchant-space/claims.ts";
import type { SpaceSession } from "../../domain/merchant-space/sessions.ts";
import { formatSiret } from "../../domain/siret.ts";
import type { RenderedDocument } from "../document.ts";
import { html, type SafeHtml } from "../html.ts";
import { CLAIM_PATH, csrfField, LETTER_CODE_PATH, listingSpacePath, renderProPage, SIGN_IN_PATH } from "./layout.ts";

/**
 * `/pro`, the merchant space's door. Signed out: what the space is, the ProConnect sign-in (or
 * that it is not configured here) and the letter path. Signed in: the person's listings, and
 * those of its establishment and company it can claim (a POST form with the CSRF token each).
 */

/** Why a listing cannot be claimed, as the person reads it. */
export const CLAIM_REFUSALS_FR: Record<ClaimRefusal, string> = {
  suspended:
    "Cette fiche est suspendue par l'équipe d'Abeille : elle ne peut pas être revendiquée tant que la suspension dure. Écrivez à l'équipe pour en connaître la raison.",
  archived: "Cette fiche est archivée (l'établissement est fermé ou radié) : elle ne peut plus être revendiquée.",
  revoked:
    "Votre accès à cette fiche a été retiré par l'équipe d'Abeille : elle ne peut pas être revendiquée de nouveau depuis cet espace. Écrivez à l'équipe si vous pensez qu'il s'agit d'une erreur.",
};

export function renderSignedOutHome(options: {
  proConnectConfigured: boolean;
  message?: string | null;
}): RenderedDocument {
  const signIn = options.proConnectConfigured
    ? html`<p>Connectez-vous avec <strong>ProConnect</strong>, l'identifiant des professionnels proposé par l'État : vous gérez alors les fiches de l'établissement (SIRET) et de l'entreprise (SIREN) pour lesquels vous vous connectez.</p>
<p><a class="pro-button" href="${SIGN_IN_PATH}">S'identifier avec ProConnect</a></p>
<p class="note"><a href="https://www.proconnect.gouv.fr/" rel="noopener">Qu'est-ce que ProConnect ?</a></p>`
    : html`<p>La connexion avec ProConnect n'est pas configurée sur ce service Abeille : elle n'est pas disponible ici pour le moment.</p>`;
  const body = html`<h1>Espace professionnel</h1>
<p>Commerçants et artisans référencés sur Abeille : revendiquez la fiche de votre établissement pour la compléter et la corriger (adresse e-mail des demandes, horaires, produits et prix, questions fréquentes) et répondre aux demandes de vos clients.</p>
<h2>Se connecter avec ProConnect</h2>
${signIn}
<h2>Sans ProConnect : le code reçu par courrier</h2>
<p>Abeille peut envoyer un code à usage unique par courrier postal, à l'adresse de votre établissement connue de l'INSEE. Si vous avez reçu ce courrier, saisissez votre code.</p>
<p><a href="${LETTER_CODE_PATH}">Saisir le code reçu par courrier</a></p>`;
  return renderProPage({ title: "Espace professionnel", session: null, body, message: options.message ?? null });
}

export function renderSignedInHome(options: {
  session: SpaceSession;
  listings: ListingForPerson[];
  message?: string | null;
}): RenderedDocument {
  const { session, listings } = options;
  const held = listings.filter((item) => item.claimId !== null);
  const others = listings.filter((item) => item.claimId === null);
  const identity = session.person.siret
    ? html`<p>Vous êtes connecté pour l'établissement SIRET ${formatSiret(session.person.siret)}.</p>`
    : "";
  const body = html`<h1>Espace professionnel</h1>
${identity}
<h2>Vos fiches</h2>
${
  held.length === 0
    ? html`<p>Vous ne gérez encore aucune fiche.</p>`
    : html`<ul class="pro-listings">${held.map((item) => heldListing(item))}</ul>`
}
<h2>Fiches de votre entreprise</h2>
${
  others.length === 0
    ? html`<p>${
        listings.length === 0
          ? "Aucune fiche d'Abeille ne correspond à l'établissement ni à l'entreprise de votre compte ProConnect. Si votre établissement est référencé sous un autre SIRET, connectez-vous pour cet établissement, ou demandez un code par courrier."
          : "Toutes les fiches de votre entreprise sont dans votre espace."
      }</p>`
    : html`<ul class="pro-listings">${others.map((item) => claimableListing(session, item))}</ul>`
}`;
  return renderProPage({ title: "Espace professionnel", session, body, message: options.message ?? null });
}

function listingLines(item: ListingForPerson): SafeHtml {
  const { listing } = item;
  return html`<h3>${listing.businessName}</h3>
<p>${listing.street}, ${listing.postalCode} ${listing.city}<br>SIRET ${formatSiret(listing.siret)}</p>`;
}

function heldListing(item: ListingForPerson): SafeHtml {
  return html`<li>${listingLines(item)}
<p><a href="${listingSpacePath(item.listing.abId)}">Gérer la fiche ${item.listing.businessName}</a></p></li>`;
}

function claimableListing(session: SpaceSession, item: ListingForPerson): SafeHtml {
  if (item.blocked) return html`<li>${listingLines(item)}<p>${CLAIM_REFUSALS_FR[item.blocked]}</p></li>`;
  return html`<li>${listingLines(item)}
<form class="pro-form" method="post" action="${CLAIM_PATH}">
${csrfField(session)}
<input type="hidden" name="ab_id" value="${item.listing.abId}">
<button type="submit">Revendiquer la fiche ${item.listing.businessName}</button>
</form></li>`;
}
