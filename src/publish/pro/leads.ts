import { frenchDateTime } from "../../domain/leads/email-format.ts";
import { intentRows, sectorLabel, sectorRows } from "../../domain/leads/lead-labels.ts";
import type { LeadMessageRecord, MerchantLead, MerchantLeadStatus } from "../../domain/leads/lead-store.ts";
import type { MerchantLeadPage } from "../../domain/leads/merchant-leads.ts";
import { leadPath, leadsPath } from "../../domain/merchant-space/lead-paths.ts";
import { LEAD_ANSWER_MAX, LEAD_RESPONSE_OUTCOMES, type LeadResponse } from "../../schemas/leads.ts";
import { CSRF_FIELD } from "../../schemas/merchant-space.ts";
import { LEAD_TYPE_LABELS_FR } from "../format-fr.ts";
import { html, type SafeHtml } from "../html.ts";
import { listingSpacePath } from "./layout.ts";

/*
 * The leads of a listing in the merchant space (issue 25), in French: the list
 * (/pro/{ab_id}/demandes) and one lead with its answer form (/pro/{ab_id}/demandes/{lead_id}).
 * Bodies only: the space's layout (renderProPage) wraps them.
 */

export { leadPath, leadsPath } from "../../domain/merchant-space/lead-paths.ts";

const MERCHANT_STATUS_FR: Record<MerchantLeadStatus | "open", string> = {
  open: "À traiter",
  answered: "Répondue",
  handled: "Traitée",
  declined: "Déclinée",
};

const OUTCOME_FR: Record<LeadResponse["outcome"], string> = {
  answered: "Envoyer la réponse ; la demande reste ouverte",
  handled: "Marquer la demande comme traitée (avec la réponse, si vous en écrivez une)",
  declined: "Décliner la demande (avec la réponse, si vous en écrivez une)",
};

/** What the person reads after the merchant's action (the page it is sent back to, `?fait=`). */
export const DONE_NOTICES_FR: Record<string, string> = {
  answered: "Votre réponse est enregistrée ; elle part par e-mail à la personne dans quelques instants.",
  handled: "La demande est marquée comme traitée.",
  declined: "La demande est marquée comme déclinée.",
};

function statusLabel(lead: Pick<MerchantLead, "merchantStatus">): string {
  return MERCHANT_STATUS_FR[lead.merchantStatus ?? "open"];
}

/** Whether the lead's email reached the merchant's mailbox: a lead it did not get is only here. */
function deliveryLabel(trackingStatus: string): string {
  if (trackingStatus === "delivered") return "reçue aussi par e-mail";
  if (trackingStatus === "failed") return "e-mail non remis : elle n'est qu'ici";
  return "e-mail en cours d'envoi";
}

const typeLabel = (leadType: string) => LEAD_TYPE_LABELS_FR[leadType] ?? "Demande";

function excerpt(text: string | null, max = 140): string {
  if (!text) return "";
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function renderLeadListBody(abId: string, listingName: string, page: MerchantLeadPage): SafeHtml {
  const items = page.leads.map(
    (lead) => html`<li class="pro-lead">
<h2><a href="${leadPath(abId, lead.leadId)}">${typeLabel(lead.leadType)} du ${frenchDateTime(lead.createdAt)}</a></h2>
<p><strong class="pro-lead-status">${statusLabel(lead)}</strong> · ${deliveryLabel(lead.trackingStatus)}${lead.followUpsCount > 0 ? ` · ${lead.followUpsCount} message${lead.followUpsCount > 1 ? "s" : ""} complémentaire${lead.followUpsCount > 1 ? "s" : ""}` : ""}${lead.answersCount > 0 ? ` · ${lead.answersCount} réponse${lead.answersCount > 1 ? "s" : ""}` : ""}</p>
${
  lead.anonymizedAt !== null
    ? html`<p class="note">Demande anonymisée : ses coordonnées et son texte ont été effacés au terme de leur durée de conservation.</p>`
    : html`<p>${lead.contactName}${lead.message ? html` : « ${excerpt(lead.message)} »` : ""}</p>`
}
</li>`,
  );
  const pager =
    page.pages > 1
      ? html`<nav class="pager" aria-label="Pages des demandes">
${page.page > 1 ? html`<a rel="prev" href="${leadsPath(abId)}?page=${String(page.page - 1)}">Demandes plus récentes</a>` : ""}
<span>Page ${String(page.page)} sur ${String(page.pages)}</span>
${page.page < page.pages ? html`<a rel="next" href="${leadsPath(abId)}?page=${String(page.page + 1)}">Demandes plus anciennes</a>` : ""}
</nav>`
      : "";
  return html`<section aria-labelledby="demandes">
<p><a href="${listingSpacePath(abId)}">← La fiche ${listingName}</a></p>
<h1 id="demandes">Demandes reçues par ${listingName}</h1>
<p>${page.total === 0 ? "Aucune demande reçue pour le moment." : `${page.total} demande${page.total > 1 ? "s" : ""}, les plus récentes d'abord.`}</p>
${items.length > 0 ? html`<ol class="pro-leads">${items}</ol>` : ""}
${pager}
</section>`;
}

export interface LeadFormState {
  csrfToken: string;
  /** What the merchant typed, shown again with the errors. */
  answer?: string;
  outcome?: string;
  /** French messages by field (answer, outcome), from a refused form. */
  errors?: Record<string, string>;
  /** A notice after a response was recorded (DONE_NOTICES_FR). */
  notice?: string;
}

function messageItem(message: LeadMessageRecord, contactName: string): SafeHtml {
  const mine = message.direction === "merchant_to_person";
  const who = mine ? "Votre réponse" : `Message complémentaire de ${contactName}`;
  const delivery = mine
    ? message.delivery === "sent"
      ? "envoyée par e-mail"
      : message.delivery === "failed"
        ? "e-mail non remis"
        : "e-mail en cours d'envoi"
    : "";
  return html`<li class="${mine ? "pro-exchange pro-answer" : "pro-exchange"}">
<p class="note">${who}, le ${frenchDateTime(message.createdAt)}${delivery ? ` (${delivery})` : ""}</p>
${message.anonymizedAt !== null ? html`<p class="note">Texte effacé au terme de sa durée de conservation.</p>` : html`<blockquote class="answer-text">${message.body}</blockquote>`}
</li>`;
}

function detailRows(lead: MerchantLead): { label: string; value: string }[] {
  const rows = [...intentRows(lead.intentData), ...sectorRows(lead.merchantSector, lead.metadata)];
  if (lead.brickName) rows.unshift({ label: "Prestation concernée", value: lead.brickName });
  return rows;
}

function answerForm(abId: string, lead: MerchantLead, state: LeadFormState): SafeHtml {
  const errors = state.errors ?? {};
  const chosen = state.outcome ?? "answered";
  const outcomes = LEAD_RESPONSE_OUTCOMES.map(
    (outcome) => html`<div class="choice">
<input type="radio" id="outcome-${outcome}" name="outcome" value="${outcome}"${chosen === outcome ? html` checked` : ""}>
<label for="outcome-${outcome}">${OUTCOME_FR[outcome]}</label>
</div>`,
  );
  return html`<form class="pro-form" method="post" action="${leadPath(abId, lead.leadId)}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${state.csrfToken}">
<div class="field">
<label for="answer">Votre réponse à ${lead.contactName}</label>
<textarea id="answer" name="answer" rows="8" maxlength="${String(LEAD_ANSWER_MAX)}"${errors.answer ? html` aria-invalid="true" aria-describedby="answer-error"` : ""}>${state.answer ?? ""}</textarea>
${errors.answer ? html`<p id="answer-error" class="lead-status lead-error">${errors.answer}</p>` : ""}
<p class="note">Elle part par e-mail à ${lead.contactEmail} ; sa réponse vous reviendra à l'adresse de votre fiche. Au plus ${String(LEAD_ANSWER_MAX)} caractères.</p>
</div>
<fieldset${errors.outcome ? html` aria-describedby="outcome-error"` : ""}>
<legend>Et ensuite</legend>
${outcomes}
${errors.outcome ? html`<p id="outcome-error" class="lead-status lead-error">${errors.outcome}</p>` : ""}
</fieldset>
<button type="submit">Enregistrer</button>
</form>`;
}

export function renderLeadDetailBody(
  abId: string,
  found: { lead: MerchantLead; messages: LeadMessageRecord[] },
  state: LeadFormState,
): SafeHtml {
  const { lead, messages } = found;
  const anonymized = lead.anonymizedAt !== null;
  const details = detailRows(lead);
  const sector = sectorLabel(lead.merchantSector);
  return html`<section aria-labelledby="demande">
<p><a href="${leadsPath(abId)}">← Toutes les demandes</a></p>
<h1 id="demande">${typeLabel(lead.leadType)} du ${frenchDateTime(lead.createdAt)}</h1>
${state.notice ? html`<p class="lead-status lead-success" role="status">${state.notice}</p>` : ""}
<dl class="facts">
<div><dt>État</dt><dd class="pro-lead-status">${statusLabel(lead)}${lead.merchantStatusAt ? `, le ${frenchDateTime(lead.merchantStatusAt)}` : ""}</dd></div>
<div><dt>Envoi de la demande</dt><dd>${deliveryLabel(lead.trackingStatus)}</dd></div>
<div><dt>Transmise par</dt><dd>${lead.channel === "page" ? "le formulaire de votre fiche" : "un assistant IA ou un autre logiciel, par l'API d'Abeille"}</dd></div>
<div><dt>Numéro de suivi</dt><dd>${lead.leadId}</dd></div>
</dl>
${
  anonymized
    ? html`<p class="note">Demande anonymisée : les coordonnées de la personne, son message et les réponses ont été effacés au terme de leur durée de conservation. Elle ne peut plus recevoir de réponse.</p>`
    : html`<h2>Contact</h2>
<dl class="facts">
<div><dt>Nom</dt><dd>${lead.contactName}</dd></div>
<div><dt>E-mail</dt><dd><a href="mailto:${lead.contactEmail}">${lead.contactEmail}</a></dd></div>
${lead.contactPhone ? html`<div><dt>Téléphone</dt><dd><a href="tel:${lead.contactPhone.replace(/[^+0-9]/g, "")}">${lead.contactPhone}</a></dd></div>` : ""}
</dl>
${lead.message ? html`<h2>Message</h2><blockquote class="answer-text">${lead.message}</blockquote>` : ""}
${details.length > 0 ? html`<h2>Détails${sector ? ` (${sector})` : ""}</h2><dl class="facts">${details.map((row) => html`<div><dt>${row.label}</dt><dd>${row.value}</dd></div>`)}</dl>` : ""}
${lead.aiContext ? html`<h2>Contexte transmis par le logiciel qui a envoyé la demande</h2><blockquote class="answer-text">${lead.aiContext}</blockquote>` : ""}`
}
${messages.length > 0 ? html`<h2>Échanges</h2><ol class="pro-messages">${messages.map((message) => messageItem(message, lead.contactName))}</ol>` : ""}
${anonymized ? "" : html`<h2>Répondre</h2>${answerForm(abId, lead, state)}`}
</section>`;
}
