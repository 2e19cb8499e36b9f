import type { LetterSignInRefusal } from "../../domain/merchant-space/letter-sign-in.ts";
import { LETTER_CODE_VALID_DAYS, LETTER_CODE_WRONG_TRIES } from "../../domain/merchant-space/letters.ts";
import { SIGN_IN_LINK_VALID_MINUTES } from "../../domain/merchant-space/sign-in-links.ts";
import { CSRF_FIELD } from "../../schemas/merchant-space.ts";
import type { RenderedDocument } from "../document.ts";
import { html, type SafeHtml } from "../html.ts";
import { LETTER_CODE_PATH, renderProPage, SPACE_PATH } from "./layout.ts";

/**
 * The letter path's pages (French, phone first, no script): the code form (/pro/code), the
 * sign-in link request (/pro/lien) and the page a link opens (a button: a POST spends the link,
 * so a mail scanner that fetches it does not).
 */
export const SIGN_IN_LINK_PATH = "/pro/lien";
export const SIGN_IN_LINK_USE_PATH = "/pro/lien/connexion";

/** Why a code opened nothing, as the person reads it (`teamEmail`: where to ask for a new letter). */
export function letterCodeRefusalFr(refusal: LetterSignInRefusal, teamEmail: string): string {
  const newLetter = `Demandez un nouveau courrier à l'équipe d'Abeille (${teamEmail}) : il contiendra un nouveau code.`;
  const words: Record<LetterSignInRefusal, string> = {
    malformed:
      "Ce code n'a pas la bonne forme : il compte 16 caractères (chiffres et lettres), en quatre groupes de quatre, comme imprimé sur le courrier.",
    wrong: `Ce code n'est pas le bon. Vérifiez chaque caractère sur le courrier. Après ${LETTER_CODE_WRONG_TRIES} essais erronés, le code est bloqué.`,
    locked: `Ce code est bloqué après trop d'essais erronés. ${newLetter}`,
    used: "Ce code a déjà servi. Pour revenir dans votre espace, demandez un lien de connexion à l'adresse e-mail donnée avec le code (lien ci-dessous).",
    expired: `Ce code a expiré (il vaut ${LETTER_CODE_VALID_DAYS} jours). ${newLetter}`,
    superseded:
      "Un courrier plus récent a été envoyé à votre établissement : seul le code de ce dernier courrier fonctionne.",
    unavailable: `La fiche de cet établissement ne peut pas être gérée pour le moment (suspendue ou archivée). Écrivez à l'équipe d'Abeille (${teamEmail}) pour en savoir plus.`,
    revoked: `L'équipe d'Abeille a retiré l'accès à cette fiche pour cette adresse e-mail : elle ne peut pas être revendiquée de nouveau avec ce code. Écrivez à l'équipe (${teamEmail}) si vous pensez qu'il s'agit d'une erreur.`,
  };
  return words[refusal];
}

function formCsrf(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

function field(options: { id: string; label: string; hint: string; error: string | null; input: SafeHtml }): SafeHtml {
  return html`<div class="field">
<label for="${options.id}">${options.label}</label>
<p class="note" id="${options.id}-aide">${options.hint}</p>
${options.input}
${options.error ? html`<p class="field-error" id="${options.id}-erreur" role="alert">${options.error}</p>` : ""}
</div>`;
}

function described(id: string, error: string | null): SafeHtml {
  return error
    ? html` aria-invalid="true" aria-describedby="${id}-aide ${id}-erreur"`
    : html` aria-describedby="${id}-aide"`;
}

export interface CodeFormState {
  csrfToken: string;
  code: string;
  email: string;
  errors: { code: string | null; email: string | null };
  message: string | null;
}

/** GET /pro/code, and the same form again after a refusal. */
export function renderCodePage(state: CodeFormState): RenderedDocument {
  const body = html`<h1>Saisir le code reçu par courrier</h1>
<p>Le courrier d'Abeille adressé à votre établissement contient un code à usage unique. Saisissez-le avec votre adresse e-mail : vous gérerez alors la fiche de cet établissement, et seulement celle-ci.</p>
<form class="pro-form" method="post" action="${LETTER_CODE_PATH}" novalidate>
${formCsrf(state.csrfToken)}
${field({
  id: "code",
  label: "Code du courrier",
  hint: "16 caractères, par exemple 7K3M-Q9TX-2HBD-WR5E. Majuscules, minuscules et tirets sont acceptés.",
  error: state.errors.code,
  input: html`<input id="code" name="code" type="text" required autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="40" value="${state.code}"${described("code", state.errors.code)}>`,
})}
${field({
  id: "email",
  label: "Votre adresse e-mail",
  hint: "Pour recevoir plus tard un lien de connexion à votre espace. Elle n'est pas publiée.",
  error: state.errors.email,
  input: html`<input id="email" name="email" type="email" required autocomplete="email" maxlength="320" value="${state.email}"${described("email", state.errors.email)}>`,
})}
<button type="submit">Entrer dans mon espace</button>
</form>
<h2>Déjà entré avec un code ?</h2>
<p><a href="${SIGN_IN_LINK_PATH}">Recevoir un lien de connexion par e-mail</a></p>
<p><a href="${SPACE_PATH}">Revenir à l'espace professionnel</a></p>`;
  return renderProPage({ title: "Code reçu par courrier", session: null, body, message: state.message });
}

/** GET /pro/lien: the address to send sign-in links to. */
export function renderLinkRequestPage(state: {
  csrfToken: string;
  email: string;
  error: string | null;
  message: string | null;
}): RenderedDocument {
  const body = html`<h1>Recevoir un lien de connexion</h1>
<p>Vous êtes déjà entré dans votre espace avec le code d'un courrier ? Indiquez l'adresse e-mail donnée alors : nous y envoyons un lien de connexion, valable ${SIGN_IN_LINK_VALID_MINUTES} minutes et une seule fois.</p>
<form class="pro-form" method="post" action="${SIGN_IN_LINK_PATH}" novalidate>
${formCsrf(state.csrfToken)}
${field({
  id: "email",
  label: "Votre adresse e-mail",
  hint: "Celle que vous avez indiquée avec le code du courrier.",
  error: state.error,
  input: html`<input id="email" name="email" type="email" required autocomplete="email" maxlength="320" value="${state.email}"${described("email", state.error)}>`,
})}
<button type="submit">Recevoir le lien</button>
</form>
<p><a href="${LETTER_CODE_PATH}">Saisir un code reçu par courrier</a></p>`;
  return renderProPage({ title: "Lien de connexion", session: null, body, message: state.message });
}

/** After POST /pro/lien: the same words whatever the address (no one learns which have an account). */
export function renderLinkSentPage(): RenderedDocument {
  const body = html`<h1>Vérifiez votre messagerie</h1>
<p>Si cette adresse a servi à entrer dans l'espace professionnel avec le code d'un courrier, un lien de connexion vient d'y être envoyé. Il est valable ${SIGN_IN_LINK_VALID_MINUTES} minutes et ne sert qu'une fois.</p>
<p>Rien reçu après quelques minutes ? Regardez dans les courriers indésirables, ou <a href="${SIGN_IN_LINK_PATH}">demandez un nouveau lien</a>.</p>`;
  return renderProPage({ title: "Lien envoyé", session: null, body });
}

/** GET /pro/lien?jeton=...: a button that spends the link (or why it no longer works). */
export function renderLinkUsePage(state: { csrfToken: string; token: string | null }): RenderedDocument {
  const body = state.token
    ? html`<h1>Se connecter à l'espace professionnel</h1>
<form class="pro-form" method="post" action="${SIGN_IN_LINK_USE_PATH}">
${formCsrf(state.csrfToken)}
<input type="hidden" name="jeton" value="${state.token}">
<button type="submit">Me connecter</button>
</form>`
    : html`<h1>Lien de connexion expiré</h1>
<p>${LINK_REFUSED_FR}</p>
<p><a href="${SIGN_IN_LINK_PATH}">Demander un nouveau lien</a></p>`;
  return renderProPage({ title: "Lien de connexion", session: null, body });
}

export const LINK_REFUSED_FR = `Ce lien de connexion ne fonctionne plus : il a déjà servi, ou il a expiré (il vaut ${SIGN_IN_LINK_VALID_MINUTES} minutes). Demandez-en un nouveau.`;

export const FORM_EXPIRED_FR =
  "Le formulaire a expiré ou ne vient pas de cette page : il vous est présenté de nouveau. Recommencez.";
