import { hash } from "node:crypto";
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

/**
 * UTF-8 bytes written into one buffer kept from a call to the next, for a thread that publishes
 * thousands of documents: each answer is valid until the next call. renderedDocument's body is a
 * buffer of its own (and the UTF-16 copy utf8Bytes makes of a long text another one): a full
 * refresh allocated about three bytes outside the heap for every byte it published, and that
 * garbage set V8's collections and glibc's arenas going (issue 35: CPU time and RSS). The bytes
 * are Buffer.from's (the same encoder; a lone surrogate becomes U+FFFD as there).
 */
export function utf8Writer(): (text: string) => Buffer {
  let buffer = Buffer.allocUnsafeSlow(64 * 1024);
  return (text) => {
    // At most three bytes a UTF-16 code unit.
    if (buffer.length < 3 * text.length) buffer = Buffer.allocUnsafeSlow(6 * text.length);
    return buffer.subarray(0, buffer.write(text, 0, "utf8"));
  };
}

export function bodyHash(body: Uint8Array): string {
  return hash("sha256", body, "base64");
}

/** Strong entity tag of a body: `"sha256-<base64>"`. */
export function etagOf(hash: string): string {
  return `"sha256-${hash}"`;
}

// One home for the If-None-Match rule: the server edge applies it to every answer.
export { matchesIfNoneMatch } from "../http/conventions.ts";

export interface StableEnvelopeParts {
  /** The answer's data, or its JSON text already printed (jsonWithKnown). */
  data: unknown;
  dataText?: string;
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
  const envelope = {
    success: true,
    data: parts.dataText === undefined ? parts.data : DATA_TEXT,
    _actions: parts.actions,
    _links: { self: parts.canonical, canonical: parts.canonical, ...(parts.links ?? {}) },
    _state: parts.state,
    _meta: { protocol: PROTOCOL, version: PROTOCOL_VERSION, timestamp: parts.timestamp },
  };
  if (parts.dataText === undefined) return JSON.stringify(envelope);
  const known = new Map<object, string>([[DATA_TEXT, parts.dataText]]);
  return jsonWithKnown(envelope, known);
}

/** Where a data text already printed goes in the envelope. */
const DATA_TEXT = Object.freeze({});

/**
 * What JSON.stringify prints for a plain object, member by member in the object's own order, but
 * a member whose value is one of `known`'s objects is printed as its known text (a text computed
 * once for several documents: the decision card's members, canonical-json.ts). Members
 * JSON.stringify leaves out (undefined, functions, symbols) are left out.
 */
export function jsonWithKnown(object: object, known: ReadonlyMap<object, string>): string {
  const members = object as Record<string, unknown>;
  let out = "{";
  for (const key of Object.keys(members)) {
    const value = members[key];
    const text: string | undefined =
      (typeof value === "object" && value !== null ? known.get(value) : undefined) ?? JSON.stringify(value);
    if (text === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}
