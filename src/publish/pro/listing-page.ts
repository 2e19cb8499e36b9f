import { parisMoment } from "../../domain/availability/opening.ts";
import type { Merchant, Product, QaCluster, Signal } from "../../domain/merchant.ts";
import type { ScoreAdvice, ScoreStep } from "../../domain/merchant-space/score-advice.ts";
import { answerFactAt } from "../../domain/trust/answer-fact.ts";
import type { MerchantStatus } from "../../schemas/envelope.ts";
import { merchantVocabulary } from "../../schemas/merchant-declaration.ts";
import { answerProofFr, identityCheckAt, identityStatementFr } from "../facts.ts";
import { COMPONENT_LABELS_FR, formatDateFr, STATUS_LABELS_FR } from "../format-fr.ts";
import { html, type SafeHtml } from "../html.ts";
import { leadsPath } from "./leads.ts";
import { EXCEPTIONS_FIELD, exceptionLine, type FormFields, type ListingSection, PRICE_FIELD } from "./listing-form.ts";

/**
 * The merchant's listing in its space (`/pro/{ab_id}`), in French: how agents see it (status,
 * identity check, trust score and what would raise it), then one plain form per section. A form
 * refused comes back with the values typed and a French message beside each field at fault.
 */
export interface ListingSpaceModel {
  merchant: Merchant;
  products: Product[];
  clusters: QaCluster[];
  signals: Signal[];
  advice: ScoreAdvice;
  /** The lead email waiting for its link to be opened, if any. */
  pendingEmail: { email: string; expiresAt: string } | null;
  /** The lead email confirmed, waiting for the notice to the address in force to be sent, if any. */
  waitingEmail: { email: string } | null;
  /** The statuses the merchant may move its listing to (pause, resume). */
  nextStatuses: MerchantStatus[];
  publicUrl: string;
  now: Date;
}

export interface ListingFormState {
  section: ListingSection | null;
  /** French messages by form field. */
  errors: Record<string, string>;
  /** What was typed in the section refused (shown instead of the stored values). */
  values: FormFields | null;
  /** What happened (a change saved, a link sent), or why the form was refused as a whole. */
  notice: { kind: "saved" | "refused"; text: string } | null;
}

export const NO_FORM_STATE: ListingFormState = { section: null, errors: {}, values: null, notice: null };

/** The hidden fields every form of the page carries: the CSRF token and the section. */
export interface FormContext {
  csrfField: string;
  csrfToken: string;
  action: string;
}

export function renderListingBody(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const { merchant } = model;
  return html`<h1>${merchant.businessName}</h1>
${state.notice ? html`<p class="${state.notice.kind === "saved" ? "pro-message" : "pro-message pro-refused"}" role="${state.notice.kind === "saved" ? "status" : "alert"}">${state.notice.text}</p>` : ""}
${summarySection(model)}
${adviceSection(model.advice)}
${officialSection(merchant)}
${contactForm(model, state, form)}
${emailForm(model, state, form)}
${hoursForm(model, state, form)}
${productsForm(model, state, form)}
${voiceForm(model, state, form)}
${questionsSection(model, state, form)}
${statusForm(model, form)}`;
}

function summarySection(model: ListingSpaceModel): SafeHtml {
  const { merchant, advice } = model;
  const identity = identityCheckAt(
    model.signals.find((signal) => signal.key === "siret_verified"),
    model.now.toISOString(),
  );
  return html`<section aria-labelledby="fiche"><h2 id="fiche">Votre fiche telle que la lisent les agents</h2>
<dl>
<dt>Statut</dt><dd>${STATUS_LABELS_FR[merchant.status] ?? merchant.status}</dd>
<dt>Identité</dt><dd>${identityStatementFr(identity)}</dd>
<dt>Score de confiance</dt><dd>${advice.total} / 100 (${LEVEL_FR[advice.level]})</dd>
</dl>
<p><a href="${model.publicUrl}">Voir votre page publique</a> (mise à jour à la prochaine publication du registre).</p>
<p><a href="${leadsPath(merchant.abId)}">Demandes reçues et réponses</a></p>
</section>`;
}

const LEVEL_FR: Record<ScoreAdvice["level"], string> = {
  certified: "certifié",
  verified: "identité vérifiée",
  declared: "déclaratif",
};

const SECTION_TITLES_FR: Record<NonNullable<ScoreStep["spaceSection"]>, string> = {
  coordonnees: "Coordonnées",
  "e-mail": "E-mail des demandes",
  produits: "Produits et services",
  voix: "Voix de marque",
};

function adviceSection(advice: ScoreAdvice): SafeHtml {
  const byWho = (who: ScoreStep["provenBy"]) => advice.steps.filter((step) => step.provenBy === who);
  const item = (step: ScoreStep) =>
    html`<li>${step.labelFr} <span class="note">(${COMPONENT_LABELS_FR[step.component]} : jusqu'à ${step.room} points de plus)</span>${step.spaceSection ? html` — <a href="#${step.spaceSection}">${SECTION_TITLES_FR[step.spaceSection]}</a>` : ""}</li>`;
  const list = (steps: ScoreStep[]) =>
    steps.length === 0 ? html`<p>Rien à ajouter ici.</p>` : html`<ul>${steps.map(item)}</ul>`;
  return html`<section aria-labelledby="score"><h2 id="score">Ce qui ferait monter votre score</h2>
<p>${Object.entries(advice.breakdown).map(([component, points]) => html`${COMPONENT_LABELS_FR[component as ScoreStep["component"]]} ${points}/25. `)}</p>
<h3>Ce que vous renseignez, que la plateforme vérifie</h3>${list(byWho("platform"))}
<h3>Ce que vous déclarez, justificatif à l'appui auprès de l'équipe</h3>${list(byWho("merchant"))}
<h3>Ce que seules les sources officielles prouvent (rien à saisir ici)</h3>${list(byWho("official"))}
</section>`;
}

function officialSection(merchant: Merchant): SafeHtml {
  return html`<section aria-labelledby="officiel"><h2 id="officiel">Informations officielles</h2>
<p>Elles viennent du répertoire SIRENE et des registres officiels : elles ne se modifient pas ici. Si l'une est fausse, corrigez-la auprès de l'INSEE ou du greffe ; la fiche suivra à la prochaine mise à jour.</p>
<dl>
<dt>SIRET</dt><dd>${merchant.siret}</dd>
<dt>Raison sociale</dt><dd>${merchant.legalName}</dd>
<dt>Adresse</dt><dd>${merchant.street}, ${merchant.postalCode} ${merchant.city}</dd>
<dt>Code NAF</dt><dd>${merchant.nafCode}</dd>
<dt>Création</dt><dd>${formatDateFr(merchant.foundedOn)}</dd>
</dl></section>`;
}

/** The value to show in a field: what was typed when this section was refused, else the stored one. */
function shownValue(state: ListingFormState, section: ListingSection, field: string, stored: string): string {
  return state.section === section && state.values ? (state.values[field] ?? "") : stored;
}

function formStart(form: FormContext, section: ListingSection): SafeHtml {
  return html`<form class="pro-form" method="post" action="${form.action}" novalidate>
<input type="hidden" name="${form.csrfField}" value="${form.csrfToken}">
<input type="hidden" name="section" value="${section}">`;
}

interface FieldOptions {
  label: string;
  name: string;
  value: string;
  error: string | undefined;
  hint?: string;
  type?: "text" | "tel" | "url" | "email";
  multiline?: boolean;
  autocomplete?: string;
}

/** A labelled field with its hint and its error (tied to it by aria-describedby). */
function field(options: FieldOptions): SafeHtml {
  const id = `f-${options.name.replace(/[^a-z0-9]+/gi, "-")}`;
  const described = [options.hint ? `${id}-aide` : null, options.error ? `${id}-erreur` : null]
    .filter(Boolean)
    .join(" ");
  const attributes = html` id="${id}" name="${options.name}"${described ? html` aria-describedby="${described}"` : ""}${options.error ? html` aria-invalid="true"` : ""}`;
  return html`<p><label for="${id}">${options.label}</label>
${options.hint ? html`<span class="note" id="${id}-aide">${options.hint}</span>` : ""}
${options.error ? html`<span class="field-error" id="${id}-erreur">${options.error}</span>` : ""}
${options.multiline ? html`<textarea${attributes} rows="4">${options.value}</textarea>` : html`<input${attributes} type="${options.type ?? "text"}" value="${options.value}"${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}>`}</p>`;
}

function contactForm(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const { merchant } = model;
  const at = (name: string, stored: string) => shownValue(state, "coordonnees", name, stored);
  return html`<section aria-labelledby="coordonnees"><h2 id="coordonnees">Coordonnées et présentation</h2>
${formStart(form, "coordonnees")}
${field({ label: "Téléphone", name: "phone", type: "tel", autocomplete: "tel", value: at("phone", merchant.phone ?? ""), error: state.errors.phone, hint: "Au format international, par exemple +33 6 12 34 56 78. Vide : aucun." })}
${field({ label: "Site web", name: "website", type: "url", autocomplete: "url", value: at("website", merchant.website ?? ""), error: state.errors.website })}
${field({ label: "Présentation", name: "description", multiline: true, value: at("description", merchant.description ?? ""), error: state.errors.description, hint: "Vos mots, publiés tels quels (2 000 caractères au plus)." })}
${field({ label: "Langues parlées", name: "languages", value: at("languages", merchant.languages.join(", ")), error: state.errors.languages, hint: `Codes séparés par des virgules, parmi : ${merchantVocabulary.languages.join(", ")}.` })}
${field({ label: "Zones d'intervention", name: "zones", multiline: true, value: at("zones", merchant.zones.join("\n")), error: state.errors.zones, hint: "Un code postal ou une commune par ligne." })}
<p><button type="submit">Enregistrer les coordonnées</button></p>
</form></section>`;
}

function emailForm(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const current = model.merchant.email;
  return html`<section aria-labelledby="e-mail"><h2 id="e-mail">E-mail des demandes</h2>
<p>${current ? html`Les demandes de clients arrivent à <strong>${current}</strong>.` : "Aucune adresse : les demandes ne vous sont pas envoyées par e-mail."}</p>
${model.waitingEmail && current ? html`<p role="status">La nouvelle adresse <strong>${model.waitingEmail.email}</strong> est confirmée : elle sera utilisée dès que le message qui prévient ${current} du changement sera parti. D'ici là, les demandes continuent d'arriver à ${current}.</p>` : ""}
${model.pendingEmail ? html`<p role="status">Un lien de confirmation a été envoyé à <strong>${model.pendingEmail.email}</strong> ; il est valable jusqu'au ${formatDateFr(model.pendingEmail.expiresAt)}. L'adresse sera utilisée une fois le lien ouvert.</p>` : ""}
${formStart(form, "e-mail")}
${field({ label: "Nouvelle adresse", name: "email", type: "email", autocomplete: "email", value: shownValue(state, "e-mail", "email", ""), error: state.errors.email, hint: "Un lien de confirmation y sera envoyé ; d'ici là, rien ne change." })}
<p><button type="submit">Envoyer le lien de confirmation</button></p>
</form></section>`;
}

const DAY_LABELS_FR: Record<string, string> = {
  lundi: "Lundi",
  mardi: "Mardi",
  mercredi: "Mercredi",
  jeudi: "Jeudi",
  vendredi: "Vendredi",
  samedi: "Samedi",
  dimanche: "Dimanche",
};

function hoursForm(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const hours = model.merchant.hours ?? {};
  return html`<section aria-labelledby="horaires"><h2 id="horaires">Horaires d'ouverture</h2>
${formStart(form, "horaires")}
<p class="note">Par jour : des plages comme 09:00-12:30,14:00-18:00, ou « fermé ». Un jour vide n'est pas indiqué.</p>
${merchantVocabulary.days.map((day) =>
  field({
    label: DAY_LABELS_FR[day] ?? day,
    name: `hours.${day}`,
    value: shownValue(state, "horaires", `hours.${day}`, hours[day] ?? ""),
    error: state.errors[`hours.${day}`],
  }),
)}
${field({
  label: "Horaires exceptionnels",
  name: EXCEPTIONS_FIELD,
  multiline: true,
  value: shownValue(state, "horaires", EXCEPTIONS_FIELD, currentExceptions(model).map(exceptionLine).join("\n")),
  error: state.errors[EXCEPTIONS_FIELD],
  hint: "Une par ligne : une date ou deux (du … au …), « : », puis « fermé » ou des plages, et une note entre parenthèses si vous voulez. Par exemple « 24/12/2026 : 09:00-12:00 (veille de Noël) » ou « 03/08/2026 au 23/08/2026 : fermé (congés d'été) ». Un jour férié sans exception est indiqué aux agents comme « horaires non communiqués ». Les exceptions passées ne sont plus affichées.",
})}
<p><button type="submit">Enregistrer les horaires</button></p>
</form></section>`;
}

/** The exceptions that still matter: those not over by the page's day (Paris). */
function currentExceptions(model: ListingSpaceModel) {
  const today = parisMoment(model.now).date;
  return model.merchant.hoursExceptions.filter((exception) => exception.to >= today);
}

const BRICK_LABELS_FR: Record<string, string> = { product: "Produit", service: "Service" };
const PRICING_LABELS_FR: Record<string, string> = {
  fixed: "Prix fixe",
  from: "À partir de",
  hourly: "À l'heure",
  on_quote: "Sur devis",
};

function select(
  id: string,
  name: string,
  label: string,
  options: Record<string, string>,
  value: string,
  error: string | undefined,
): SafeHtml {
  return html`<p><label for="${id}">${label}</label>
${error ? html`<span class="field-error" id="${id}-erreur">${error}</span>` : ""}
<select id="${id}" name="${name}"${error ? html` aria-invalid="true" aria-describedby="${id}-erreur"` : ""}>${Object.entries(options).map(([key, text]) => html`<option value="${key}"${key === value ? " selected" : ""}>${text}</option>`)}</select></p>`;
}

function productsForm(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const typed = state.section === "produits" ? state.values : null;
  const stored = model.products.map((product) => ({
    slug: product.slug,
    name: product.name,
    description: product.description,
    brick_type: product.brickType,
    pricing_model: product.pricingModel,
    [PRICE_FIELD]: product.priceCents === null ? "" : (product.priceCents / 100).toFixed(2).replace(".", ","),
  }));
  const rowCount = typed ? Math.max(stored.length + 1, rowsIn(typed)) : stored.length + 1;
  const rows = Array.from({ length: rowCount }, (_unused, row) => row);
  const productRow = (row: number) => {
    const prefix = `products.${row}.`;
    const at = (name: string): string =>
      typed ? (typed[prefix + name] ?? "") : ((stored[row] as Record<string, string> | undefined)?.[name] ?? "");
    const isNew = !typed ? row >= stored.length : at("slug") === "";
    const id = `p${row}`;
    return html`<fieldset><legend>${isNew ? "Ajouter un produit ou un service" : at("name")}</legend>
<input type="hidden" name="${prefix}slug" value="${at("slug")}">
${field({ label: "Nom", name: `${prefix}name`, value: at("name"), error: state.errors[`${prefix}name`] })}
${field({ label: "Description", name: `${prefix}description`, multiline: true, value: at("description"), error: state.errors[`${prefix}description`], hint: "Obligatoire : ce que comprend le produit ou le service (1 000 caractères au plus)." })}
${select(`${id}-type`, `${prefix}brick_type`, "Type", BRICK_LABELS_FR, at("brick_type") || "product", state.errors[`${prefix}brick_type`])}
${select(`${id}-tarif`, `${prefix}pricing_model`, "Tarif", PRICING_LABELS_FR, at("pricing_model") || "fixed", state.errors[`${prefix}pricing_model`])}
${field({ label: "Prix en euros", name: `${prefix}${PRICE_FIELD}`, value: at(PRICE_FIELD), error: state.errors[`${prefix}${PRICE_FIELD}`], hint: "Par exemple 12,50. Vide : sans prix affiché." })}
${isNew ? "" : html`<p><input type="checkbox" id="${id}-retirer" name="${prefix}remove" value="1"${at("remove") ? " checked" : ""}> <label for="${id}-retirer">Retirer de la fiche</label></p>`}
</fieldset>`;
  };
  return html`<section aria-labelledby="produits"><h2 id="produits">Produits et services</h2>
${formStart(form, "produits")}
${state.section === "produits" && state.errors.products ? html`<p class="field-error">${state.errors.products}</p>` : ""}
${rows.map(productRow)}
<p><button type="submit">Enregistrer les produits</button></p>
</form></section>`;
}

function rowsIn(fields: FormFields): number {
  let count = 0;
  for (const name of Object.keys(fields)) {
    const match = /^products\.(\d{1,3})\./.exec(name);
    if (match) count = Math.max(count, Number(match[1]) + 1);
  }
  return count;
}

function voiceForm(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const voice = model.merchant.brandVoice;
  const at = (name: string, stored: string) => shownValue(state, "voix", name, stored);
  const published =
    state.section === "voix" && state.values
      ? Boolean(state.values["brand_voice.is_published"])
      : voice?.is_published === true;
  return html`<section aria-labelledby="voix"><h2 id="voix">Voix de marque</h2>
<p>Comment les agents doivent parler de vous. Elle n'est lue par les agents que si vous l'approuvez.</p>
${formStart(form, "voix")}
${field({ label: "Ton", name: "brand_voice.tone", value: at("brand_voice.tone", voice?.tone ?? ""), error: state.errors["brand_voice.tone"], hint: "Par exemple : chaleureux et précis." })}
${field({ label: "Valeurs", name: "brand_voice.values", multiline: true, value: at("brand_voice.values", voice?.values.join("\n") ?? ""), error: state.errors["brand_voice.values"], hint: "Une par ligne." })}
${field({ label: "À faire", name: "brand_voice.do", multiline: true, value: at("brand_voice.do", voice?.do.join("\n") ?? ""), error: state.errors["brand_voice.do"], hint: "Une consigne par ligne." })}
${field({ label: "À éviter", name: "brand_voice.dont", multiline: true, value: at("brand_voice.dont", voice?.dont.join("\n") ?? ""), error: state.errors["brand_voice.dont"], hint: "Une consigne par ligne." })}
<p><input type="checkbox" id="voix-approuvee" name="brand_voice.is_published" value="1"${published ? " checked" : ""}> <label for="voix-approuvee">J'approuve cette voix de marque et la publie pour les agents</label></p>
<p><button type="submit">Enregistrer la voix de marque</button></p>
</form></section>`;
}

function questionsSection(model: ListingSpaceModel, state: ListingFormState, form: FormContext): SafeHtml {
  const nodes = model.clusters.flatMap((cluster) => cluster.nodes);
  if (nodes.length === 0) {
    return html`<section aria-labelledby="questions"><h2 id="questions">Questions et réponses</h2><p>Aucune question n'est encore publiée pour votre fiche.</p></section>`;
  }
  const nowIso = model.now.toISOString();
  const typedFor = (nodeId: string) =>
    state.section === "question" && state.values?.node_id === nodeId ? state.values : null;
  return html`<section aria-labelledby="questions"><h2 id="questions">Questions et réponses</h2>
<p>Ce que les agents répondent en votre nom. Validez une réponse exacte, ou corrigez-la : elle sera marquée comme relue ou corrigée par vous. Une réponse que vous corrigez devient votre déclaration : les agents la lisent comme déclarée par vous, jamais comme vérifiée.</p>
${nodes.map((node) => {
  const typed = typedFor(node.nodeId);
  const id = `q-${node.nodeId}`;
  const error = typed ? state.errors.answer : undefined;
  return html`<article aria-labelledby="${id}-titre"><h3 id="${id}-titre">${node.question}</h3>
<p class="note">Les agents lisent : ${answerProofFr(answerFactAt(node, model.signals, nowIso), node)}.</p>
${formStart(form, "question")}
<input type="hidden" name="node_id" value="${node.nodeId}">
<p><label for="${id}">Réponse</label>
${error ? html`<span class="field-error" id="${id}-erreur">${error}</span>` : ""}
<textarea id="${id}" name="answer" rows="4"${error ? html` aria-invalid="true" aria-describedby="${id}-erreur"` : ""}>${typed ? (typed.answer ?? "") : node.answer}</textarea></p>
<p><button type="submit" name="action" value="verify">Valider telle quelle</button> <button type="submit" name="action" value="correct">Enregistrer ma correction</button></p>
</form></article>`;
})}
</section>`;
}

function statusForm(model: ListingSpaceModel, form: FormContext): SafeHtml {
  const target = model.nextStatuses[0];
  const explanation =
    model.merchant.status === "PROBATION"
      ? "Votre fiche est en période probatoire : l'équipe l'active une fois l'identité vérifiée et la présentation relue. La pause sera possible ensuite."
      : "Seule l'équipe peut changer le statut de votre fiche.";
  return html`<section aria-labelledby="statut"><h2 id="statut">Mettre en pause</h2>
${
  target === "PAUSED"
    ? html`<p>En pause, votre fiche reste visible mais indique aux agents qu'elle ne prend pas de demande pour l'instant.</p>${formStart(form, "statut")}<input type="hidden" name="to" value="pause"><p><button type="submit">Mettre ma fiche en pause</button></p></form>`
    : target === "ACTIVE"
      ? html`<p>Votre fiche est en pause.</p>${formStart(form, "statut")}<input type="hidden" name="to" value="resume"><p><button type="submit">Réactiver ma fiche</button></p></form>`
      : html`<p>${explanation}</p>`
}
</section>`;
}
