import type { App } from "../../app.ts";
import { acrLabelFr } from "../../domain/merchant-space/assurance.ts";
import { ClaimRefusedError, createClaim, listingsForPerson } from "../../domain/merchant-space/claims.ts";
import { signOut } from "../../domain/merchant-space/sessions.ts";
import { finishSignIn, SignInFailure, startSignIn } from "../../domain/merchant-space/sign-in.ts";
import type { Reply } from "../../http/reply.ts";
import type { RouteRequest } from "../../http/route-request.ts";
import { logger } from "../../logging.ts";
import { signInDeps, spaceDeps } from "../../wiring.ts";
import { html } from "../html.ts";
import { CLAIM_REFUSALS_FR, renderSignedInHome, renderSignedOutHome } from "./home.ts";
import { renderProPage, SIGN_IN_PATH, SPACE_PATH } from "./layout.ts";
import {
  CsrfRefusal,
  clearedSessionCookie,
  readCookie,
  requireCsrf,
  sessionCookie,
  sessionCookieName,
  signInCookie,
  signInCookieName,
  spaceDocument,
  spacePage,
  spaceRedirect,
} from "./space-http.ts";

/**
 * What each route of the merchant space's door answers (src/pages/pro/): the routes parse, call
 * one of these, and return what it gives.
 */

/** GET /pro */
export async function answerSpaceHome(
  app: App,
  request: RouteRequest,
  query: { revendiquee?: string | undefined },
): Promise<Reply> {
  const { session } = await spacePage(app, request);
  if (!session) {
    return spaceDocument(
      app,
      renderSignedOutHome({
        proConnectConfigured: app.proConnect !== null,
        teamEmail: app.config.mail.platformTeamEmail,
      }),
    );
  }
  const listings = await listingsForPerson(spaceDeps(app), session);
  const claimed = query.revendiquee
    ? listings.find((item) => item.listing.abId === query.revendiquee && item.claimId !== null)
    : undefined;
  return spaceDocument(
    app,
    renderSignedInHome({
      session,
      listings,
      message: claimed ? `Vous gérez maintenant la fiche ${claimed.listing.businessName}.` : null,
    }),
  );
}

const NOT_CONFIGURED =
  "La connexion avec ProConnect n'est pas configurée sur ce service Abeille. Vous pouvez entrer dans l'espace professionnel avec le code reçu par courrier.";

/** GET /pro/connexion (`niveau=dirigeant`: the company manager's certification is asked). */
export async function answerStartSignIn(app: App, query: { niveau?: "dirigeant" | undefined }): Promise<Reply> {
  const deps = signInDeps(app);
  if (!deps) return signInProblem(app, 404, NOT_CONFIGURED);
  try {
    const { signInToken, url } = await startSignIn(deps, query.niveau === "dirigeant" ? "company_manager" : "standard");
    return spaceRedirect(url.href, signInCookie(app, signInToken));
  } catch (failure) {
    return signInFailurePage(app, failure);
  }
}

/** GET /pro/connexion/retour */
export async function answerSignInCallback(app: App, request: RouteRequest, url: URL): Promise<Reply> {
  const deps = signInDeps(app);
  if (!deps) return signInProblem(app, 404, NOT_CONFIGURED);
  try {
    const { token } = await finishSignIn(deps, {
      signInToken: readCookie(request, signInCookieName(app)),
      callbackUrl: url,
      currentSessionToken: (await spacePage(app, request)).token,
    });
    return spaceRedirect(SPACE_PATH, sessionCookie(app, token));
  } catch (failure) {
    return signInFailurePage(app, failure);
  }
}

/**
 * POST /pro/deconnexion: works with a session that expired too (the page stayed open): the cookie
 * is cleared and ProConnect's session ends with the session's ID token as id_token_hint.
 */
export async function answerSignOut(
  app: App,
  request: RouteRequest,
  form: { csrf?: string | undefined },
): Promise<Reply> {
  const out = await signOut(spaceDeps(app), readCookie(request, sessionCookieName(app)), form.csrf);
  if (out.kind === "refused") throw new CsrfRefusal("the CSRF token is not the session's");
  // ProConnect's session ends too (its end_session_endpoint comes back to /pro); the letter path has none.
  const atProvider =
    out.kind === "ended" && out.via === "proconnect" && app.proConnect
      ? await app.proConnect.endSessionUrl(out.idToken)
      : null;
  return spaceRedirect(atProvider?.href ?? SPACE_PATH, clearedSessionCookie(app));
}

/** POST /pro/revendiquer */
export async function answerClaim(
  app: App,
  request: RouteRequest,
  form: { csrf?: string | undefined; ab_id: string },
): Promise<Reply> {
  const session = requireCsrf((await spacePage(app, request)).session, form.csrf);
  const deps = spaceDeps(app);
  try {
    const claim = await createClaim(deps, session, form.ab_id);
    return spaceRedirect(`${SPACE_PATH}?revendiquee=${encodeURIComponent(claim.abId)}`);
  } catch (failure) {
    if (!(failure instanceof ClaimRefusedError)) throw failure;
    return spaceDocument(
      app,
      renderSignedInHome({
        session,
        listings: await listingsForPerson(deps, session),
        message: CLAIM_REFUSALS_FR[failure.refusal],
      }),
      { status: 409 },
    );
  }
}

/** The French page of a sign-in that did not end in a session. */
function signInFailurePage(app: App, failure: unknown): Reply {
  if (!(failure instanceof SignInFailure)) throw failure;
  // Which step failed, never who: no personal data in the logs.
  logger.warn("ProConnect sign-in failed", { kind: failure.kind, reason: failure.message });
  switch (failure.kind) {
    case "provider":
      return signInProblem(
        app,
        400,
        failure.providerError === "access_denied"
          ? "La connexion a été annulée sur ProConnect. Vous pouvez recommencer quand vous le souhaitez."
          : "ProConnect n'a pas pu vous identifier. Recommencez la connexion ; si le problème continue, réessayez plus tard.",
      );
    case "unknown":
      return signInProblem(
        app,
        400,
        "Cette connexion n'est pas, ou plus, en cours : elle a expiré (10 minutes), a déjà servi, ou a été commencée dans un autre navigateur. Recommencez la connexion.",
      );
    case "unreachable":
      return signInProblem(app, 502, "ProConnect ne répond pas pour le moment. Réessayez dans quelques minutes.");
    case "inconsistent":
      return signInProblem(
        app,
        400,
        "Les informations transmises par ProConnect se contredisent : le SIREN de l'entreprise ne correspond pas au SIRET de l'établissement. La connexion est refusée ; vérifiez l'organisation choisie sur ProConnect et recommencez.",
      );
    case "assurance":
      return signInProblem(app, 403, assuranceRefusalFr(failure.assurance));
    default:
      return signInProblem(
        app,
        400,
        "La réponse de ProConnect n'a pas passé nos vérifications : la connexion est refusée. Recommencez la connexion.",
      );
  }
}

/** Why ProConnect's level of assurance opens no session, as the person reads it. */
function assuranceRefusalFr(assurance: SignInFailure["assurance"]): string {
  const lettre = "Vous pouvez aussi entrer avec le code reçu par courrier.";
  if (assurance === null || assurance.acr === null) {
    return `ProConnect n'a pas indiqué le niveau de garantie de votre connexion : l'espace professionnel ne peut pas vous ouvrir de session sans le connaître. Recommencez la connexion ; ${lettre}`;
  }
  if (assurance.refusal === "unknown") {
    return `ProConnect a indiqué un niveau de garantie que ce service ne connaît pas (« ${assurance.acr} ») : la connexion est refusée. ${lettre}`;
  }
  return `Votre connexion ProConnect a le niveau de garantie « ${assurance.acr} » (${acrLabelFr(assurance.acr)}) ; ce service demande au moins « ${assurance.minimum} » (${acrLabelFr(assurance.minimum)}). Connectez-vous avec un compte de niveau suffisant (le compte de votre employeur, ou avec une double authentification). ${lettre}`;
}

function signInProblem(app: App, status: number, message: string): Reply {
  const body = html`<h1>Connexion avec ProConnect</h1>
<p><a href="${app.proConnect ? SIGN_IN_PATH : SPACE_PATH}">${app.proConnect ? "Recommencer la connexion" : "Revenir à l'espace professionnel"}</a></p>`;
  return spaceDocument(
    app,
    renderProPage({ title: "Connexion · Espace professionnel", session: null, body, message }),
    { status },
  );
}
