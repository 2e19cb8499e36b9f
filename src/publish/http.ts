import type { App } from "../app.ts";
import type { ErrorCode } from "../errors/catalog.ts";
import { serviceErrorOf } from "../errors/service-error.ts";
import type { RequestContext } from "../http/envelope.ts";
import { PAGE_OPERATIONS } from "../http/guard.ts";
import type { Reply } from "../http/reply.ts";
import { reply } from "../http/reply.ts";
import { errorAnswer } from "../http/respond.ts";
import { guardedRoute, type OperationContext, type OperationEndpoint, route } from "../http/route.ts";
import type { OperationSpec } from "../openapi/operations.ts";
import { resolveDeps } from "../wiring.ts";
import { DOCUMENT_CACHE_CONTROL, etagOf, HTML_TYPE, type RenderedDocument } from "./document.ts";
import type { MerchantDocumentKind } from "./documents.ts";
import { buildNotFoundPage, renderNotFoundPage } from "./not-found-page.ts";
import type { MerchantView, ViewDeps } from "./view.ts";

export function viewDepsOf(app: App): ViewDeps {
  return resolveDeps(app);
}

/**
 * A merchant's document as its route renders it, kept per process until the store moves (a write
 * from any process) or the merchant's content period ends: the rule a published file is served
 * by (period.ts). The route answers what the publish folder does not (a merchant changed since the
 * last refresh, a server before its first) and rendering costs ten times serving: the first
 * request renders, the next ones until a change read the store revision only. A merchant `load`
 * refuses (404) is not kept.
 */
export async function keptDocument(
  app: App,
  kind: MerchantDocumentKind,
  abId: string,
  load: (deps: ViewDeps) => Promise<MerchantView>,
  render: (view: MerchantView) => RenderedDocument,
): Promise<RenderedDocument> {
  const revision = await app.merchants.revision();
  const kept = await app.keptDocuments.readOrLoad(`${kind}:${abId}`, revision, app.now().toISOString(), async () => {
    const view = await load(viewDepsOf(app));
    return { document: render(view), validUntil: view.period.until };
  });
  return kept.document;
}

/**
 * The HTTP answer for a rendered document: strong ETag from the body's hash, the same headers as a
 * published file served by jobs/serve.ts (which answers 304 on If-None-Match for both).
 */
export function documentResponse(
  document: RenderedDocument,
  options: { status?: number; cacheControl?: string; headers?: Record<string, string> } = {},
): Reply {
  const etag = etagOf(document.hash);
  const status = options.status ?? 200;
  const headers: Record<string, string> = {
    "content-type": document.contentType,
    etag,
    "cache-control": options.cacheControl ?? DOCUMENT_CACHE_CONTROL,
    "x-content-type-options": "nosniff",
    ...(options.headers ?? {}),
  };
  // The server writes no body on HEAD, with the headers (length, coding) GET would have.
  return { status, headers, body: document.body };
}

/** What a person reads when a page cannot be shown, by error code (French, like the pages). */
export type PageFailures = Partial<
  Record<ErrorCode, (retryAfterSeconds: number | undefined) => { title: string; message: string }>
>;

const PAGE_FAILURES: PageFailures = {
  RATE_LIMITED: (retryAfter) => ({
    title: "Trop de pages demandées",
    message: `Cette adresse a consulté beaucoup de pages en peu de temps. Réessayez dans ${retryAfter ?? 60} secondes.`,
  }),
  VALIDATION_ERROR: () => ({
    title: "Recherche impossible",
    message: "La recherche n'a pas pu être lue : chaque champ tient sur une ligne et compte au plus 100 caractères.",
  }),
  SERVICE_SUSPENDED: () => ({
    title: "Service momentanément suspendu",
    message: "Le registre est suspendu par ses opérateurs pour un moment. Réessayez plus tard.",
  }),
  STORE_UNAVAILABLE: (retryAfter) => ({
    title: "Registre momentanément indisponible",
    message: `La base du registre ne répond pas pour l'instant. Réessayez dans ${retryAfter ?? 2} secondes.`,
  }),
};

/**
 * A failure on a people's page: the catalog's status and headers (Retry-After), a French page
 * (`failures` words a route's own cases, over the common ones).
 */
export function renderPageFailure(context: RequestContext, failure: unknown, failures: PageFailures = {}): Reply {
  const { status, headers } = errorAnswer(context, failure);
  const known = serviceErrorOf(failure);
  const code = known ? known.code : "INTERNAL_ERROR";
  const retryAfter = known?.details.retryAfterSeconds;
  const text = (failures[code] ?? PAGE_FAILURES[code])?.(retryAfter) ?? {
    title: "Une erreur est survenue",
    message: "La page n'a pas pu être affichée. Réessayez dans un instant.",
  };
  return reply(status, buildNotFoundPage(text), {
    ...headers,
    "content-type": HTML_TYPE,
    "cache-control": "no-store",
  });
}

/** A route for people's pages: counted and stopped by the kill switch like the API, failures in French. */
export function pageRoute<Spec extends OperationSpec>(
  operation: Spec,
  handler: (route: OperationContext<Spec>) => Reply | Promise<Reply>,
  failures: PageFailures = {},
): OperationEndpoint<Spec> {
  // The OpenAPI document describes these failures as HTML from the operation's access: the two agree.
  if (!PAGE_OPERATIONS.has(operation.access)) {
    throw new Error(`${operation.operationId}: a page route needs a page operation, not ${operation.access}`);
  }
  return route(operation, handler, {
    renderFailure: (context, failure) => renderPageFailure(context, failure, failures),
  });
}

/** What a person reads when a form posted to a page cannot be read at all (not a field's fault). */
export const FORM_FAILURES: PageFailures = {
  VALIDATION_ERROR: () => ({
    title: "Formulaire illisible",
    message: "Le formulaire envoyé n'a pas pu être lu. Revenez à la page précédente et envoyez-le de nouveau.",
  }),
  PAYLOAD_TOO_LARGE: () => ({
    title: "Formulaire trop long",
    message: "Le formulaire envoyé dépasse la taille acceptée. Raccourcissez votre message et envoyez-le de nouveau.",
  }),
};

/**
 * The French "page not found" for any path outside the API that no route serves: the same page as
 * src/pages/404.astro (which `astro dev` renders), answered by our server itself.
 */
export const pageNotFound = guardedRoute(
  "page",
  () => documentResponse(renderNotFoundPage(), { status: 404, cacheControl: "no-store" }),
  { renderFailure: renderPageFailure },
);
