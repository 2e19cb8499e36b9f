import type { SpaceSession } from "../../domain/merchant-space/sessions.ts";
import { CSRF_FIELD } from "../../schemas/merchant-space.ts";
import { HTML_TYPE, type RenderedDocument, renderedDocument } from "../document.ts";
import { buildPeoplePage } from "../front-door.ts";
import { html, type SafeHtml } from "../html.ts";

/**
 * The merchant space's pages (/pro), in French: the site's shell (its stylesheet, its CSP, phone
 * first), never indexed, with a bar saying who is signed in and a sign-out button (a POST form
 * carrying the session's CSRF token: a link could be followed by any page that embeds it).
 */
export const SPACE_PATH = "/pro";
export const SIGN_IN_PATH = "/pro/connexion";
export const SIGN_IN_CALLBACK_PATH = "/pro/connexion/retour";
export const SIGN_OUT_PATH = "/pro/deconnexion";
export const CLAIM_PATH = "/pro/revendiquer";
/** The code-entry path for merchants without ProConnect (pro-letters). */
export const LETTER_CODE_PATH = "/pro/code";

/** The space of one listing (pro-edits' pages). */
export function listingSpacePath(abId: string): string {
  return `${SPACE_PATH}/${abId}/`;
}

/** The hidden field every form of the space carries. */
export function csrfField(session: SpaceSession): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`;
}

/** The person as the bar names it: first and usual names, else the email, else a neutral word. */
export function personLabel(session: SpaceSession): string {
  const { givenName, usualName, email } = session.person;
  const name = [givenName, usualName].filter((part): part is string => part !== null).join(" ");
  return name || email || "compte professionnel";
}

export function renderProPage(options: {
  title: string;
  session: SpaceSession | null;
  body: SafeHtml;
  /** A sentence shown above the body (what just happened, or why something was refused). */
  message?: string | null;
}): RenderedDocument {
  const { session } = options;
  const bar = session
    ? html`<div class="pro-bar">
<p>Connecté : <strong>${personLabel(session)}</strong>${session.person.email ? html` (${session.person.email})` : ""}</p>
<form class="pro-form" method="post" action="${SIGN_OUT_PATH}">
${csrfField(session)}
<button type="submit" class="pro-secondary">Se déconnecter</button>
</form>
</div>`
    : "";
  const message = options.message ? html`<p class="pro-message" role="status">${options.message}</p>` : "";
  const body = html`<nav aria-label="Espace professionnel"><p><a href="${SPACE_PATH}">Espace professionnel</a></p></nav>
${bar}
${message}
${options.body}`;
  return renderedDocument(buildPeoplePage({ title: options.title, body, robots: "noindex, nofollow" }), HTML_TYPE);
}
