import type { Config } from "../config/config.ts";
import { PEOPLE_FIELD_MAX } from "../schemas/people.ts";
import type { SearchResult } from "../schemas/registry.ts";
import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import { type IdentityCheck, identityStatementFr } from "./facts.ts";
import { openingStatusFr } from "./format-fr.ts";
import { html, type SafeHtml } from "./html.ts";

/**
 * The pages a person meets outside a merchant's page, in French: the front door (`/`, what
 * Abeille is and a search by trade and town), the 404 page (the same search), the privacy notice
 * and the legal notice, which every form collecting personal data links to. One shell for all of
 * them and the merchant pages' footer links (src/publish/microsite.ts uses `siteFooterLinks`).
 */

export const FAVICON = "/favicon.svg";
/** Where the pages' stylesheet is served (public/), relative so a page works on any host. */
export const MICROSITE_STYLESHEET = "/assets/microsite.css";
export const PRIVACY_PATH = "/confidentialite";
export const LEGAL_PATH = "/mentions-legales";

/** What the person typed in the search form (already bounded by the route's schema). */
export interface PeopleQuery {
  metier?: string | undefined;
  ville?: string | undefined;
  /** "1": the « Ouvert maintenant » box ticked. */
  ouvert?: string | undefined;
}

/** What a search for people found: the results, or why there are none. */
export interface PeopleSearch {
  query: PeopleQuery;
  /** The commune the town was read as, when one was given and found. */
  town: { name: string; department: string; radiusKm: number } | null;
  results: SearchResult[];
  /** Each result's identity check by ab_id (absent: never checked). */
  identities: ReadonlyMap<string, IdentityCheck>;
  /** A French sentence when the search could not run as asked (unknown town, nothing typed). */
  notice: string | null;
  /** The instant the search was made at (each result's opening is read at it). */
  now: Date;
}

/** The links every page's footer carries: the notices a form's data is covered by. */
export function siteFooterLinks(): SafeHtml {
  return html`<p class="legal-links"><a href="${PRIVACY_PATH}">Confidentialité et données personnelles</a> · <a href="${LEGAL_PATH}">Mentions légales</a> · <a href="/">Rechercher un commerçant</a></p>`;
}

function page(options: {
  title: string;
  description: string;
  body: SafeHtml;
  robots?: string;
  canonical?: string;
}): string {
  return html`<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<meta name="description" content="${options.description}">
${options.robots ? html`<meta name="robots" content="${options.robots}">` : ""}
${options.canonical ? html`<link rel="canonical" href="${options.canonical}">` : ""}
<link rel="icon" href="${FAVICON}" type="image/svg+xml">
<link rel="stylesheet" href="${MICROSITE_STYLESHEET}">
</head>
<body>
<a class="skip-link" href="#contenu">Aller au contenu</a>
<header class="site-header">
<p class="brand"><a href="/">Abeille</a> <span class="brand-tagline">registre des commerçants vérifiés</span></p>
</header>
<main id="contenu" tabindex="-1">
${options.body}
</main>
<footer class="site-footer">
<p>Abeille, registre des commerçants vérifiés.</p>
${siteFooterLinks()}
</footer>
</body>
</html>
`.value;
}

/** Where a search's results start: the search form's answer opens there, on a phone as on a desk. */
export const RESULTS_ANCHOR = "resultats";

/**
 * The search by trade and town: a GET form to `/`, so a result page has its own address, which
 * opens at the results (`#resultats`): on a phone the page does not open on the form again.
 */
export function searchForm(query: PeopleQuery = {}, headingLevel: 2 | 1 = 2): SafeHtml {
  const heading =
    headingLevel === 1
      ? html`<h1 id="recherche">Trouver un commerçant</h1>`
      : html`<h2 id="recherche">Trouver un commerçant</h2>`;
  return html`<section aria-labelledby="recherche">
${heading}
<form class="search-form" method="get" action="/#${RESULTS_ANCHOR}" role="search">
<div class="field">
<label for="metier">Métier ou produit</label>
<input id="metier" name="metier" type="text" maxlength="${PEOPLE_FIELD_MAX}" value="${query.metier ?? ""}" placeholder="boulangerie, plombier, fleuriste…" autocomplete="off">
</div>
<div class="field">
<label for="ville">Ville ou code postal <span class="optional">(facultatif)</span></label>
<input id="ville" name="ville" type="text" maxlength="${PEOPLE_FIELD_MAX}" value="${query.ville ?? ""}" placeholder="Lyon, 69003…" autocomplete="address-level2">
</div>
<div class="field field-check">
<input id="ouvert" name="ouvert" type="checkbox" value="1"${query.ouvert === "1" ? " checked" : ""}>
<label for="ouvert">Ouvert maintenant</label>
</div>
<button type="submit">Rechercher</button>
</form>
</section>`;
}

function resultsSection(search: PeopleSearch): SafeHtml {
  const where = `${search.town ? ` autour de ${search.town.name} (${search.town.radiusKm} km)` : ""}${search.query.ouvert === "1" ? ", ouverts maintenant" : ""}`;
  const what = search.query.metier ? `« ${search.query.metier} »` : "votre recherche";
  const count = search.results.length;
  return html`<section aria-labelledby="${RESULTS_ANCHOR}">
<h2 id="${RESULTS_ANCHOR}">Résultats</h2>
${search.notice ? html`<p class="note" role="status">${search.notice}</p>` : ""}
<p role="status">${count === 0 ? `Aucun commerçant trouvé pour ${what}${where}.` : `${count} commerçant${count > 1 ? "s" : ""} pour ${what}${where}.`}</p>
${
  count > 0
    ? html`<ol class="results">
${search.results.map(
  (result) => html`<li class="result">
<h3><a href="/m/${result.merchant.ab_id}/">${result.merchant.name}</a></h3>
<p>${result.merchant.trade} · ${result.merchant.address}</p>
<p class="result-identity">${identityStatementFr(search.identities.get(result.merchant.ab_id))}</p>
<p class="result-opening">${openingStatusFr(result.merchant.opening, search.now)}</p>
<p class="result-meta">Score de confiance ${String(result.merchant.trust_score)}/100${
    result.merchant.distance_km !== undefined
      ? ` · à ${result.merchant.distance_km.toLocaleString("fr-FR", { maximumFractionDigits: 1 })} km`
      : ""
  }</p>
</li>`,
)}
</ol>`
    : ""
}
</section>`;
}

function introSection(headingLevel: 1 | 2): SafeHtml {
  const title = "Abeille, le registre des commerçants vérifiés";
  return html`<section aria-labelledby="abeille" class="intro">
${headingLevel === 1 ? html`<h1 id="abeille">${title}</h1>` : html`<h2 id="abeille">${title}</h2>`}
<p>Abeille recense des commerçants et artisans de France et vérifie leur identité auprès des registres officiels (SIRENE, RNE, BODACC). Chaque fiche et chaque résultat de recherche dit si l'identité du commerçant a été vérifiée par un registre officiel, et à quelle date : un commerçant pas encore vérifié est signalé comme tel. Chaque fiche montre aussi un score de confiance, ses preuves avec leur source et leur date, les prestations, les horaires, et permet d'envoyer une demande directement au commerçant, puis de la <a href="/suivi">suivre</a>.</p>
<p>Les assistants IA y trouvent les mêmes informations sous forme de données : <a href="/llms.txt">llms.txt</a>, <a href="/openapi.json">l'API</a> et <a href="/.well-known/mcp.json">le serveur MCP</a>.</p>
</section>`;
}

/**
 * `/`: what Abeille is, then the search. A search's page puts the form and its results first
 * (what Abeille is follows), and opens at the results.
 */
export function renderHomePage(baseUrl: string, search: PeopleSearch | null): RenderedDocument {
  const searched = search !== null;
  const body = search
    ? html`${searchForm(search.query, 1)}
${resultsSection(search)}
${introSection(2)}`
    : html`${introSection(1)}
${searchForm()}`;
  return renderedDocument(
    page({
      title: searched
        ? `Recherche : ${search.query.metier ?? search.query.ville ?? ""} · Abeille`
        : "Abeille · commerçants vérifiés",
      description:
        "Trouvez un commerçant ou un artisan dont l'identité est vérifiée, avec son score de confiance, ses prestations et ses horaires.",
      body,
      ...(searched ? { robots: "noindex" } : { canonical: `${baseUrl}/` }),
    }),
    HTML_TYPE,
  );
}

/**
 * The 404 page (and a page that cannot be shown), with the search so that a person can go on. It
 * says what happened in words: no status or error code is shown to people.
 */
export function buildNotFoundBody(title: string, message: string): SafeHtml {
  return html`<div class="not-found">
<h1>${title}</h1>
<p>${message}</p>
</div>
${searchForm()}`;
}

export function buildPeoplePage(options: { title: string; body: SafeHtml; robots?: string }): string {
  return page({
    title: `${options.title} · Abeille`,
    description: options.title,
    body: options.body,
    ...(options.robots ? { robots: options.robots } : {}),
  });
}

const notGiven = (value: string | null, variable: string) =>
  value ?? `non renseigné (variable ${variable} de la configuration du service)`;

/** The privacy notice (RGPD articles 13 and 14): who, why, on what basis, how long, to whom, rights. */
export function renderPrivacyPage(
  config: Pick<Config, "operator" | "mail" | "leadRetentionMonths" | "baseUrl">,
): RenderedDocument {
  const { operator } = config;
  const contact = config.mail.platformTeamEmail;
  const body = html`<h1>Confidentialité et données personnelles</h1>
<p>Cette page explique ce que deviennent les informations que vous donnez en envoyant une demande à un commerçant par Abeille, ou un message à l'équipe d'Abeille.</p>
<h2>Qui traite vos données</h2>
<p>${operator.name}${operator.address ? `, ${operator.address}` : ""}, qui exploite ce service Abeille, est responsable du traitement des données que vous saisissez dans ses formulaires. Une fois votre demande transmise, le commerçant que vous avez choisi en est destinataire et la traite à son tour pour vous répondre, sous sa propre responsabilité.</p>
<p>Pour toute question ou pour exercer vos droits : <a href="mailto:${contact}">${contact}</a>.</p>
<h2>Quelles données, et pourquoi</h2>
<ul>
<li><strong>Demande à un commerçant</strong> (formulaire d'une fiche, ou envoyée par un assistant IA en votre nom) : votre nom, votre adresse e-mail, votre téléphone si vous le donnez, votre message et les précisions demandées par le commerçant. Elles servent à transmettre votre demande au commerçant et à suivre les échanges ; Abeille ne vous envoie pas de copie de votre demande. La réponse que le commerçant écrit dans son espace Abeille vous est envoyée par e-mail ; elle se lit aussi sur la page de suivi avec votre code de suivi, et l'assistant IA qui a envoyé la demande peut la lire avec ce même code. Base légale : les mesures précontractuelles prises à votre demande (article 6.1.b du RGPD).</li>
<li><strong>Message à l'équipe d'Abeille</strong> : votre nom, votre adresse e-mail, votre téléphone et votre société si vous les donnez, votre message, pour vous répondre. Base légale : notre intérêt légitime à répondre aux messages reçus (article 6.1.f).</li>
<li><strong>Espace professionnel des commerçants</strong> (/pro) : vos nom, prénom, adresse e-mail et les numéros SIRET et SIREN transmis par ProConnect à la connexion, pour vous donner accès aux fiches de votre entreprise et garder trace de qui les gère. Base légale : notre intérêt légitime à réserver la gestion d'une fiche à l'entreprise concernée (article 6.1.f).</li>
<li><strong>Entrée par le code d'un courrier</strong> (/pro/code) : l'adresse e-mail que vous indiquez avec le code, pour vous envoyer ensuite des liens de connexion ; les liens envoyés sont effacés 30 jours après leur expiration. Le code lui-même n'est jamais conservé. Même base légale.</li>
<li><strong>Sécurité</strong> : l'adresse IP de connexion sert à limiter les abus (nombre de requêtes par heure) ; elle n'est pas conservée avec vos demandes.</li>
</ul>
<p>Vos données ne sont ni publiées, ni vendues, ni utilisées pour de la publicité.</p>
<h2>Combien de temps</h2>
<p>Les demandes, leurs messages de suivi, les réponses écrites par le commerçant dans son espace Abeille et les messages à l'équipe sont effacés ${String(config.leadRetentionMonths)} mois après le dernier échange. Le commerçant conserve ce que vous lui avez transmis selon ses propres règles.</p>
<h2>Destinataires</h2>
<p>Le commerçant que vous avez choisi ; l'équipe d'Abeille pour les messages qui lui sont adressés ; le prestataire d'envoi d'e-mails du service, pour l'acheminement.</p>
<h2>Vos droits</h2>
<p>Vous pouvez accéder à vos données, les faire rectifier ou effacer, vous opposer à leur traitement, en demander la limitation ou la portabilité. Écrivez à <a href="mailto:${contact}">${contact}</a> en indiquant l'adresse e-mail utilisée et, si vous l'avez, le numéro de suivi de votre demande ; une réponse vous est faite dans un délai d'un mois. Pour ce que le commerçant a reçu, adressez-vous aussi à lui.</p>
<p>Si vous estimez que vos droits ne sont pas respectés, vous pouvez adresser une réclamation à la CNIL (<a href="https://www.cnil.fr/fr/plaintes">www.cnil.fr</a>).</p>
<h2>Cookies</h2>
<p>Ce site n'utilise aucun outil de mesure d'audience. Il ne dépose de cookie que dans l'espace professionnel des commerçants (/pro), pour les y garder connectés : un cookie de session, strictement nécessaire, effacé à la déconnexion et au plus tard après 12 heures, et, sur les formulaires d'entrée par courrier, un cookie de protection du formulaire (2 heures).</p>`;
  return renderedDocument(buildPeoplePage({ title: "Confidentialité et données personnelles", body }), HTML_TYPE);
}

/** The legal notice (LCEN article 6): the publisher, the director of publication, the host. */
export function renderLegalPage(config: Pick<Config, "operator" | "mail">): RenderedDocument {
  const { operator } = config;
  const contact = config.mail.platformTeamEmail;
  const body = html`<h1>Mentions légales</h1>
<h2>Éditeur</h2>
<p>${operator.name}<br>Adresse : ${notGiven(operator.address, "OPERATOR_ADDRESS")}<br>Contact : <a href="mailto:${contact}">${contact}</a></p>
<h2>Directeur de la publication</h2>
<p>${notGiven(operator.publicationDirector, "OPERATOR_PUBLICATION_DIRECTOR")}</p>
<h2>Hébergeur</h2>
<p>${notGiven(operator.host, "OPERATOR_HOST")}</p>
<h2>Contenus</h2>
<p>Les fiches des commerçants reprennent les données des registres officiels (SIRENE, RNE, BODACC), sous Licence Ouverte, et les informations déclarées par les commerçants, signalées comme telles. Un commerçant peut demander la correction de sa fiche en écrivant à <a href="mailto:${contact}">${contact}</a>.</p>
<h2>Données personnelles</h2>
<p>Voir la page <a href="${PRIVACY_PATH}">Confidentialité et données personnelles</a>.</p>`;
  return renderedDocument(buildPeoplePage({ title: "Mentions légales", body }), HTML_TYPE);
}
