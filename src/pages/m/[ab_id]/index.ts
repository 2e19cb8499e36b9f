import { isServiceError } from "../../../errors/service-error.ts";
import { methodNotAllowed } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { documentResponse, FORM_FAILURES, pageRoute, viewDepsOf } from "../../../publish/http.ts";
import { answerLeadForm } from "../../../publish/lead-form.ts";
import { renderMicrosite } from "../../../publish/microsite.ts";
import { renderNotFoundPage } from "../../../publish/not-found-page.ts";
import { loadPublishedView } from "../../../publish/view.ts";
import { AB_ID_PATTERN } from "../../../schemas/common.ts";

/**
 * The merchant's microsite (HTML, French). An endpoint rather than an .astro page: the page is one
 * pure function of the merchant (src/publish/microsite.ts), so it is unit-tested without a build,
 * rendered identically by the server and by any job, and gets the same strong ETag / 304 handling
 * as the other documents. People get a French 404 page for unknown, suspended and archived merchants.
 * POST is its lead form sent without JavaScript: the page again, saying what became of the lead.
 */
const notFound = () =>
  documentResponse(renderNotFoundPage({ title: "Commerçant introuvable" }), {
    status: 404,
    cacheControl: "no-store",
  });

/** Unknown, suspended and archived merchants are the 404 page; any other failure goes on. */
function orNotFound(failure: unknown) {
  if (isServiceError(failure) && failure.code === "MERCHANT_NOT_FOUND") return notFound();
  throw failure;
}

export const GET = pageRoute(operation("getMerchantMicrosite"), async ({ app, params }) => {
  const abId = params.ab_id ?? "";
  if (!AB_ID_PATTERN.test(abId)) return notFound();
  try {
    const form = { token: app.pageFormTokens.issue(abId) };
    return documentResponse(renderMicrosite(await loadPublishedView(viewDepsOf(app), abId), form));
  } catch (failure) {
    return orNotFound(failure);
  }
});

export const POST = pageRoute(
  operation("submitLeadForm"),
  async ({ app, params, caller, body }) => {
    const abId = params.ab_id ?? "";
    if (!AB_ID_PATTERN.test(abId)) return notFound();
    const fields = await body();
    try {
      const { status, document } = await answerLeadForm(app, abId, fields, caller);
      // The answer carries the lead's tracking code (a bearer capability): never cached.
      return documentResponse(document, { status, cacheControl: "no-store" });
    } catch (failure) {
      return orNotFound(failure);
    }
  },
  FORM_FAILURES,
);

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET", "POST"]);
