import { isServiceError } from "../../../errors/service-error.ts";
import { methodNotAllowed } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { documentResponse, pageRoute, viewDepsOf } from "../../../publish/http.ts";
import { renderMicrosite } from "../../../publish/microsite.ts";
import { renderNotFoundPage } from "../../../publish/not-found-page.ts";
import { loadPublishedView } from "../../../publish/view.ts";
import { AB_ID_PATTERN } from "../../../schemas/common.ts";

/**
 * The merchant's microsite (HTML, French). An endpoint rather than an .astro page: the page is one
 * pure function of the merchant (src/publish/microsite.ts), so it is unit-tested without a build,
 * rendered identically by the server and by any job, and gets the same strong ETag / 304 handling
 * as the other documents. People get a French 404 page for unknown, suspended and archived merchants.
 */
export const GET = pageRoute(operation("getMerchantMicrosite"), ({ app, params }) => {
  const abId = params.ab_id ?? "";
  const notFound = () =>
    documentResponse(renderNotFoundPage({ title: "Commerçant introuvable" }), {
      status: 404,
      cacheControl: "no-store",
    });
  if (!AB_ID_PATTERN.test(abId)) return notFound();
  try {
    return documentResponse(renderMicrosite(loadPublishedView(viewDepsOf(app), abId)));
  } catch (failure) {
    if (isServiceError(failure) && failure.code === "MERCHANT_NOT_FOUND") return notFound();
    throw failure;
  }
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
