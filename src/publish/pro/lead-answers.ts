import type { App } from "../../app.ts";
import { findMerchantLead, listMerchantLeads } from "../../domain/leads/merchant-leads.ts";
import {
  LEAD_ANSWERS_PER_LISTING_HOURLY,
  MAX_ANSWERS_PER_LEAD,
  respondToLead,
} from "../../domain/leads/respond-to-lead.ts";
import { requireClaimedListing } from "../../domain/merchant-space/claims.ts";
import type { SpaceSession } from "../../domain/merchant-space/sessions.ts";
import { isServiceError } from "../../errors/service-error.ts";
import type { Reply } from "../../http/reply.ts";
import type { RouteRequest } from "../../http/route-request.ts";
import { type LeadResponseForm, leadResponseSchema } from "../../schemas/leads.ts";
import { respondDeps, spaceDeps } from "../../wiring.ts";
import { renderProPage, SPACE_PATH } from "./layout.ts";
import { DONE_NOTICES_FR, type LeadFormState, leadPath, renderLeadDetailBody, renderLeadListBody } from "./leads.ts";
import { requireCsrf, spaceDocument, spacePage, spaceRedirect } from "./space-http.ts";

/*
 * What the routes of a listing's leads answer (src/pages/pro/[ab_id]/demandes/): the routes parse,
 * call one of these, and return what it gives. Signed out, a GET goes to the space's door; a lead
 * or listing the session's person holds no claim on is the space's NOT_FOUND page.
 */

/** GET /pro/{ab_id}/demandes */
export async function answerLeadList(
  app: App,
  request: RouteRequest,
  abId: string,
  query: { page?: number | undefined },
): Promise<Reply> {
  const { session } = await spacePage(app, request);
  if (!session) return spaceRedirect(SPACE_PATH);
  const listing = await requireClaimedListing(spaceDeps(app), session, abId);
  const page = await listMerchantLeads(app, listing, query.page ?? 1);
  return spaceDocument(
    app,
    renderProPage({
      title: `Demandes reçues · ${listing.listing.businessName}`,
      session,
      body: renderLeadListBody(abId, listing.listing.businessName, page),
    }),
  );
}

/** GET /pro/{ab_id}/demandes/{lead_id} */
export async function answerLeadPage(
  app: App,
  request: RouteRequest,
  params: { abId: string; leadId: string },
  query: { fait?: string | undefined },
): Promise<Reply> {
  const { session } = await spacePage(app, request);
  if (!session) return spaceRedirect(SPACE_PATH);
  const notice = query.fait !== undefined ? DONE_NOTICES_FR[query.fait] : undefined;
  return leadPage(app, session, params, { csrfToken: session.csrfToken, ...(notice ? { notice } : {}) });
}

/** French words for what the response form refuses, by field. */
const FORM_ERRORS_FR: Record<string, (code: string) => string> = {
  answer: (message) =>
    message === "is required to answer"
      ? "Écrivez votre réponse, ou choisissez de marquer la demande comme traitée ou déclinée."
      : message.startsWith("must be at most")
        ? "Votre réponse est trop longue : raccourcissez-la."
        : "Votre réponse contient des caractères qui ne peuvent pas être envoyés : retirez-les.",
  outcome: () => "Choisissez ce que devient la demande.",
};

/** POST /pro/{ab_id}/demandes/{lead_id}: the merchant's answer and/or its status (CSRF token required). */
export async function answerLeadResponse(
  app: App,
  request: RouteRequest,
  params: { abId: string; leadId: string },
  form: LeadResponseForm,
): Promise<Reply> {
  const session = requireCsrf((await spacePage(app, request)).session, form.csrf);
  const listing = await requireClaimedListing(spaceDeps(app), session, params.abId);
  const parsed = leadResponseSchema.safeParse({ answer: form.answer, outcome: form.outcome });
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? "outcome");
      errors[field] ??= (FORM_ERRORS_FR[field] ?? FORM_ERRORS_FR.outcome)?.(issue.message) ?? "";
    }
    return leadPage(
      app,
      session,
      params,
      {
        csrfToken: session.csrfToken,
        ...(form.answer !== undefined ? { answer: form.answer } : {}),
        ...(form.outcome !== undefined ? { outcome: form.outcome } : {}),
        errors,
      },
      400,
    );
  }
  try {
    const result = await respondToLead(respondDeps(app), listing, params.leadId, parsed.data);
    const done = result.answerId !== null ? "answered" : result.status;
    return spaceRedirect(`${leadPath(params.abId, result.leadId)}?fait=${done}`);
  } catch (failure) {
    // A limit reached: the form again with what was typed and why, in French (nothing was written).
    const refusal = isServiceError(failure)
      ? REFUSALS_FR[failure.code]?.(failure.details.retryAfterSeconds)
      : undefined;
    if (!refusal || !isServiceError(failure)) throw failure;
    const retryAfter = failure.details.retryAfterSeconds;
    const page = await leadPage(
      app,
      session,
      params,
      {
        csrfToken: session.csrfToken,
        answer: form.answer ?? "",
        outcome: parsed.data.outcome,
        errors: { answer: refusal },
      },
      failure.code === "RATE_LIMITED" ? 429 : 409,
    );
    if (retryAfter !== undefined) page.headers["retry-after"] = String(retryAfter);
    return page;
  }
}

const REFUSALS_FR: Partial<Record<string, (retryAfterSeconds: number | undefined) => string>> = {
  RATE_LIMITED: (retryAfter) =>
    `Votre fiche a envoyé ${LEAD_ANSWERS_PER_LISTING_HOURLY} réponses dans l'heure, le maximum. Réessayez dans ${Math.max(1, Math.ceil((retryAfter ?? 60) / 60))} minute(s) ; votre texte est conservé ci-dessous.`,
  CONFLICT: () =>
    `Cette demande a déjà reçu ${MAX_ANSWERS_PER_LEAD} réponses depuis votre espace, le maximum : poursuivez l'échange par e-mail avec la personne.`,
};

async function leadPage(
  app: App,
  session: SpaceSession,
  params: { abId: string; leadId: string },
  state: LeadFormState,
  status = 200,
): Promise<Reply> {
  const listing = await requireClaimedListing(spaceDeps(app), session, params.abId);
  const found = await findMerchantLead(app, listing, params.leadId);
  return spaceDocument(
    app,
    renderProPage({
      title: `Demande · ${listing.listing.businessName}`,
      session,
      body: renderLeadDetailBody(params.abId, found, state),
    }),
    { status },
  );
}
