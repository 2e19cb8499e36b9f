import type { App } from "../../app.ts";
import {
  isSessionCsrfToken,
  readSession,
  SESSION_ABSOLUTE_MS,
  type SpaceSession,
} from "../../domain/merchant-space/sessions.ts";
import { SIGN_IN_TTL_MS } from "../../domain/merchant-space/sign-in.ts";
import { ServiceError } from "../../errors/service-error.ts";
import type { Reply } from "../../http/reply.ts";
import type { OperationContext, OperationEndpoint } from "../../http/route.ts";
import type { RouteRequest } from "../../http/route-request.ts";
import type { OperationSpec } from "../../openapi/operations.ts";
import { spaceDeps } from "../../wiring.ts";
import type { RenderedDocument } from "../document.ts";
import { documentResponse, type PageFailures, pageRoute } from "../http.ts";
import { pageContentSecurityPolicy } from "../page-policy.ts";

/**
 * The HTTP side of the merchant space: its cookies, the session a request carries, the CSRF check
 * of its forms, and its answers (never cached, the provider's origin allowed as a form's end for
 * the sign-out redirect).
 *
 * Cookies: `abeille_pro` (the session token) and `abeille_pro_connexion` (a sign-in under way),
 * HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET: Lax sends them, while
 * another site's POST does not), Path=/; on an https BASE_URL also Secure and named with the
 * `__Host-` prefix (the browser then refuses them from a subdomain or over http).
 */
const SESSION_COOKIE = "abeille_pro";
const SIGN_IN_COOKIE = "abeille_pro_connexion";

const isHttps = (app: App) => app.config.baseUrl.startsWith("https://");

export function sessionCookieName(app: App): string {
  return isHttps(app) ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

export function signInCookieName(app: App): string {
  return isHttps(app) ? `__Host-${SIGN_IN_COOKIE}` : SIGN_IN_COOKIE;
}

export function cookie(app: App, name: string, value: string, maxAgeSeconds: number): string {
  return [
    `${name}=${value}`,
    "Path=/",
    `Max-Age=${maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(isHttps(app) ? ["Secure"] : []),
  ].join("; ");
}

/** Set-Cookie for a new session's token (it lives no longer than the session may). */
export function sessionCookie(app: App, token: string): string {
  return cookie(app, sessionCookieName(app), token, Math.floor(SESSION_ABSOLUTE_MS / 1000));
}

/** Set-Cookie that removes the session cookie (sign-out). */
export function clearedSessionCookie(app: App): string {
  return cookie(app, sessionCookieName(app), "", 0);
}

/** Set-Cookie for a sign-in under way (it is taken once at the callback, and expires with the sign-in). */
export function signInCookie(app: App, token: string): string {
  return cookie(app, signInCookieName(app), token, Math.floor(SIGN_IN_TTL_MS / 1000));
}

/** A cookie's value in the request, or null (the first of that name, as browsers send the most specific first). */
export function readCookie(request: RouteRequest, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return null;
}

/** The session a request of the space carries, if live, and the token it came with. */
export async function spacePage(
  app: App,
  request: RouteRequest,
): Promise<{ session: SpaceSession | null; token: string | null }> {
  const token = readCookie(request, sessionCookieName(app));
  return { session: token ? await readSession(spaceDeps(app), token) : null, token };
}

/** Refused form of the space: a French 403 page, nothing written. */
export class CsrfRefusal extends ServiceError {
  constructor(reason: string) {
    super("FORBIDDEN", `Form refused: ${reason}`);
  }
}

/**
 * Every POST of the space: a live session, and the form's token is that session's (constant-time
 * compare). Otherwise 403 before anything is read or written.
 */
export function requireCsrf(session: SpaceSession | null, formToken: string | null | undefined): SpaceSession {
  if (!session) throw new CsrfRefusal("no live session");
  if (!isSessionCsrfToken(session, formToken)) throw new CsrfRefusal("the CSRF token is missing or wrong");
  return session;
}

/** What a person reads when a request of the space fails, by error code (over the pages' common ones). */
export const SPACE_FAILURES: PageFailures = {
  FORBIDDEN: () => ({
    title: "Action refusée",
    message:
      "Cette action n'a pas été acceptée : votre session a expiré, ou le formulaire ne vient pas de votre espace professionnel. Revenez à l'espace professionnel (/pro), reconnectez-vous si besoin, et recommencez.",
  }),
  NOT_FOUND: () => ({
    title: "Fiche introuvable",
    message:
      "Cette fiche n'est pas dans votre espace professionnel. Revenez à l'espace professionnel (/pro) pour voir vos fiches.",
  }),
  RATE_LIMITED: (retryAfter) => ({
    title: "Trop de tentatives",
    message: `Trop de demandes ont été faites depuis cette adresse en peu de temps. Réessayez dans ${retryAfter ?? 60} secondes.`,
  }),
  VALIDATION_ERROR: () => ({
    title: "Formulaire illisible",
    message: "Le formulaire envoyé n'a pas pu être lu. Revenez à l'espace professionnel (/pro) et recommencez.",
  }),
  PAYLOAD_TOO_LARGE: () => ({
    title: "Formulaire trop long",
    message: "Le formulaire envoyé dépasse la taille acceptée. Raccourcissez le texte et envoyez-le de nouveau.",
  }),
};

/** A route of the space: counted and guarded as its operation says, failures in French pages, never cached. */
export function spaceRoute<Spec extends OperationSpec>(
  operation: Spec,
  handler: (route: OperationContext<Spec>) => Reply | Promise<Reply>,
): OperationEndpoint<Spec> {
  return pageRoute(
    operation,
    async (context) => {
      const answer = await handler(context);
      answer.headers["cache-control"] = "no-store";
      return answer;
    },
    SPACE_FAILURES,
  );
}

/** The headers every page of the space carries: never cached, the provider allowed as a form's end (sign-out). */
function spaceHeaders(app: App): Record<string, string> {
  const origins = app.config.proConnect ? [new URL(app.config.proConnect.issuer).origin] : [];
  return { "content-security-policy": pageContentSecurityPolicy(origins), "referrer-policy": "same-origin" };
}

export function spaceDocument(
  app: App,
  document: RenderedDocument,
  options: { status?: number; setCookie?: string } = {},
): Reply {
  return documentResponse(document, {
    status: options.status ?? 200,
    cacheControl: "no-store",
    headers: { ...spaceHeaders(app), ...(options.setCookie ? { "set-cookie": options.setCookie } : {}) },
  });
}

/** A 303 to `location` (after a form, or to the provider), never cached. */
export function spaceRedirect(location: string, setCookie?: string): Reply {
  return {
    status: 303,
    headers: {
      location,
      "cache-control": "no-store",
      "referrer-policy": "same-origin",
      ...(setCookie ? { "set-cookie": setCookie } : {}),
    },
    body: null,
  };
}
