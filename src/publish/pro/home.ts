import { COMPANY_MANAGER_ACR } from "../../domain/merchant-space/assurance.ts";
import type { ClaimRefusal, ListingForPerson } from "../../domain/merchant-space/claims.ts";
import type { SpaceSession } from "../../domain/merchant-space/sessions.ts";
import { formatSiret } from "../../domain/siret.ts";
import type { RenderedDocument } from "../document.ts";
import { html, type SafeHtml } from "../html.ts";
import { CLAIM_PATH, csrfField, LETTER_CODE_PATH, listingSpacePath, renderProPage, SIGN_IN_PATH } from "./layout.ts";
import { SIGN_IN_LINK_PATH } from "./letter-pages.ts";

/** The sign-in that asks ProConnect for the company manager's certification (every establishment of the company). */
export const COMPANY_MANAGER_SIGN_IN_PATH = `${SIGN_IN_PATH}?niveau=dirigeant`;

/**
 * `/pro`, the merchant space's door. Signed out: what the space is, the ProConnect sign-in (as
 * an employee of the establishment, or as the company's certified manager) and the letter path;
 * where ProConnect is off (a private deployment: docs/deployment.md), the letter path alone, said
 * step by step. Signed in: the person's listings, and those it can claim (a POST form with the
 * CSRF token each).
 */

/** Why a listing cannot be claimed, as the person reads it. */
export const CLAIM_REFUSALS_FR: Record<ClaimRefusal, string> = {
  suspended:
    "Cette fiche est suspendue par l'équipe d'Abeille : elle ne peut pas être revendiquée tant que la suspension dure. Écrivez à l'équipe pour en connaître la raison.",
  archived: "Cette fiche est archivée (l'établissement est fermé ou radié) : elle ne peut plus être revendiquée.",
  revoked:
    "Votre accès à cette fiche a été retiré par l'équipe d'Abeille : elle ne peut pas être revendiquée de nouveau depuis cet espace. Écrivez à l'équipe si vous pensez qu'il s'agit d'une erreur.",
  lapsed:
    "Votre accès à cette fiche est suspendu : votre dernière connexion ProConnect ne porte plus le SIRET de cet établissement (ni, pour un autre établissement de l'entreprise, la certification de dirigeant). Reconnectez-vous pour cet établissement ou en tant que dirigeant, ou entrez avec le code reçu par courrier.",
};

export function renderSignedOutHome(options: {
  proConnectConfigured: boolean;
  /** Where a merchant asks for a letter (PLATFORM_TEAM_EMAIL). */
  teamEmail: string;
  message?: string | null;
}): RenderedDocument {
  const intro = html`<h1>Espace professionnel</h1>
<p>Commerçants et artisans référencés sur Abeille : revendiquez la fiche de votre établissement pour la compléter et la corriger (adresse e-mail des demandes, horaires, produits et prix, questions fréquentes) et répondre aux demandes de vos clients.</p>`;
  const letter = html`<p>Abeille envoie un code à usage unique par courrier postal, à l'adresse de votre établissement connue de l'INSEE (répertoire SIRENE) : recevoir ce courrier prouve que vous agissez pour l'établissement.</p>
<ol>
<li>Vous avez reçu le courrier : <a href="${LETTER_CODE_PATH}">saisissez le code reçu par courrier</a>, avec l'adresse e-mail où vous souhaitez recevoir vos liens de connexion.</li>
<li>Vous avez déjà saisi votre code : <a href="${SIGN_IN_LINK_PATH}">recevez un lien de connexion par e-mail</a>.</li>
<li>Vous n'avez pas reçu de courrier : écrivez à l'équipe d'Abeille (${options.teamEmail}) en indiquant le SIRET de votre établissement ; le courrier part à l'adresse SIRENE, jamais à une autre.</li>
</ol>`;
  const body = options.proConnectConfigured
    ? html`${intro}
<h2>Se connecter avec ProConnect</h2>
<p>Connectez-vous avec <strong>ProConnect</strong>, l'identifiant des professionnels proposé par l'État, pour l'établissement (SIRET) où vous travaillez : vous gérez alors la fiche de cet établissement.</p>
<p><a class="pro-button" href="${SIGN_IN_PATH}">S'identifier avec ProConnect</a></p>
<p>Dirigeant de l'entreprise (inscrit au Registre national des entreprises) ? ProConnect peut le certifier : vous gérez alors les fiches de tous les établissements de l'entreprise (SIREN).</p>
<p><a href="${COMPANY_MANAGER_SIGN_IN_PATH}">S'identifier avec ProConnect en tant que dirigeant</a></p>
<p class="note"><a href="https://www.proconnect.gouv.fr/" rel="noopener">Qu'est-ce que ProConnect ?</a></p>
<h2>Sans ProConnect : le code reçu par courrier</h2>
${letter}`
    : html`${intro}
<h2>Entrer avec le code reçu par courrier</h2>
${letter}
<p class="note">La connexion avec ProConnect n'est pas proposée sur ce service Abeille : le courrier est le moyen d'entrer pour tous les établissements.</p>`;
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
  const manager = session.person.acr === COMPANY_MANAGER_ACR;
  const identity = session.person.siret
    ? html`<p>Vous êtes connecté pour l'établissement SIRET ${formatSiret(session.person.siret)}${
        manager ? ", en tant que dirigeant certifié de l'entreprise" : ""
      }.</p>${
        manager || session.person.via !== "proconnect"
          ? ""
          : html`<p class="note">Pour gérer les autres établissements de l'entreprise, <a href="${COMPANY_MANAGER_SIGN_IN_PATH}">connectez-vous en tant que dirigeant</a>.</p>`
      }`
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
