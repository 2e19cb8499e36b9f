import { createHash } from "node:crypto";
import { utf8Bytes } from "../domain/utf8.ts";
import { type Action, type MerchantState, PROTOCOL, PROTOCOL_VERSION } from "../schemas/envelope.ts";

export const JSON_TYPE = "application/json; charset=utf-8";
export const JSONLD_TYPE = "application/ld+json; charset=utf-8";
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
export const HTML_TYPE = "text/html; charset=utf-8";

/**
 * Published documents change only when their merchant does; caches may keep them five minutes and
 * then revalidate with the strong ETag (a 304 costs no body).
 */
export const DOCUMENT_CACHE_CONTROL = "public, max-age=300";

/** The exact bytes of one document, what both the endpoint and the refresh job hand out. */
export interface RenderedDocument {
  body: Buffer;
  contentType: string;
  /** SHA-256 of the body, base64 (the form Subresource Integrity uses). */
  hash: string;
}

export function renderedDocument(text: string, contentType: string): RenderedDocument {
  const body = utf8Bytes(text);
  return { body, contentType, hash: bodyHash(body) };
}

export function bodyHash(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("base64");
}

/** Strong entity tag of a body: `"sha256-<base64>"`. */
export function etagOf(hash: string): string {
  return `"sha256-${hash}"`;
}

// One home for the If-None-Match rule: the server edge applies it to every answer.
export { matchesIfNoneMatch } from "../http/conventions.ts";

export interface StableEnvelopeParts {
  data: unknown;
  actions: Action[];
  /** The canonical URL: `_links.self` and `_links.canonical` (a published file answers every query string). */
  canonical: string;
  links?: Record<string, string>;
  state: MerchantState | null;
  /** The document's own time (see period.ts), not the time of the request. */
  timestamp: string;
}

/**
 * The navigation envelope of a published document. Unlike a per-request answer it carries no
 * request id in `_meta` (the X-Request-Id header does) and `_meta.timestamp` is the document's
 * time, so the same content always gives the same bytes: a static file, an on-demand answer and
 * its ETag agree.
 */
export function stableEnvelope(parts: StableEnvelopeParts): string {
  return JSON.stringify({
    success: true,
    data: parts.data,
    _actions: parts.actions,
    _links: { self: parts.canonical, canonical: parts.canonical, ...(parts.links ?? {}) },
    _state: parts.state,
    _meta: { protocol: PROTOCOL, version: PROTOCOL_VERSION, timestamp: parts.timestamp },
  });
}
