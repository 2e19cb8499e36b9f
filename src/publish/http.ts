import type { App } from "../app.ts";
import { resolveDeps } from "../domain/registry/registry-deps.ts";
import type { Reply } from "../http/reply.ts";
import { route } from "../http/route.ts";
import type { RouteRequest } from "../http/route-request.ts";
import { DOCUMENT_CACHE_CONTROL, etagOf, matchesIfNoneMatch, type RenderedDocument } from "./document.ts";
import { renderNotFoundPage } from "./not-found-page.ts";
import type { ViewDeps } from "./view.ts";

export function viewDepsOf(app: App): ViewDeps {
  return resolveDeps(app);
}

/**
 * The HTTP answer for a rendered document: strong ETag from the body's hash, 304 without a body
 * when If-None-Match matches, the same headers as a published file served by jobs/serve.ts.
 */
export function documentResponse(
  request: RouteRequest,
  document: RenderedDocument,
  options: { status?: number; cacheControl?: string; headers?: Record<string, string> } = {},
): Reply {
  const etag = etagOf(document.hash);
  const status = options.status ?? 200;
  const headers: Record<string, string> = {
    "content-type": document.contentType,
    etag,
    "cache-control": options.cacheControl ?? DOCUMENT_CACHE_CONTROL,
    // Public, read-only documents: any origin may read them (the published files say the same).
    ...(document.contentType.startsWith("text/html") ? {} : { "access-control-allow-origin": "*" }),
    "x-content-type-options": "nosniff",
    ...(options.headers ?? {}),
  };
  if (status === 200 && matchesIfNoneMatch(request.headers.get("if-none-match"), etag)) {
    return { status: 304, headers: { etag, "cache-control": headers["cache-control"] ?? "" }, body: null };
  }
  headers["content-length"] = String(document.body.byteLength);
  return { status, headers, body: request.method === "HEAD" ? null : document.body };
}

/**
 * The French "page not found" for any path outside the API that no route serves: the same page as
 * src/pages/404.astro (which `astro dev` renders), answered by our server itself.
 */
export const pageNotFound = route("open", ({ request }) =>
  documentResponse(request, renderNotFoundPage(), { status: 404, cacheControl: "no-store" }),
);
