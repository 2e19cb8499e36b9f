import type { App } from "../../app.ts";
import { requireClaimedListing } from "../../domain/merchant-space/claims.ts";
import { confirmLeadEmail, type LinkRefusal, LinkRefusedError } from "../../domain/merchant-space/lead-email.ts";
import { LEAD_EMAIL_TOKEN } from "../../domain/merchant-space/lead-email-token.ts";
import { isServiceError, ServiceError } from "../../errors/service-error.ts";
import type { Reply } from "../../http/reply.ts";
import type { RouteRequest } from "../../http/route-request.ts";
import { AB_ID_PATTERN } from "../../schemas/common.ts";
import { CSRF_FIELD } from "../../schemas/merchant-space.ts";
import { listingSpaceDeps, spaceDeps } from "../../wiring.ts";
import { html } from "../html.ts";
import { listingSpacePath, renderProPage, SPACE_PATH } from "./layout.ts";
import type { FormFields } from "./listing-form.ts";
import { type ListingFormState, NO_FORM_STATE, renderListingBody } from "./listing-page.ts";
import { answerListingForm, loadListingModel } from "./listing-space.ts";
import { requireCsrf, spaceDocument, spacePage, spaceRedirect } from "./space-http.ts";

/**
 * What the routes of a listing's space answer (src/pages/pro/[ab_id]/): the routes parse, call
 * one of these, and return what it gives.
 */

/** A malformed id is the same answer as another merchant's listing: never reveal what exists. */
function listingId(abId: string): string {
  if (!AB_ID_PATTERN.test(abId)) throw new ServiceError("NOT_FOUND", `No listing ${abId} in this merchant space`);
  return abId;
}

async function listingPage(
  app: App,
  abId: string,
  session: Parameters<typeof renderProPage>[0]["session"],
  state: ListingFormState,
  status: number,
): Promise<Reply> {
  if (!session) throw new ServiceError("FORBIDDEN", "No live session");
  const deps = listingSpaceDeps(app);
  const model = await loadListingModel(deps, abId);
  const body = renderListingBody(model, state, {
    csrfField: CSRF_FIELD,
    csrfToken: session.csrfToken,
    action: listingSpacePath(abId),
  });
  return spaceDocument(
    app,
    renderProPage({ title: `${model.merchant.businessName} — espace professionnel`, session, body }),
    {
      status,
    },
  );
}

/** GET /pro/{ab_id} */
export async function answerListingSpace(app: App, request: RouteRequest, abId: string): Promise<Reply> {
  const { session } = await spacePage(app, request);
  if (!session) return spaceRedirect(SPACE_PATH);
  const claimed = await requireClaimedListing(spaceDeps(app), session, listingId(abId));
  return listingPage(app, claimed.abId, session, NO_FORM_STATE, 200);
}

/** POST /pro/{ab_id} */
export async function answerListingSpaceForm(
  app: App,
  request: RouteRequest,
  abId: string,
  fields: FormFields,
): Promise<Reply> {
  const session = requireCsrf((await spacePage(app, request)).session, fields[CSRF_FIELD]);
  const claimed = await requireClaimedListing(spaceDeps(app), session, listingId(abId));
  const { status, state } = await answerListingForm(listingSpaceDeps(app), claimed, fields);
  return listingPage(app, claimed.abId, session, state, status);
}

function confirmationPage(app: App, status: number, title: string, body: ReturnType<typeof html>): Reply {
  return spaceDocument(app, renderProPage({ title, session: null, body }), { status });
}

/** GET /pro/{ab_id}/e-mail/confirmer: opening the link changes nothing; its button confirms. */
export function answerLeadEmailLink(app: App, abId: string, token: string | undefined): Reply {
  const path = `${listingSpacePath(listingId(abId))}e-mail/confirmer`;
  if (!token || !LEAD_EMAIL_TOKEN.test(token)) {
    return confirmationPage(app, 404, "Lien non valable", html`<h1>Lien non valable</h1><p>${INVALID_FR}</p>`);
  }
  return confirmationPage(
    app,
    200,
    "Confirmer l'adresse des demandes",
    html`<h1>Confirmer l'adresse des demandes</h1>
<p>Confirmez que cette adresse e-mail doit recevoir les demandes de clients adressées à votre fiche.</p>
<form class="pro-form" method="post" action="${path}">
<input type="hidden" name="jeton" value="${token}">
<p><button type="submit">Confirmer cette adresse</button></p>
</form>`,
  );
}

const INVALID_FR =
  "Ce lien de confirmation n'est pas valable. Demandez un nouveau lien depuis votre espace professionnel.";
const LINK_REFUSALS_FR: Record<LinkRefusal, string> = {
  used: "Ce lien a déjà servi : l'adresse est confirmée.",
  replaced: "Ce lien a été remplacé par une demande plus récente : utilisez le dernier e-mail reçu.",
  expired: "Ce lien a expiré. Demandez un nouveau lien depuis votre espace professionnel.",
  revoked: "Ce lien a été demandé par une personne qui ne gère plus cette fiche : il ne change rien.",
};

/** POST /pro/{ab_id}/e-mail/confirmer */
export async function answerLeadEmailConfirmation(app: App, abId: string, token: string | undefined): Promise<Reply> {
  try {
    const confirmed = await confirmLeadEmail(listingSpaceDeps(app), listingId(abId), token ?? "");
    const what =
      confirmed.outcome === "waiting"
        ? html`<p>Un message prévient l'adresse actuelle, ${confirmed.current}, du changement. Les demandes de clients arriveront à <strong>${confirmed.email}</strong> dès qu'il sera parti ; d'ici là, elles continuent d'arriver à ${confirmed.current}.</p>`
        : html`<p>Les demandes de clients arriveront désormais à <strong>${confirmed.email}</strong>. Les agents la liront à la prochaine publication du registre.</p>`;
    return confirmationPage(
      app,
      200,
      "Adresse confirmée",
      html`<h1>Adresse confirmée</h1>${what}<p><a href="${SPACE_PATH}">Espace professionnel</a></p>`,
    );
  } catch (failure) {
    if (!isServiceError(failure)) throw failure;
    if (failure.code === "NOT_FOUND") {
      return confirmationPage(app, 404, "Lien non valable", html`<h1>Lien non valable</h1><p>${INVALID_FR}</p>`);
    }
    if (failure instanceof LinkRefusedError) {
      return confirmationPage(
        app,
        409,
        "Lien inutilisable",
        html`<h1>Lien inutilisable</h1><p>${LINK_REFUSALS_FR[failure.refusal]}</p>`,
      );
    }
    throw failure;
  }
}
