import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { utf8Bytes } from "../domain/utf8.ts";
import { PAGE_SECURITY_HEADERS } from "../publish/page-policy.ts";
import type { Reply } from "./reply.ts";

/**
 * The HTTP conventions every answer of the server follows, applied once where it writes an answer
 * to the socket (routes, the published-file fast path, the build's static files):
 *
 * - CORS: every answer but people's HTML pages may be read from any origin (no cookie carries a
 *   credential here: keys come in headers a page sets itself), with the headers clients read
 *   exposed; preflights are answered by the router (src/http/router.ts).
 * - HTML pages carry their Content-Security-Policy and may not be framed (src/publish/page-policy.ts).
 * - Validators: a successful GET without an ETag gets one from its content: weak for a navigation
 *   envelope (its `_meta` is the request's own: request id and time), strong for a bare document;
 *   `If-None-Match` that matches gives 304 without a body.
 * - Compression: JSON, HTML, Markdown, text, CSS and JS bodies of 1 KiB or more are sent with
 *   brotli or gzip when the request's Accept-Encoding allows it (brotli first), with
 *   `Vary: Accept-Encoding`. A compressed answer's strong ETag becomes weak (the bytes differ, the
 *   content does not), as nginx does. Compressed bytes of answers with a strong ETag (same tag,
 *   same bytes: published documents, the OpenAPI document, static files) are kept in memory.
 */

/** What clients send: content negotiation, keys, idempotency, tracking tokens, MCP's and A2A's headers. */
export const CORS_ALLOWED_HEADERS = [
  "content-type",
  "accept",
  "accept-language",
  "authorization",
  "x-api-key",
  "idempotency-key",
  "x-tracking-token",
  "if-none-match",
  "mcp-protocol-version",
  "mcp-session-id",
  "mcp-method",
  "mcp-name",
  "a2a-version",
  "a2a-extensions",
  "last-event-id",
  "x-request-id",
];
/** What a cross-origin reader may see besides the simple headers. */
export const CORS_EXPOSED_HEADERS = [
  "x-request-id",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
  "etag",
  "link",
  "location",
  "mcp-session-id",
  "mcp-protocol-version",
  "www-authenticate",
];

/** Below this, the compressed answer saves less than the work and the headers cost. */
export const COMPRESSION_MIN_BYTES = 1024;
/** Bytes of compressed answers kept per process (LRU). */
const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;

export type Coding = "br" | "gzip";

const COMPRESSIBLE =
  /^(application\/([a-z.+-]*\+)?json|application\/(ld\+json|jwk-set\+json|xml)|text\/|image\/svg\+xml)/i;

export function isCompressible(contentType: string | undefined): boolean {
  return contentType !== undefined && COMPRESSIBLE.test(contentType) && !/^text\/event-stream/i.test(contentType);
}

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 12.5.3): brotli when accepted, else
 * gzip, else none; `q=0` refuses a coding, `*` stands for any coding not named.
 */
export function negotiateCoding(acceptEncoding: string | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(param);
      if (match?.[1] !== undefined) weight = Number(match[1]);
    }
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: string) => weights.get(coding) ?? (coding === "gzip" ? weights.get("x-gzip") : undefined);
  const any = weights.get("*");
  const br = weightOf("br") ?? any ?? 0;
  const gzip = weightOf("gzip") ?? any ?? 0;
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return null;
}

export function compress(body: Buffer, coding: Coding, cached: boolean): Buffer {
  if (coding === "gzip") return zlib.gzipSync(body, { level: cached ? 9 : 6 });
  return zlib.brotliCompressSync(body, {
    params: {
      // Quality 4 compresses about as well as gzip -6, faster; kept answers are worth quality 9.
      [zlib.constants.BROTLI_PARAM_QUALITY]: cached ? 9 : 4,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

const compressedCache = new Map<string, Buffer>();
let compressedCacheBytes = 0;

function compressedOnce(key: string, body: Buffer, coding: Coding): Buffer {
  const kept = compressedCache.get(key);
  if (kept) {
    compressedCache.delete(key);
    compressedCache.set(key, kept);
    return kept;
  }
  const compressed = compress(body, coding, true);
  compressedCache.set(key, compressed);
  compressedCacheBytes += compressed.length;
  for (const [oldKey, value] of compressedCache) {
    if (compressedCacheBytes <= COMPRESSED_CACHE_BYTES) break;
    compressedCache.delete(oldKey);
    compressedCacheBytes -= value.length;
  }
  return compressed;
}

/**
 * Whether an If-None-Match header matches an entity tag (RFC 9110 weak comparison, as GET asks):
 * `*`, or any listed tag equal to ours once a `W/` prefix is ignored.
 */
export function matchesIfNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  const bare = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const part of trimmed.split(",")) {
    const tag = part.trim();
    if ((tag.startsWith("W/") ? tag.slice(2) : tag) === bare) return true;
  }
  return false;
}

const META_MEMBER = Buffer.from(',"_meta":');

/**
 * The entity tag of a body from its content. A navigation envelope's `_meta` (request id, time) is
 * the request's own, so its tag covers what precedes it and is weak; any other body's is strong.
 */
export function contentEtag(body: Buffer, contentType: string): string {
  const isEnvelope = /json/i.test(contentType) && body[0] === 0x7b && body.includes('{"success":true');
  const metaAt = isEnvelope ? body.lastIndexOf(META_MEMBER) : -1;
  const covered = metaAt === -1 ? body : body.subarray(0, metaAt);
  const tag = `"${createHash("sha1").update(covered).digest("base64url")}"`;
  return metaAt === -1 ? tag : `W/${tag}`;
}

function addVary(headers: Record<string, string>, name: string): void {
  const current = headers.vary;
  if (!current) headers.vary = name;
  else if (
    !current
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes(name.toLowerCase())
  )
    headers.vary = `${current}, ${name}`;
}

/** Header values as strings with lower-case names. */
function normalized(headers: Record<string, string | number | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) result[name.toLowerCase()] = String(value);
  return result;
}

/** The request as the conventions read it. */
export interface AnsweredRequest {
  method: string;
  headers: { "accept-encoding"?: string | undefined; "if-none-match"?: string | undefined };
}

/** What the server writes for an answer: the conventions above applied. */
export function finishAnswer(request: AnsweredRequest, answer: Reply): Reply {
  const headers = normalized(answer.headers);
  const contentType = headers["content-type"];
  const isHtml = contentType?.startsWith("text/html") ?? false;
  if (!isHtml && headers["access-control-allow-origin"] === undefined) {
    headers["access-control-allow-origin"] = "*";
  }
  if (isHtml) for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) headers[name] ??= value;
  if (headers["access-control-allow-origin"] !== undefined && headers["access-control-expose-headers"] === undefined) {
    headers["access-control-expose-headers"] = CORS_EXPOSED_HEADERS.join(", ");
  }
  let body =
    answer.body === null
      ? null
      : typeof answer.body === "string"
        ? utf8Bytes(answer.body)
        : Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
  const isRead = request.method === "GET" || request.method === "HEAD";
  let status = answer.status;

  if (isRead && status === 200 && body !== null && contentType !== undefined && headers.etag === undefined) {
    headers.etag = contentEtag(body, contentType);
  }
  const compressible = isCompressible(contentType) && body !== null && status !== 204 && status !== 304;
  if (compressible) addVary(headers, "Accept-Encoding");
  const coding =
    compressible && body !== null && body.length >= COMPRESSION_MIN_BYTES && headers["content-encoding"] === undefined
      ? negotiateCoding(request.headers["accept-encoding"])
      : null;
  // The identity bytes' strong tag: the key of their kept compressed bytes.
  const identityTag = headers.etag && !headers.etag.startsWith("W/") ? headers.etag : null;
  if (coding && identityTag) headers.etag = `W/${identityTag}`;
  if (isRead && status === 200 && headers.etag && matchesIfNoneMatch(request.headers["if-none-match"], headers.etag)) {
    // The 304 carries the validator and the Vary of the answer it stands for (RFC 9110 15.4.5).
    status = 304;
    body = null;
    delete headers["content-type"];
    delete headers["content-length"];
  }
  if (status === 304) addVary(headers, "Accept-Encoding");
  if (coding && body !== null) {
    body = identityTag ? compressedOnce(`${identityTag}|${coding}`, body, coding) : compress(body, coding, false);
    headers["content-encoding"] = coding;
  }
  if (body !== null) headers["content-length"] = String(body.length);
  // A bodiless answer (a redirect) says so on HEAD as Node says it on GET.
  else if (status !== 204 && status !== 304) headers["content-length"] = "0";
  return { status, headers, body };
}

function answeredRequest(request: IncomingMessage): AnsweredRequest {
  return {
    method: request.method ?? "GET",
    headers: {
      "accept-encoding": request.headers["accept-encoding"],
      "if-none-match": request.headers["if-none-match"],
    },
  };
}

/** Writes an answer with the conventions applied (no body on HEAD, its headers as on GET). */
export function writeAnswer(request: IncomingMessage, response: ServerResponse, answer: Reply): void {
  writeFinished(request, response, finishAnswer(answeredRequest(request), answer));
}

/**
 * Writes an answer the conventions were applied to, with the request's X-Request-Id (fixed on the
 * request at the server edge, jobs/serve.ts) unless the answer carries its own. One header object
 * for writeHead: a header set on the response before makes Node copy every header one by one.
 */
function writeFinished(request: IncomingMessage, response: ServerResponse, finished: Reply): void {
  const requestId = request.headers["x-request-id"];
  const headers = typeof requestId === "string" ? { "x-request-id": requestId, ...finished.headers } : finished.headers;
  response.writeHead(finished.status, headers);
  response.end(request.method === "HEAD" || finished.body === null ? undefined : finished.body);
}

/** Request variants (method, Accept-Encoding, If-None-Match) one fixed answer keeps its finished form for. */
const FIXED_ANSWER_VARIANTS = 8;

/**
 * A writer for an answer whose status, headers and bytes are the same for every request (a
 * published file): what the conventions make of it is kept per variant of the request fields they
 * read, so writing it again costs a lookup. (It holds the compressed bytes it was given while the
 * caller holds the writer.)
 */
export function fixedAnswerWriter(answer: Reply): (request: IncomingMessage, response: ServerResponse) => void {
  const finished = new Map<string, Reply>();
  return (request, response) => {
    const asked = answeredRequest(request);
    let variant = asked.method;
    for (const value of Object.values(asked.headers)) variant += `\n${value ?? ""}`;
    let reply = finished.get(variant);
    if (reply === undefined) {
      reply = finishAnswer(asked, answer);
      if (finished.size < FIXED_ANSWER_VARIANTS) finished.set(variant, reply);
    }
    writeFinished(request, response, reply);
  };
}
