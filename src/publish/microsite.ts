import { parisMoment } from "../domain/availability/opening.ts";
import { yearsBetween } from "../domain/calendar.ts";
import { formatAddress } from "../domain/format.ts";
import { buildLeadContract, LEAD_TYPES, type LeadContractField, sectorLeadFields } from "../domain/lead-contract.ts";
import { clusterUrl } from "../domain/links.ts";
import type { Signal } from "../domain/merchant.ts";
import { sectorOf } from "../domain/sectors.ts";
import { answerFactAt } from "../domain/trust/answer-fact.ts";
import { officialSources } from "../domain/trust/official-sources.ts";
import { trustComponents } from "../domain/trust/signal-catalog.ts";
import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import {
  answerProofFr,
  contactBlockedBecause,
  type EvidenceFact,
  evidenceFacts,
  identityBadgeFr,
  identityFact,
  identityStatementFr,
  identityWordingFr,
  isBusinessEmail,
  officialSourceFr,
} from "./facts.ts";
import {
  BLOCKED_REASON_FR,
  COMPONENT_LABELS_FR,
  closureStatementFr,
  formatDateFr,
  formatPriceFr,
  hoursExceptionFr,
  LANGUAGE_LABELS_FR,
  LEAD_TYPE_LABELS_FR,
  PROOF_LABELS_FR,
  STATUS_LABELS_FR,
} from "./format-fr.ts";
import { FAVICON, MICROSITE_STYLESHEET, PRIVACY_PATH, siteFooterLinks } from "./front-door.ts";
import { weekHours } from "./hours.ts";
import { html, jsonForScript, raw, type SafeHtml } from "./html.ts";
import { buildJsonLd } from "./jsonld.ts";
import {
  FORM_TOKEN_FIELD,
  LEAD_FORM_SCRIPT,
  LEAD_SENT_FR,
  TRACKING_CODE_FIELD,
  TRACKING_PAGE_PATH,
} from "./lead-form-script.ts";
import { leadTypesFor } from "./lead-types.ts";
import type { MerchantView } from "./view.ts";

/** The lead endpoint as the page's script calls it: same origin as the page. */
export const LEAD_API_PATH = "/api/contact/brick";

/**
 * The lead form of a page: the page's form token (page-form-token.ts), and when the page answers
 * the form posted without JavaScript, what became of it (src/publish/lead-form.ts).
 */
export interface LeadFormState {
  token: string;
  result?: LeadFormResult;
}

export type LeadFormResult =
  | { kind: "sent"; leadId: string; trackingToken: string; deduplicated: boolean }
  | {
      kind: "refused";
      /** Why, in French (never an error code). */
      message: string;
      /** A French message per field name (`contact_email`, `metadata.nb_personnes`). */
      fieldErrors: Readonly<Record<string, string>>;
      /** French messages that belong to no field of the form. */
      otherErrors: readonly string[];
      /** What the person typed, to fill the form again. */
      values: Readonly<Record<string, string>>;
    };

const TRUST_LEVEL_FR: Record<string, string> = {
  certified: "certifié : identité vérifiée et preuves suffisantes",
  verified: "vérifié : identité vérifiée",
  declared: "déclaratif : identité pas encore vérifiée",
};

/**
 * The merchant's human page, `/m/{ab_id}/`, in French: identity (whether an official register
 * verified it, and when), trust score with its four components and the evidence behind each
 * point, products and prices, hours, Q&A, a lead form (an HTML form posted to the page itself,
 * which answers in French; with JavaScript, JSON to the lead endpoint through a small inline
 * script), the JSON-LD embedded, canonical and alternate links. Plain semantic HTML with landmarks
 * and labels, one stylesheet, no framework.
 */
export function buildMicrosite(view: MerchantView, form: LeadFormState): string {
  const { profile, assessment, links, trade } = view;
  const { merchant } = profile;
  const tradeLabel = trade?.label ?? sectorOf(merchant.sector)?.label ?? "Commerce";
  const { breakdown } = assessment.trust;
  const description = merchant.descriptionLlmUnreviewed ? null : merchant.description;
  const metaDescription =
    description ??
    `${tradeLabel} à ${merchant.city}. ${identityBadgeFr(identityFact(evidenceFacts(view)))}, score de confiance ${breakdown.total}/100, prestations, horaires et contact.`;

  const page = html`<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${merchant.businessName} — ${tradeLabel} à ${merchant.city} · Abeille</title>
<meta name="description" content="${metaDescription}">
<link rel="canonical" href="${links.microsite}">
<link rel="alternate" type="text/markdown" href="${links.aiMd}" title="Fiche pour les modèles de langage">
<link rel="alternate" type="application/ld+json" href="${links.jsonld}" title="Données structurées Schema.org">
<meta property="og:type" content="business.business">
<meta property="og:title" content="${merchant.businessName} — ${tradeLabel} à ${merchant.city}">
<meta property="og:url" content="${links.microsite}">
<meta property="og:locale" content="fr_FR">
<link rel="icon" href="${FAVICON}" type="image/svg+xml">
<link rel="stylesheet" href="${MICROSITE_STYLESHEET}">
<script type="application/ld+json">${jsonForScript(buildJsonLd(view))}</script>
</head>
<body>
<a class="skip-link" href="#contenu">Aller au contenu</a>
<header class="site-header">
<p class="brand">Abeille <span class="brand-tagline">registre des commerçants vérifiés</span></p>
<nav aria-label="Sections de la fiche">
<ul>
<li><a href="#confiance">Confiance</a></li>
<li><a href="#offre">Prestations</a></li>
<li><a href="#horaires">Horaires</a></li>
<li><a href="#questions">Questions</a></li>
<li><a href="#contact">Contact</a></li>
</ul>
</nav>
</header>
<main id="contenu" tabindex="-1">
${identitySection(view, tradeLabel, description)}
${trustSection(view)}
${productsSection(view)}
${hoursSection(view)}
${questionsSection(view)}
${contactSection(view, form)}
${dataSection(view)}
</main>
<footer class="site-footer">
<p>Fiche publiée par Abeille, registre des commerçants vérifiés. Informations à jour au ${formatDateFr(view.generatedAt)}.</p>
<p>L'identité provient des registres officiels (SIRENE, BODACC, RNE) ; chaque preuve indique sa source et sa date. Les réponses et descriptions déclarées par le commerçant sont signalées comme telles.</p>
${siteFooterLinks()}
</footer>
${assessment.capabilities.state.can_contact ? raw(`<script>${LEAD_FORM_SCRIPT}</script>`) : ""}
</body>
</html>
`;
  return page.value;
}

export function renderMicrosite(view: MerchantView, form: LeadFormState): RenderedDocument {
  return renderedDocument(buildMicrosite(view, form), HTML_TYPE);
}

function identitySection(view: MerchantView, tradeLabel: string, description: string | null): SafeHtml {
  const { profile, assessment, options } = view;
  const { merchant } = profile;
  const facts = evidenceFacts(view);
  const identity = identityFact(facts);
  const siret = identity?.status === "verified" ? identity : undefined;
  const email = isBusinessEmail(merchant.email, merchant.website) ? merchant.email : null;
  const years = yearsBetween(merchant.foundedOn, options.now);
  return html`<section class="identity" aria-labelledby="identite">
<h1 id="identite">${merchant.businessName}</h1>
<p class="subtitle">${tradeLabel} à ${merchant.city}</p>
<p class="badges">
<span class="badge badge-score">Score de confiance ${assessment.trust.breakdown.total}/100</span>
<span class="badge ${siret ? "badge-ok" : "badge-warn"}">${identityBadgeFr(identity)}</span>
${merchant.status === "ACTIVE" ? "" : html`<span class="badge badge-warn">${STATUS_LABELS_FR[merchant.status] ?? merchant.status}</span>`}
</p>
<p class="identity-check">${identityStatementFr(identity)}</p>
${merchant.closure ? html`<p class="note closure" role="status">${closureStatementFr(merchant.closure)} <a href="${merchant.closure.sourceUrl}">Voir la source</a></p>` : ""}
${description ? html`<p class="description">${description}</p>` : ""}
${merchant.description && merchant.descriptionLlmUnreviewed ? html`<p class="note">La description de cette fiche attend la validation du commerçant : elle n'est pas encore publiée.</p>` : ""}
<dl class="facts">
<div><dt>Raison sociale</dt><dd>${merchant.legalName}</dd></div>
<div><dt>SIRET</dt><dd>${merchant.siret} — ${identity?.evidenceUrl && identity.status !== "unverified" ? html`<a href="${identity.evidenceUrl}">${identityWordingFr(identity)}</a>` : identityWordingFr(identity)}</dd></div>
<div><dt>Activité</dt><dd>${tradeLabel} (NAF ${merchant.nafCode})</dd></div>
<div><dt>Adresse</dt><dd>${formatAddress(merchant)}</dd></div>
${merchant.phone ? html`<div><dt>Téléphone</dt><dd><a href="tel:${merchant.phone.replace(/\s+/g, "")}">${merchant.phone}</a></dd></div>` : ""}
${email ? html`<div><dt>E-mail</dt><dd><a href="mailto:${email}">${email}</a></dd></div>` : ""}
${merchant.website ? html`<div><dt>Site web</dt><dd><a href="${merchant.website}" rel="noopener">${merchant.website.replace(/^https?:\/\//, "")}</a></dd></div>` : ""}
<div><dt>Création</dt><dd>${formatDateFr(merchant.foundedOn)} (${years} ${years > 1 ? "ans" : "an"} d'activité)</dd></div>
${merchant.languages.length > 0 ? html`<div><dt>Langues</dt><dd>${merchant.languages.map((code) => LANGUAGE_LABELS_FR[code] ?? code).join(", ")}</dd></div>` : ""}
${merchant.zones.length > 0 ? html`<div><dt>Zone d'intervention</dt><dd>${merchant.zones.join(", ")}</dd></div>` : ""}
${sourcesItem(profile.signals)}
</dl>
</section>`;
}

/** The official sources that speak for the merchant, and how fresh each is (merchant.sources). */
function sourcesItem(signals: readonly Signal[]): SafeHtml | "" {
  const sources = officialSources(signals);
  if (sources.length === 0) return "";
  const items = sources.map((source) => {
    const { name, statement } = officialSourceFr(source);
    return html`<li>${name} : ${statement}</li>`;
  });
  return html`<div><dt>Sources officielles</dt><dd><ul class="sources">${items}</ul></dd></div>`;
}

function evidenceItem(fact: EvidenceFact): SafeHtml {
  const when = fact.signal.verifiedAt ?? fact.signal.recordedAt;
  const status =
    fact.status === "verified"
      ? `vérifié le ${formatDateFr(when)}`
      : fact.status === "expired"
        ? `expiré le ${formatDateFr(fact.signal.expiresAt)}`
        : "non vérifié";
  return html`<li><span class="evidence-label">${fact.definition.labelFr}</span> <span class="evidence-meta">${status}, ${PROOF_LABELS_FR[fact.proof] ?? fact.proof}${fact.points > 0 ? html`, <strong>+${fact.points} pt${fact.points > 1 ? "s" : ""}</strong>` : ""}</span>${fact.evidenceUrl ? html` <a href="${fact.evidenceUrl}">Voir la preuve<span class="visually-hidden"> : ${fact.definition.labelFr}</span></a>` : ""}</li>`;
}

function trustSection(view: MerchantView): SafeHtml {
  const { assessment, links } = view;
  const { breakdown } = assessment.trust;
  const facts = evidenceFacts(view);
  const components = trustComponents.map((component) => {
    const value = breakdown[component];
    const items = facts.filter(
      (fact) => fact.component === component && (fact.points > 0 || fact.status === "verified"),
    );
    return html`<li class="component">
<h3><span>${COMPONENT_LABELS_FR[component]}</span> <span class="component-score">${value}/25</span></h3>
<meter class="bar" min="0" max="25" value="${value}" aria-hidden="true"></meter>
${items.length > 0 ? html`<ul class="evidence">${items.map(evidenceItem)}</ul>` : html`<p class="note">Aucune preuve enregistrée pour cette composante.</p>`}
</li>`;
  });
  return html`<section aria-labelledby="confiance">
<h2 id="confiance">Score de confiance</h2>
<p class="score"><strong>${breakdown.total}</strong><span>/100</span></p>
<p>Niveau ${TRUST_LEVEL_FR[assessment.trustLevel] ?? assessment.trustLevel}. Le score est la somme de quatre composantes notées sur 25 ; chaque point provient d'une preuve datée, dont la source est indiquée.</p>
<ul class="components">${components}</ul>
<p class="note">Détail machine : <a href="${links.decisionCard}">fiche de décision</a> et <a href="${links.manifest}">manifeste signé</a>.</p>
</section>`;
}

function productsSection(view: MerchantView): SafeHtml {
  const { products } = view.profile;
  return html`<section aria-labelledby="offre">
<h2 id="offre">Prestations et tarifs</h2>
${
  products.length === 0
    ? html`<p>Aucune prestation publiée pour le moment.</p>`
    : html`<ul class="products">${products.map(
        (product) => html`<li id="${product.slug}" class="product">
<h3>${product.name}</h3>
<p class="price">${formatPriceFr(product)}</p>
<p>${product.description}</p>
</li>`,
      )}</ul>`
}
</section>`;
}

function hoursSection(view: MerchantView): SafeHtml {
  const week = weekHours(view.profile.merchant.hours);
  // The exceptions not over on the page's day (Paris): a closure for the holidays, other hours on a date.
  const today = parisMoment(view.options.now).date;
  const exceptions = view.profile.merchant.hoursExceptions.filter((exception) => exception.to >= today);
  return html`<section aria-labelledby="horaires">
<h2 id="horaires">Horaires</h2>
${
  exceptions.length > 0
    ? html`<h3>Horaires exceptionnels</h3>
<ul class="hours-exceptions">${exceptions.map((exception) => html`<li>${hoursExceptionFr(exception)}</li>`)}</ul>`
    : ""
}
${
  !week || week.length === 0
    ? html`<p>Horaires non communiqués.</p>`
    : html`<table class="hours">
<caption class="visually-hidden">Horaires d'ouverture par jour</caption>
<thead><tr><th scope="col">Jour</th><th scope="col">Horaires</th></tr></thead>
<tbody>${week.map(
        (day) =>
          html`<tr><th scope="row">${day.day.charAt(0).toUpperCase()}${day.day.slice(1)}</th><td>${day.ranges.length > 0 ? day.ranges.map((range) => `${range.opens} – ${range.closes}`).join(", ") : day.text}</td></tr>`,
      )}</tbody>
</table>`
}
</section>`;
}

function questionsSection(view: MerchantView): SafeHtml {
  const { clusters } = view.profile;
  const nowIso = view.options.now.toISOString();
  const filled = clusters.filter((cluster) => cluster.nodes.length > 0);
  return html`<section aria-labelledby="questions">
<h2 id="questions">Questions fréquentes</h2>
${filled.length === 0 ? html`<p>Aucune question publiée pour le moment.</p>` : ""}
${filled.map(
  (cluster) => html`<div class="cluster">
<h3>${cluster.label}</h3>
${cluster.nodes.map((node) => {
  const proof = answerProofFr(answerFactAt(node, view.profile.signals, nowIso), node);
  return html`<details id="q-${node.nodeId}">
<summary>${node.question}</summary>
<div class="answer">${node.answer.split(/\n+/).map((paragraph) => html`<p>${paragraph}</p>`)}</div>
<p class="note">${proof.charAt(0).toUpperCase()}${proof.slice(1)}. <a href="${clusterUrl(view.options.baseUrl, cluster.clusterId)}#${node.nodeId}">Source</a></p>
</details>`;
})}
</div>`,
)}
</section>`;
}

/** What a field shows: empty, or what the person typed when the form comes back refused. */
interface FieldState {
  value: string;
  error: string | null;
}

function fieldInput(
  field: LeadContractField,
  id: string,
  name: string,
  state: FieldState,
  optionLabels: Readonly<Record<string, string>>,
): SafeHtml {
  const required = field.required ? raw(" required") : "";
  const invalid = state.error ? html` aria-invalid="true" aria-describedby="${id}-erreur"` : "";
  const value = state.value;
  const option = (code: string, label: string) =>
    html`<option value="${code}"${code === value ? raw(" selected") : ""}>${label}</option>`;
  switch (field.type) {
    case "enum":
      return html`<select id="${id}" name="${name}"${required}${invalid}>${field.required ? "" : option("", "—")}${(field.options ?? []).map((code) => option(code, optionLabels[code] ?? code))}</select>`;
    case "boolean":
      return html`<select id="${id}" name="${name}" data-type="boolean"${invalid}>${option("", "—")}${option("true", "Oui")}${option("false", "Non")}</select>`;
    case "number":
      return html`<input id="${id}" name="${name}" type="number" inputmode="numeric" min="0"${field.max !== undefined ? html` max="${field.max}"` : ""} data-type="number" value="${value}"${required}${invalid}>`;
    case "date":
      return html`<input id="${id}" name="${name}" type="date" value="${value}"${required}${invalid}>`;
    case "email":
      return html`<input id="${id}" name="${name}" type="email" autocomplete="email"${field.max !== undefined ? html` maxlength="${field.max}"` : ""} value="${value}"${required}${invalid}>`;
    case "tel":
      return html`<input id="${id}" name="${name}" type="tel" autocomplete="tel"${field.max !== undefined ? html` maxlength="${field.max}"` : ""} value="${value}"${required}${invalid}>`;
    case "text":
      return html`<textarea id="${id}" name="${name}" rows="5"${field.max !== undefined ? html` maxlength="${field.max}"` : ""}${required}${invalid}>${value}</textarea>`;
    default:
      return html`<input id="${id}" name="${name}" type="text"${name === "contact_name" ? raw(' autocomplete="name"') : ""}${field.max !== undefined ? html` maxlength="${field.max}"` : ""} value="${value}"${required}${invalid}>`;
  }
}

function fieldRow(
  field: LeadContractField,
  name: string,
  result: LeadFormResult | undefined,
  optionLabels: Readonly<Record<string, string>> = {},
): SafeHtml {
  const id = `champ-${name.replace(/[^a-z0-9]+/gi, "-")}`;
  const refused = result?.kind === "refused" ? result : null;
  const state: FieldState = { value: refused?.values[name] ?? "", error: refused?.fieldErrors[name] ?? null };
  return html`<div class="field">
<label for="${id}">${field.label}${field.required ? html` <span class="required" aria-hidden="true">*</span>` : html` <span class="optional">(facultatif)</span>`}</label>
${fieldInput(field, id, name, state, optionLabels)}
${state.error ? html`<p class="field-error" id="${id}-erreur">${state.error}</p>` : html`<p class="field-error" id="${id}-erreur" hidden></p>`}
</div>`;
}

/** The way from a tracking code to the tracking page: a form, so the code stays out of the URL. */
export function trackingForm(trackingToken: string): SafeHtml {
  return html`<form class="tracking-form" method="post" action="${TRACKING_PAGE_PATH}"><input type="hidden" name="${TRACKING_CODE_FIELD}" value="${trackingToken}"><button type="submit">${LEAD_SENT_FR.followButton}</button></form>`;
}

/**
 * What the status region says after the form was posted without JavaScript: the same words the
 * script writes there (lead-form-script.ts).
 */
function leadStatus(merchantName: string, result: LeadFormResult | undefined): SafeHtml {
  const region = (className: string, content: SafeHtml | string) =>
    html`<div id="lead-status" class="${className}" role="status" aria-live="polite" tabindex="-1">${content}</div>`;
  if (!result) return region("lead-status", "");
  if (result.kind === "sent") {
    return region(
      "lead-status lead-success",
      html`<p>${result.deduplicated ? LEAD_SENT_FR.deduplicated : LEAD_SENT_FR.created.replace("{merchant}", merchantName)}</p><p>${LEAD_SENT_FR.trackingNumber}<strong class="tracking-id">${result.leadId}</strong></p><p>${LEAD_SENT_FR.trackingCode}<code class="tracking-token">${result.trackingToken}</code></p><p>${LEAD_SENT_FR.follow}</p>${trackingForm(result.trackingToken)}`,
    );
  }
  return region(
    "lead-status lead-error",
    html`<p>${result.message}</p>${result.otherErrors.length > 0 ? html`<p>${result.otherErrors.join(" ")}</p>` : ""}`,
  );
}

function contactSection(view: MerchantView, form: LeadFormState): SafeHtml {
  const { profile, assessment, options } = view;
  const { merchant } = profile;
  const state = assessment.capabilities.state;
  if (!state.can_contact) {
    const reasons = contactBlockedBecause(state).map((reason) => BLOCKED_REASON_FR[reason] ?? reason);
    return html`<section aria-labelledby="contact">
<h2 id="contact">Contacter ${merchant.businessName}</h2>
${form.result ? leadStatus(merchant.businessName, form.result) : ""}
<p>Ce commerçant ne reçoit pas de demandes par Abeille pour le moment${reasons.length > 0 ? ` : ${reasons.join(" ; ")}` : ""}.</p>
${merchant.phone && merchant.status !== "PAUSED" && !merchant.closure ? html`<p>Vous pouvez l'appeler au <a href="tel:${merchant.phone.replace(/\s+/g, "")}">${merchant.phone}</a>.</p>` : ""}
</section>`;
  }
  const contract = buildLeadContract(options.baseUrl, merchant.sector, merchant.abId, { today: options.now });
  const preferred = leadTypesFor(merchant.sector);
  const leadTypes = [...preferred, ...LEAD_TYPES.filter((type) => !preferred.includes(type))];
  const baseFields = contract.base_fields.map((field) =>
    field.name === "lead_type" ? { ...field, options: leadTypes } : field,
  );
  const sectorLabels = new Map(sectorLeadFields(merchant.sector).map((field) => [field.name, field.optionLabels]));
  // A sent lead leaves the form empty for another request; a refused one keeps what was typed.
  const result = form.result;
  return html`<section aria-labelledby="contact">
<h2 id="contact">Contacter ${merchant.businessName}</h2>
<p>Votre demande est transmise directement à ce commerçant. Les champs marqués d'un astérisque (<span aria-hidden="true">*</span><span class="visually-hidden">astérisque</span>) sont obligatoires.</p>
${leadStatus(merchant.businessName, result)}
<form id="lead-form" class="lead-form" method="post" action="/m/${merchant.abId}/#contact" data-api="${LEAD_API_PATH}" data-ab-id="${merchant.abId}" data-merchant-name="${merchant.businessName}" novalidate>
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${form.token}">
${baseFields.map((field) => fieldRow(field, field.name, result, field.name === "lead_type" ? LEAD_TYPE_LABELS_FR : {}))}
${
  contract.sector_fields.length > 0
    ? html`<fieldset>
<legend>Précisions sur votre demande (facultatif)</legend>
${contract.sector_fields.map((field) => fieldRow(field, `${contract.sector_fields_path}.${field.name}`, result, sectorLabels.get(field.name)))}
</fieldset>`
    : ""
}
<p class="privacy">Vos coordonnées sont transmises à ce commerçant pour qu'il vous réponde ; elles ne sont ni publiées ni revendues. Qui les traite, combien de temps et vos droits : <a href="${PRIVACY_PATH}">confidentialité et données personnelles</a>.</p>
<button type="submit">Envoyer la demande</button>
</form>
</section>`;
}

function dataSection(view: MerchantView): SafeHtml {
  const { links } = view;
  return html`<section aria-labelledby="donnees">
<h2 id="donnees">Données pour les agents et les moteurs</h2>
<ul class="links">
<li><a href="${links.aiMd}" type="text/markdown">Fiche Markdown pour les modèles de langage</a></li>
<li><a href="${links.jsonld}" type="application/ld+json">Données structurées Schema.org (JSON-LD)</a></li>
<li><a href="${links.aiDigest}">Synthèse pour les agents IA</a></li>
<li><a href="${links.decisionCard}">Fiche de décision</a></li>
<li><a href="${links.manifest}">Manifeste de vérification signé (JWS)</a> et <a href="${links.jwks}">clés publiques</a></li>
</ul>
</section>`;
}
