import type { App } from "../../app.ts";
import { HOURLY_WINDOW_SECONDS } from "../../domain/access/rate-limit-policy.ts";
import { normalizeLetterCode } from "../../domain/merchant-space/letter-code.ts";
import {
  formCsrfToken,
  isFormCsrfToken,
  LETTER_CODE_TRIES_PER_HOUR,
  type LetterSignInRefusal,
  signInWithLetterCode,
  signInWithLink,
} from "../../domain/merchant-space/letter-sign-in.ts";
import { isTokenShaped, newToken } from "../../domain/merchant-space/sessions.ts";
import { requestSignInLinks } from "../../domain/merchant-space/sign-in-links.ts";
import type { Reply } from "../../http/reply.ts";
import type { RouteRequest } from "../../http/route-request.ts";
import { logger } from "../../logging.ts";
import { emailSchema } from "../../schemas/leads.ts";
import { letterDeps, signInLinkDeps, signInLinkRequestDeps, spaceDeps } from "../../wiring.ts";
import { SPACE_PATH } from "./layout.ts";
import {
  type CodeFormState,
  FORM_EXPIRED_FR,
  LINK_REFUSED_FR,
  letterCodeRefusalFr,
  renderCodePage,
  renderLinkRequestPage,
  renderLinkSentPage,
  renderLinkUsePage,
} from "./letter-pages.ts";
import { cookie, readCookie, sessionCookie, spaceDocument, spacePage, spaceRedirect } from "./space-http.ts";

/**
 * What the letter path's routes answer (src/pages/pro/code.ts, src/pages/pro/lien*.ts): the code
 * form, the sign-in link request and the link's use. These forms come before any session, so
 * their CSRF token is bound to a random token in a cookie of their own (`abeille_pro_formulaire`,
 * `__Host-` on https, HttpOnly, SameSite=Lax): another site's POST carries no cookie and is
 * refused, with nothing read or written.
 */
const FORM_COOKIE = "abeille_pro_formulaire";
const FORM_COOKIE_SECONDS = 2 * 3600;

function formCookieName(app: App): string {
  return app.config.baseUrl.startsWith("https://") ? `__Host-${FORM_COOKIE}` : FORM_COOKIE;
}

/** The browser's form token, or a new one with the Set-Cookie that gives it. */
function formCookie(app: App, request: RouteRequest): { token: string; setCookie: string | undefined } {
  const held = readCookie(request, formCookieName(app));
  if (isTokenShaped(held)) return { token: held, setCookie: undefined };
  const token = newToken();
  return { token, setCookie: cookie(app, formCookieName(app), token, FORM_COOKIE_SECONDS) };
}

function formOf(app: App, request: RouteRequest): { csrfToken: string; setCookie: string | undefined } {
  const { token, setCookie } = formCookie(app, request);
  return { csrfToken: formCsrfToken(spaceDeps(app), token), setCookie };
}

function formIsOurs(app: App, request: RouteRequest, csrf: string | undefined): boolean {
  return isFormCsrfToken(spaceDeps(app), readCookie(request, formCookieName(app)), csrf);
}

const EMAIL_FR = "Indiquez une adresse e-mail valide, par exemple nom@exemple.fr.";

function emailOf(typed: string | undefined): string | null {
  const parsed = emailSchema.safeParse((typed ?? "").trim());
  return parsed.success ? parsed.data : null;
}

/** GET /pro/code */
export function answerCodePage(app: App, request: RouteRequest): Reply {
  const { csrfToken, setCookie } = formOf(app, request);
  const page = renderCodePage({ csrfToken, code: "", email: "", errors: { code: null, email: null }, message: null });
  return spaceDocument(app, page, { ...(setCookie ? { setCookie } : {}) });
}

const REFUSAL_STATUS: Record<LetterSignInRefusal, number> = {
  malformed: 400,
  wrong: 400,
  locked: 403,
  used: 409,
  unavailable: 409,
  revoked: 409,
  expired: 410,
  superseded: 410,
};

/** POST /pro/code */
export async function answerCodeForm(
  app: App,
  request: RouteRequest,
  form: { csrf?: string | undefined; code?: string | undefined; email?: string | undefined },
): Promise<Reply> {
  const typed = { code: (form.code ?? "").trim(), email: (form.email ?? "").trim() };
  const again = (
    status: number,
    state: Pick<CodeFormState, "errors" | "message">,
    headers: Record<string, string> = {},
  ) => {
    const { csrfToken, setCookie } = formOf(app, request);
    const reply = spaceDocument(app, renderCodePage({ csrfToken, ...typed, ...state }), {
      status,
      ...(setCookie ? { setCookie } : {}),
    });
    Object.assign(reply.headers, headers);
    return reply;
  };
  const noErrors = { code: null, email: null };
  if (!formIsOurs(app, request, form.csrf)) return again(403, { errors: noErrors, message: FORM_EXPIRED_FR });
  const email = emailOf(typed.email);
  const code = normalizeLetterCode(typed.code);
  if (email === null || code === null) {
    const teamEmail = app.config.mail.platformTeamEmail;
    return again(400, {
      errors: {
        code: code === null ? letterCodeRefusalFr("malformed", teamEmail) : null,
        email: email === null ? EMAIL_FR : null,
      },
      message: null,
    });
  }
  // One code's own budget, whoever types it (the client address has its own, in the guard).
  const { locatorHash } = app.letterCodeKeys.hashes(code);
  const budget = await app.access.limiter.consume(
    `pro-letter-code:${locatorHash}`,
    LETTER_CODE_TRIES_PER_HOUR,
    HOURLY_WINDOW_SECONDS,
  );
  if (!budget.allowed) {
    const minutes = Math.max(1, Math.ceil(budget.retryAfterSeconds / 60));
    return again(
      429,
      {
        errors: noErrors,
        message: `Ce code a été essayé trop de fois en peu de temps. Réessayez dans ${minutes} minute${minutes > 1 ? "s" : ""}.`,
      },
      { "retry-after": String(budget.retryAfterSeconds) },
    );
  }
  const signedIn = await signInWithLetterCode(
    { letters: letterDeps(app), space: spaceDeps(app) },
    { code, email, replacing: (await spacePage(app, request)).token },
  );
  if (!signedIn.ok) {
    if (signedIn.refusal === "locked") logger.warn("letter code refused: locked");
    return again(REFUSAL_STATUS[signedIn.refusal], {
      errors: { code: letterCodeRefusalFr(signedIn.refusal, app.config.mail.platformTeamEmail), email: null },
      message: null,
    });
  }
  // Which listing and claim, never the code or the address.
  logger.info("letter code redeemed", { ab_id: signedIn.claim.abId, claim_id: signedIn.claim.claimId });
  return spaceRedirect(
    `${SPACE_PATH}?revendiquee=${encodeURIComponent(signedIn.claim.abId)}`,
    sessionCookie(app, signedIn.token),
  );
}

/** GET /pro/lien (the request form) and GET /pro/lien?jeton=... (the page the email's link opens). */
export async function answerLinkPage(
  app: App,
  request: RouteRequest,
  query: { jeton?: string | undefined },
): Promise<Reply> {
  const { csrfToken, setCookie } = formOf(app, request);
  const cookieOption = setCookie ? { setCookie } : {};
  if (query.jeton === undefined) {
    return spaceDocument(
      app,
      renderLinkRequestPage({ csrfToken, email: "", error: null, message: null }),
      cookieOption,
    );
  }
  // Looked at, not spent: only the button's POST spends it.
  const deps = signInLinkDeps(app);
  const linkId = deps.linkTokens.verify(query.jeton);
  const link = linkId === null ? null : await deps.links.findLink(linkId);
  const usable = link !== null && link.usedAt === null && Date.parse(link.expiresAt) > app.now().getTime();
  return spaceDocument(app, renderLinkUsePage({ csrfToken, token: usable ? query.jeton : null }), {
    status: usable ? 200 : 410,
    ...cookieOption,
  });
}

/** POST /pro/lien: the same page whatever the address. */
export async function answerLinkRequest(
  app: App,
  request: RouteRequest,
  form: { csrf?: string | undefined; email?: string | undefined },
): Promise<Reply> {
  const typed = (form.email ?? "").trim();
  const again = (status: number, error: string | null, message: string | null) => {
    const { csrfToken, setCookie } = formOf(app, request);
    return spaceDocument(app, renderLinkRequestPage({ csrfToken, email: typed, error, message }), {
      status,
      ...(setCookie ? { setCookie } : {}),
    });
  };
  if (!formIsOurs(app, request, form.csrf)) return again(403, null, FORM_EXPIRED_FR);
  const email = emailOf(typed);
  if (email === null) return again(400, EMAIL_FR, null);
  // Past the address's budget, RATE_LIMITED: the space's French 429 page, as the guard's budgets.
  if ((await requestSignInLinks(signInLinkRequestDeps(app), email)) > 0) app.notifyOutbox();
  return spaceDocument(app, renderLinkSentPage());
}

/** POST /pro/lien/connexion: spends the link and opens a session. */
export async function answerLinkUse(
  app: App,
  request: RouteRequest,
  form: { csrf?: string | undefined; jeton?: string | undefined },
): Promise<Reply> {
  const { csrfToken, setCookie } = formOf(app, request);
  const cookieOption = setCookie ? { setCookie } : {};
  if (!formIsOurs(app, request, form.csrf)) {
    const page = renderLinkRequestPage({ csrfToken, email: "", error: null, message: FORM_EXPIRED_FR });
    return spaceDocument(app, page, { status: 403, ...cookieOption });
  }
  const signedIn = await signInWithLink(
    { links: signInLinkDeps(app), space: spaceDeps(app) },
    { token: form.jeton ?? "", replacing: (await spacePage(app, request)).token },
  );
  if (!signedIn) {
    const page = renderLinkRequestPage({ csrfToken, email: "", error: null, message: LINK_REFUSED_FR });
    return spaceDocument(app, page, { status: 410, ...cookieOption });
  }
  logger.info("sign-in link used", { ab_id: signedIn.claim.abId, claim_id: signedIn.claim.claimId });
  return spaceRedirect(SPACE_PATH, sessionCookie(app, signedIn.token));
}
