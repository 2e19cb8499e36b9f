import { yearsBetween } from "../domain/calendar.ts";
import { formatAddress } from "../domain/format.ts";
import { buildLeadContract, LEAD_TYPES, type LeadContractField } from "../domain/lead-contract.ts";
import { clusterUrl } from "../domain/links.ts";
import { factConfidence } from "../domain/registry/decision-card.ts";
import { sectorOf } from "../domain/sectors.ts";
import { trustComponents } from "../domain/trust/signal-catalog.ts";
import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import {
  contactBlockedBecause,
  type EvidenceFact,
  evidenceFacts,
  identityBadgeFr,
  identityFact,
  identityWordingFr,
  isBusinessEmail,
} from "./facts.ts";
import {
  BLOCKED_REASON_FR,
  COMPONENT_LABELS_FR,
  formatDateFr,
  formatPriceFr,
  LANGUAGE_LABELS_FR,
  LEAD_TYPE_LABELS_FR,
  PROOF_LABELS_FR,
  STATUS_LABELS_FR,
} from "./format-fr.ts";
import { FAVICON, MICROSITE_STYLESHEET, PRIVACY_PATH, siteFooterLinks } from "./front-door.ts";
import { weekHours } from "./hours.ts";
import { html, jsonForScript, raw, type SafeHtml } from "./html.ts";
import { buildJsonLd } from "./jsonld.ts";
import { leadTypesFor } from "./lead-types.ts";
import type { MerchantView } from "./view.ts";

/** The lead endpoint as the browser calls it: same origin as the page. */
export const LEAD_FORM_ACTION = "/api/contact/brick";

const TRUST_LEVEL_FR: Record<string, string> = {
  certified: "certifié : identité vérifiée et preuves suffisantes",
  verified: "vérifié : identité vérifiée",
  declared: "déclaratif : identité pas encore vérifiée",
};

const CONFIDENCE_FR: Record<string, string> = {
  verified: "réponse vérifiée",
  observed: "réponse contrôlée automatiquement",
  declared: "réponse déclarée par le commerçant, non vérifiée",
};

/**
 * The merchant's human page, `/m/{ab_id}/`, in French: identity, trust score with its four
 * components and the evidence behind each point, products and prices, hours, Q&A, a lead form
 * (JSON to the lead endpoint through a small inline script; without JavaScript it says how else to
 * reach the merchant), the JSON-LD embedded, canonical and alternate links. Plain semantic HTML
 * with landmarks and labels, one stylesheet, no framework.
 */
export function buildMicrosite(view: MerchantView): string {
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
${contactSection(view)}
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

export function renderMicrosite(view: MerchantView): RenderedDocument {
  return renderedDocument(buildMicrosite(view), HTML_TYPE);
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
</dl>
</section>`;
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
<div class="bar" aria-hidden="true"><span style="width: ${Math.round((value / 25) * 100)}%"></span></div>
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
${product.tags.length > 0 ? html`<p class="tags"><span class="visually-hidden">Mots-clés : </span>${product.tags.map((tag) => html`<span class="tag">${tag}</span> `)}</p>` : ""}
</li>`,
      )}</ul>`
}
</section>`;
}

function hoursSection(view: MerchantView): SafeHtml {
  const week = weekHours(view.profile.merchant.hours);
  return html`<section aria-labelledby="horaires">
<h2 id="horaires">Horaires</h2>
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
  const filled = clusters.filter((cluster) => cluster.nodes.length > 0);
  return html`<section aria-labelledby="questions">
<h2 id="questions">Questions fréquentes</h2>
${filled.length === 0 ? html`<p>Aucune question publiée pour le moment.</p>` : ""}
${filled.map(
  (cluster) => html`<div class="cluster">
<h3>${cluster.label}</h3>
${cluster.nodes.map((node) => {
  const confidence = factConfidence(node.factLevel);
  return html`<details id="q-${node.nodeId}">
<summary>${node.question}</summary>
<div class="answer">${node.answer.split(/\n+/).map((paragraph) => html`<p>${paragraph}</p>`)}</div>
<p class="note">${CONFIDENCE_FR[confidence] ?? confidence}${node.humanVerifiedAt ? `, relue le ${formatDateFr(node.humanVerifiedAt)}` : ""}. <a href="${clusterUrl(view.options.baseUrl, cluster.clusterId)}#${node.nodeId}">Source</a></p>
</details>`;
})}
</div>`,
)}
</section>`;
}

function fieldInput(field: LeadContractField, id: string, name: string): SafeHtml {
  const required = field.required ? raw(" required") : "";
  switch (field.type) {
    case "enum":
      return html`<select id="${id}" name="${name}"${required}>${field.required ? "" : html`<option value="">—</option>`}${(field.options ?? []).map((option) => html`<option value="${option}">${LEAD_TYPE_LABELS_FR[option] && name === "lead_type" ? LEAD_TYPE_LABELS_FR[option] : option.replace(/_/g, " ")}</option>`)}</select>`;
    case "boolean":
      return html`<select id="${id}" name="${name}" data-type="boolean"><option value="">—</option><option value="true">Oui</option><option value="false">Non</option></select>`;
    case "number":
      return html`<input id="${id}" name="${name}" type="number" inputmode="numeric" min="0"${field.max !== undefined ? html` max="${field.max}"` : ""} data-type="number"${required}>`;
    case "date":
      return html`<input id="${id}" name="${name}" type="date"${required}>`;
    case "email":
      return html`<input id="${id}" name="${name}" type="email" autocomplete="email"${field.max !== undefined ? html` maxlength="${field.max}"` : ""}${required}>`;
    case "tel":
      return html`<input id="${id}" name="${name}" type="tel" autocomplete="tel"${field.max !== undefined ? html` maxlength="${field.max}"` : ""}${required}>`;
    case "text":
      return html`<textarea id="${id}" name="${name}" rows="5"${field.max !== undefined ? html` maxlength="${field.max}"` : ""}${required}></textarea>`;
    default:
      return html`<input id="${id}" name="${name}" type="text"${name === "contact_name" ? raw(' autocomplete="name"') : ""}${field.max !== undefined ? html` maxlength="${field.max}"` : ""}${required}>`;
  }
}

function fieldRow(field: LeadContractField, name: string): SafeHtml {
  const id = `champ-${name.replace(/[^a-z0-9]+/gi, "-")}`;
  return html`<div class="field">
<label for="${id}">${field.label}${field.required ? html` <span class="required" aria-hidden="true">*</span>` : html` <span class="optional">(facultatif)</span>`}</label>
${fieldInput(field, id, name)}
<p class="field-error" id="${id}-erreur" hidden></p>
</div>`;
}

function contactSection(view: MerchantView): SafeHtml {
  const { profile, assessment, options } = view;
  const { merchant } = profile;
  const state = assessment.capabilities.state;
  if (!state.can_contact) {
    const reasons = contactBlockedBecause(state).map((reason) => BLOCKED_REASON_FR[reason] ?? reason);
    return html`<section aria-labelledby="contact">
<h2 id="contact">Contacter ${merchant.businessName}</h2>
<p>Ce commerçant ne reçoit pas de demandes par Abeille pour le moment${reasons.length > 0 ? ` : ${reasons.join(" ; ")}` : ""}.</p>
${merchant.phone && merchant.status !== "PAUSED" ? html`<p>Vous pouvez l'appeler au <a href="tel:${merchant.phone.replace(/\s+/g, "")}">${merchant.phone}</a>.</p>` : ""}
</section>`;
  }
  const contract = buildLeadContract(options.baseUrl, merchant.sector, merchant.abId, { today: options.now });
  const preferred = leadTypesFor(merchant.sector);
  const leadTypes = [...preferred, ...LEAD_TYPES.filter((type) => !preferred.includes(type))];
  const baseFields = contract.base_fields.map((field) =>
    field.name === "lead_type" ? { ...field, options: leadTypes } : field,
  );
  return html`<section aria-labelledby="contact">
<h2 id="contact">Contacter ${merchant.businessName}</h2>
<p>Votre demande est transmise directement à ce commerçant. Les champs marqués d'un astérisque (<span aria-hidden="true">*</span><span class="visually-hidden">astérisque</span>) sont obligatoires.</p>
<form id="lead-form" class="lead-form" method="post" action="${LEAD_FORM_ACTION}" data-ab-id="${merchant.abId}" data-merchant-name="${merchant.businessName}" novalidate>
${baseFields.map((field) => fieldRow(field, field.name))}
${
  contract.sector_fields.length > 0
    ? html`<fieldset>
<legend>Précisions sur votre demande (facultatif)</legend>
${contract.sector_fields.map((field) => fieldRow(field, `${contract.sector_fields_path}.${field.name}`))}
</fieldset>`
    : ""
}
<p class="privacy">Vos coordonnées sont transmises à ce commerçant pour qu'il vous réponde ; elles ne sont ni publiées ni revendues. Qui les traite, combien de temps et vos droits : <a href="${PRIVACY_PATH}">confidentialité et données personnelles</a>.</p>
<noscript><p class="note">L'envoi du formulaire nécessite JavaScript.${merchant.phone ? html` Vous pouvez aussi appeler le commerçant au <a href="tel:${merchant.phone.replace(/\s+/g, "")}">${merchant.phone}</a>.` : ""}</p></noscript>
<button type="submit" disabled>Envoyer la demande</button>
<div id="lead-status" class="lead-status" role="status" aria-live="polite" tabindex="-1"></div>
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

/**
 * The lead form's behaviour: collects the fields as the lead contract describes them (sector
 * fields under `metadata`, numbers as numbers, yes/no as booleans), posts JSON to the lead
 * endpoint, and says in French what happened: the tracking number on success, the refusal or the
 * fields to correct otherwise. Same for every merchant, so it is a constant.
 */
export const LEAD_FORM_SCRIPT = `(function () {
  var form = document.getElementById("lead-form");
  if (!form || !window.fetch) return;
  var status = document.getElementById("lead-status");
  var button = form.querySelector("button[type=submit]");
  button.disabled = false;
  var MESSAGES = {
    VALIDATION_ERROR: "Certains champs sont à corriger.",
    CONTACT_DISABLED: "Ce commerçant ne peut pas recevoir de demande pour le moment.",
    MERCHANT_NOT_FOUND: "Ce commerçant n'est plus référencé.",
    RATE_LIMITED: "Trop de demandes envoyées depuis votre connexion. Réessayez un peu plus tard.",
    SERVICE_SUSPENDED: "Le service est momentanément indisponible. Réessayez plus tard.",
    PAYLOAD_TOO_LARGE: "Votre message est trop long."
  };
  // The API's field messages are technical English: a person reads them in French.
  function frenchIssue(message) {
    var match;
    if (/^is required$|^must not be empty$/.test(message)) return "Ce champ est obligatoire.";
    if ((match = /^must be at most ([0-9]+) characters$/.exec(message))) return "Ce champ ne doit pas dépasser " + match[1] + " caractères.";
    if (/email address/.test(message)) return "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.";
    if (/phone number/.test(message)) return "Saisissez un numéro de téléphone valide (chiffres, espaces, points ou tirets, + en tête possible).";
    if (/one line|control characters/.test(message)) return "Ce champ contient des caractères non acceptés.";
    if (/^must be one of/.test(message)) return "Choisissez une des valeurs proposées.";
    if (/date/.test(message)) return "Saisissez une date valide.";
    if (/number|integer/.test(message)) return "Saisissez un nombre valide.";
    return "Cette valeur n'est pas acceptée.";
  }
  function localIssue(field) {
    var validity = field.validity;
    if (validity.valueMissing) return "Ce champ est obligatoire.";
    if (validity.tooLong) return "Ce champ ne doit pas dépasser " + field.maxLength + " caractères.";
    if (validity.typeMismatch && field.type === "email") return "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.";
    if (validity.patternMismatch && field.type === "tel") return "Saisissez un numéro de téléphone valide (chiffres, espaces, points ou tirets, + en tête possible).";
    if (validity.rangeUnderflow || validity.rangeOverflow || validity.badInput) return "Saisissez une valeur dans les limites indiquées.";
    return "Cette valeur n'est pas acceptée.";
  }
  function text(tag, value, className) {
    var node = document.createElement(tag);
    node.textContent = value;
    if (className) node.className = className;
    return node;
  }
  function fieldFor(path) {
    return form.elements.namedItem(path);
  }
  function clearErrors() {
    var errors = form.querySelectorAll(".field-error");
    for (var i = 0; i < errors.length; i++) { errors[i].hidden = true; errors[i].textContent = ""; }
    var invalid = form.querySelectorAll("[aria-invalid]");
    for (var j = 0; j < invalid.length; j++) { invalid[j].removeAttribute("aria-invalid"); invalid[j].removeAttribute("aria-describedby"); }
  }
  function markInvalid(path, message) {
    var field = fieldFor(path);
    if (!field || !field.id) return false;
    var error = document.getElementById(field.id + "-erreur");
    field.setAttribute("aria-invalid", "true");
    if (error) { error.textContent = message; error.hidden = false; field.setAttribute("aria-describedby", error.id); }
    return true;
  }
  function collect() {
    var body = { ab_id: form.getAttribute("data-ab-id") };
    var metadata = {};
    for (var i = 0; i < form.elements.length; i++) {
      var field = form.elements[i];
      if (!field.name || field.disabled || field.type === "submit") continue;
      var value = field.value.trim();
      if (value === "") continue;
      var type = field.getAttribute("data-type");
      var typed = type === "number" ? Number(value) : type === "boolean" ? value === "true" : value;
      if (field.name.indexOf("metadata.") === 0) metadata[field.name.slice(9)] = typed;
      else body[field.name] = typed;
    }
    if (Object.keys(metadata).length > 0) body.metadata = metadata;
    return body;
  }
  function localCheck() {
    var ok = true;
    var first = null;
    for (var i = 0; i < form.elements.length; i++) {
      var field = form.elements[i];
      if (!field.name || !field.willValidate || field.checkValidity()) continue;
      markInvalid(field.name, localIssue(field));
      if (!first) first = field;
      ok = false;
    }
    if (first) first.focus();
    return ok;
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearErrors();
    status.className = "lead-status";
    status.textContent = "";
    if (!localCheck()) {
      status.className = "lead-status lead-error";
      status.textContent = "Certains champs sont à corriger.";
      return;
    }
    button.disabled = true;
    status.textContent = "Envoi en cours…";
    fetch(form.getAttribute("action"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(collect())
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (payload) {
        return { response: response, payload: payload };
      });
    }).then(function (result) {
      var payload = result.payload || {};
      var lead = payload.lead_id ? payload : (payload.data || {});
      status.textContent = "";
      if (result.response.ok && payload.success !== false && lead.lead_id) {
        status.className = "lead-status lead-success";
        status.appendChild(text("p", payload.deduplicated
          ? "Vous avez déjà envoyé cette demande il y a moins de 24 heures. Si votre message était nouveau, il y a été ajouté et transmis. Voici son suivi."
          : "Votre demande a bien été transmise à " + form.getAttribute("data-merchant-name") + "."));
        var tracking = text("p", "Numéro de suivi : ");
        tracking.appendChild(text("strong", lead.lead_id, "tracking-id"));
        status.appendChild(tracking);
        if (lead.tracking_token) {
          var token = text("p", "Code de suivi à conserver : ");
          token.appendChild(text("code", lead.tracking_token, "tracking-token"));
          status.appendChild(token);
        }
        form.reset();
      } else {
        var error = payload.error || {};
        status.className = "lead-status lead-error";
        status.appendChild(text("p", MESSAGES[error.code] || "La demande n'a pas pu être envoyée."));
        var issues = payload.data && payload.data.issues ? payload.data.issues : [];
        var unplaced = [];
        for (var i = 0; i < issues.length; i++) {
          var french = frenchIssue(issues[i].message);
          if (!markInvalid(issues[i].path, french)) unplaced.push(french);
        }
        if (unplaced.length > 0) status.appendChild(text("p", unplaced.join(" ")));
        // The technical reference, for the platform team if the person writes to it.
        if (error.code) status.appendChild(text("p", "Référence de l'erreur : " + error.code, "error-detail"));
      }
      status.focus();
    }).catch(function () {
      status.className = "lead-status lead-error";
      status.textContent = "La demande n'a pas pu être envoyée : vérifiez votre connexion et réessayez.";
      status.focus();
    }).then(function () {
      button.disabled = false;
    });
  });
})();`;
