import type { App } from "../app.ts";
import { checkLeadStatus, type LeadStatus } from "../domain/leads/check-lead-status.ts";
import { frenchDateTime } from "../domain/leads/email-format.ts";
import { isServiceError } from "../errors/service-error.ts";
import { TRACKING_TOKEN_MAX } from "../schemas/leads.ts";
import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import { LEAD_TYPE_LABELS_FR } from "./format-fr.ts";
import { buildPeoplePage } from "./front-door.ts";
import { html, type SafeHtml } from "./html.ts";
import { TRACKING_CODE_FIELD, TRACKING_PAGE_PATH } from "./lead-form-script.ts";

/**
 * `/suivi`, where a person follows a request sent to a merchant with the tracking code the lead
 * form gave (the lead's tracking token, the one capability over it: checkLeadStatus). The code is
 * posted in a form, never put in the URL (it would stay in the history, the logs and referrers).
 * The page says where the request is (received, handed to the merchant's mailbox, or refused by
 * it), what the merchant did with it in its Abeille space and the answers it wrote there (issue
 * 25), and what Abeille cannot show: an answer the merchant sends straight to the person.
 */
export type TrackingOutcome =
  | { kind: "ask" }
  | { kind: "empty" }
  | { kind: "unknown"; code: string }
  | { kind: "found"; status: LeadStatus };

/** The page and its HTTP status for a code posted to it. */
export async function answerTrackingForm(
  app: App,
  fields: { code?: string | undefined },
): Promise<{ status: number; document: RenderedDocument }> {
  const code = fields.code?.trim() ?? "";
  if (code === "") return { status: 400, document: renderTrackingPage({ kind: "empty" }) };
  try {
    const { status } = await checkLeadStatus(
      { leads: app.leads, trackingTokens: app.trackingTokens, baseUrl: app.config.baseUrl },
      { trackingToken: code },
    );
    return { status: 200, document: renderTrackingPage({ kind: "found", status }) };
  } catch (failure) {
    // A wrong code, another lead's and an unknown lead are one answer (find-tracked-lead.ts).
    if (isServiceError(failure) && failure.code === "NOT_FOUND") {
      return { status: 404, document: renderTrackingPage({ kind: "unknown", code }) };
    }
    throw failure;
  }
}

export function renderTrackingPage(outcome: TrackingOutcome): RenderedDocument {
  const body = html`<section aria-labelledby="suivi">
<h1 id="suivi">Suivre une demande</h1>
${outcome.kind === "found" ? requestSection(outcome.status) : ""}
${outcome.kind === "empty" ? html`<p class="lead-status lead-error" role="status">Saisissez le code de suivi de votre demande.</p>` : ""}
${
  outcome.kind === "unknown"
    ? html`<p class="lead-status lead-error" role="status">Aucune demande ne correspond à ce code de suivi. Vérifiez qu'il est complet : c'est le numéro de suivi, un point, puis 43 lettres, chiffres ou tirets, tels que le formulaire de la fiche les a affichés.</p>`
    : ""
}
${codeForm(outcome.kind === "unknown" ? outcome.code : "", outcome.kind === "found")}
</section>`;
  return renderedDocument(buildPeoplePage({ title: "Suivre une demande", body, robots: "noindex" }), HTML_TYPE);
}

function codeForm(code: string, another: boolean): SafeHtml {
  return html`<form class="search-form" method="post" action="${TRACKING_PAGE_PATH}">
<div class="field">
<label for="code-suivi">${another ? "Suivre une autre demande : code de suivi" : "Code de suivi"}</label>
<input id="code-suivi" name="${TRACKING_CODE_FIELD}" type="text" maxlength="${TRACKING_TOKEN_MAX}" value="${code}" autocomplete="off" spellcheck="false" required>
</div>
<p class="note">Le code de suivi vous a été donné quand vous avez envoyé votre demande depuis la fiche du commerçant.</p>
<button type="submit">Voir ma demande</button>
</form>`;
}

/** Where the request is, in a sentence. */
function whereItIs(status: LeadStatus): string {
  if (status.tracking_status === "delivered" && status.delivered_at) {
    return `Transmise au commerçant le ${frenchDateTime(status.delivered_at)} : sa messagerie l'a acceptée.`;
  }
  if (status.tracking_status === "failed") {
    return "Non transmise : la messagerie du commerçant l'a refusée à chaque essai. Contactez-le autrement, avec les coordonnées de sa fiche.";
  }
  return "Reçue par Abeille : elle part vers la messagerie du commerçant dans quelques instants.";
}

function requestSection(status: LeadStatus): SafeHtml {
  const messages = status.messages_count;
  return html`<div class="tracked-request">
<h2>Votre demande à ${status.merchant.name}</h2>
<dl class="facts">
<div><dt>Commerçant</dt><dd><a href="/m/${status.merchant.ab_id}/">${status.merchant.name}</a></dd></div>
<div><dt>Demande</dt><dd>${LEAD_TYPE_LABELS_FR[status.lead_type] ?? "Demande"}, envoyée le ${frenchDateTime(status.created_at)}</dd></div>
<div><dt>Numéro de suivi</dt><dd class="tracking-id">${status.lead_id}</dd></div>
<div><dt>État</dt><dd class="tracking-state">${whereItIs(status)}</dd></div>
${messages > 0 ? html`<div><dt>Messages ajoutés</dt><dd>${String(messages)} message${messages > 1 ? "s" : ""} complémentaire${messages > 1 ? "s" : ""} transmis au commerçant</dd></div>` : ""}
</dl>
${status.anonymized ? html`<p class="note">Vos coordonnées et votre message ont été effacés au terme de leur durée de conservation ; seules la date et l'état de la demande restent.</p>` : ""}
<h2>La réponse du commerçant</h2>
${merchantResponseSection(status)}
</div>`;
}

const MERCHANT_STATUS_FR: Record<LeadStatus["merchant_response"]["status"], string> = {
  none: "",
  answered: "Le commerçant a répondu à votre demande",
  handled: "Le commerçant indique avoir traité votre demande",
  declined: "Le commerçant indique ne pas pouvoir donner suite à votre demande",
};

/**
 * What the merchant did in its Abeille space (merchant_response): its status and the answers it
 * wrote there, which were also emailed to the person. Without any, the page says the merchant may
 * answer by email or phone directly, which Abeille cannot show.
 */
function merchantResponseSection(status: LeadStatus): SafeHtml {
  const response = status.merchant_response;
  const direct = html`<p>Le commerçant peut aussi vous répondre directement, à l'adresse e-mail que vous avez indiquée, ou par téléphone si vous avez donné votre numéro ; ces réponses-là ne passent pas par Abeille, qui ne peut pas les afficher ici : surveillez votre messagerie, y compris les courriers indésirables.</p>`;
  if (response.status === "none") {
    return html`<p class="merchant-response-state">Le commerçant n'a pas encore répondu depuis son espace Abeille.</p>
${direct}`;
  }
  const answers = response.answers.map(
    (answer) => html`<li class="merchant-answer">
<p class="note">Réponse du ${frenchDateTime(answer.created_at)}${answer.delivery === "sent" ? ", envoyée aussi à votre adresse e-mail" : ""}</p>
${answer.message === null ? html`<p class="note">Le texte de cette réponse a été effacé au terme de sa durée de conservation.</p>` : html`<blockquote class="answer-text">${answer.message}</blockquote>`}
</li>`,
  );
  return html`<p class="merchant-response-state">${MERCHANT_STATUS_FR[response.status]}${response.updated_at ? `, le ${frenchDateTime(response.updated_at)}` : ""}.</p>
${answers.length > 0 ? html`<ol class="merchant-answers">${answers}</ol>` : ""}
${direct}`;
}
