import { AsyncLocalStorage } from "node:async_hooks";
import { getApp } from "../app.ts";
import type { Config } from "../config/config.ts";
import type { errorCatalog } from "../errors/catalog.ts";
import type { OperationSpec } from "../openapi/operations.ts";
import { corsPreflight } from "./cors.ts";
import type { RequestContext } from "./envelope.ts";
import { type Reply, reply } from "./reply.ts";
import { errorAnswer, JSON_TYPE } from "./respond.ts";
import { type Endpoint, endpointOf, type OperationContext, type OperationEndpoint, route } from "./route.ts";
import type { HeaderSource, RouteRequest } from "./route-request.ts";

/**
 * The agent endpoints that speak JSON-RPC 2.0 over HTTP (/api/mcp, /api/a2a). Three things set
 * them apart from the REST routes:
 * - DNS-rebinding protection (`rebindingProblem`): the Host header must name BASE_URL's host, a
 *   loopback host or one listed in MCP_ALLOWED_HOSTS; an Origin header, when sent, must be a known
 *   one, or any web origin when the call reaches a public BASE_URL's own host; anything else is
 *   403 before any other work, and the CORS preflight (`jsonRpcPreflight`) says the same.
 * - The body is read first (at most `maxBytes`), so that a refusal can echo the request's id (and
 *   a batch counts one call per request in it on the rate limits).
 * - Refusals of the guard (kill switch, API key, rate limit, permission) are JSON-RPC error
 *   objects, the HTTP status and headers (Retry-After, RateLimit) kept, the service's error code
 *   and recovery steps in `error.data`: a JSON-RPC client reads them where it reads every error.
 */

export type JsonRpcId = string | number | null;

/** JSON-RPC codes of the guard's refusals: the server-error range, the HTTP status in the last digits. */
export const REFUSAL_CODES: Record<number, number> = {
  401: -32001,
  403: -32003,
  404: -32004,
  429: -32029,
  503: -32053,
};
const SERVER_ERROR = -32000;
const INTERNAL_ERROR = -32603;

export interface BufferedPost {
  /** The body text, or `null` when it was over the cap. */
  body: string | null;
  /** The request's JSON-RPC id when the body is a JSON object with a valid one, else null. */
  id: JsonRpcId;
  /** The request's headers, as a web Headers. */
  headers: Headers;
  url: string;
}

/** A JSON-RPC error answer, status kept. */
export function jsonRpcErrorReply(
  status: number,
  id: JsonRpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Reply {
  return reply(
    status,
    JSON.stringify({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } }),
    { "content-type": JSON_TYPE, "cache-control": "no-store", ...headers },
  );
}

const requestIds = new AsyncLocalStorage<JsonRpcId>();

/** The guard's refusals and unexpected faults as JSON-RPC errors, with the id of the request being answered. */
export function renderJsonRpcFailure(context: RequestContext, failure: unknown): Reply {
  const { status, headers, body } = errorAnswer(context, failure);
  const error = body.error as { code: keyof typeof errorCatalog; message: string };
  const code = status >= 500 && status !== 503 ? INTERNAL_ERROR : (REFUSAL_CODES[status] ?? SERVER_ERROR);
  return jsonRpcErrorReply(
    status,
    requestIds.getStore() ?? null,
    code,
    error.message,
    { code: error.code, status, _actions: body._actions, request_id: context.requestId },
    headers,
  );
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Private-use names and addresses: a page on the web must not reach a service there through the visitor's browser. */
const PRIVATE_NAME = /(^[^.]+$|\.(local|localhost|internal|intranet|lan|home|corp|home\.arpa)$)/;
const PRIVATE_IPV4 = /^(0|10|127)\.|^169\.254\.|^172\.(1[6-9]|2\d|3[01])\.|^192\.168\./;
const PRIVATE_IPV6 = /^\[(::1?|f[cd][0-9a-f]{0,2}:.*|fe[89ab][0-9a-f]?:.*|::ffff:.*)\]$/;

/**
 * Whether BASE_URL names a host on the public internet, which anyone may reach from anywhere (a
 * browser page included): not a loopback, private, link-local or single-label name or address.
 */
export function isPublicHost(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (name.startsWith("[")) return !PRIVATE_IPV6.test(name);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return !PRIVATE_IPV4.test(name);
  return !LOOPBACK_HOSTS.has(name) && !PRIVATE_NAME.test(name);
}

/**
 * Why the Host or Origin header is refused (DNS-rebinding protection), or null.
 *
 * - Host: BASE_URL's host, a loopback host or one of MCP_ALLOWED_HOSTS ("*": any).
 * - Origin, when sent: BASE_URL's origin, a loopback origin or one of MCP_ALLOWED_ORIGINS ("*":
 *   any); besides, on a public BASE_URL, any web (http, https) origin calling the public host
 *   itself: the service is open to the whole internet and takes no ambient credential (no
 *   cookie; the key travels in Authorization), so a page on another site gains nothing a server
 *   could not do. A call that reaches a loopback or another listed host still needs a known
 *   origin: that is what keeps a web page from driving a service through the visitor's machine.
 */
export function rebindingProblem(
  config: Pick<Config, "baseUrl" | "agentEndpoints">,
  headers: HeaderSource,
): string | null {
  const base = new URL(config.baseUrl);
  const baseHost = base.hostname.toLowerCase();
  const { allowedHosts, allowedOrigins } = config.agentEndpoints;
  const host = headers.get("host");
  const hostname = host === null ? null : hostnameOf(host);
  if (hostname !== null && !allowedHosts.includes("*")) {
    const known = hostname === baseHost || LOOPBACK_HOSTS.has(hostname) || allowedHosts.includes(hostname);
    if (!known) return `the Host header (${(host ?? "").slice(0, 100)}) names no host this service answers for`;
  }
  const origin = headers.get("origin");
  if (origin !== null && !allowedOrigins.includes("*")) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    const isWebOrigin = parsed !== null && (parsed.protocol === "https:" || parsed.protocol === "http:");
    const known =
      parsed !== null &&
      (parsed.origin === base.origin ||
        LOOPBACK_HOSTS.has(parsed.hostname.toLowerCase()) ||
        allowedOrigins.includes(parsed.origin.toLowerCase()));
    const publicCall = hostname === baseHost && isPublicHost(baseHost);
    if (!known && !(publicCall && isWebOrigin)) {
      return `the Origin header (${origin.slice(0, 100)}) is not an origin allowed to call this endpoint`;
    }
  }
  return null;
}

function parsedOrNull(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function idOf(value: unknown): JsonRpcId {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("id" in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

/** The calls a body asks for: one, or the requests (members with a method and an id) of a batch. */
function callsIn(value: unknown): number {
  if (!Array.isArray(value)) return 1;
  const requests = value.filter(
    (item) => typeof item === "object" && item !== null && "method" in item && "id" in item,
  );
  return Math.max(1, requests.length);
}

function webHeaders(source: HeaderSource, names: Iterable<string>): Headers {
  const headers = new Headers();
  for (const name of names) {
    const value = source.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/** The request with its body already read: the handler reads it again from memory. */
function buffered(request: RouteRequest, text: string | null): RouteRequest {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    readBody: async () => text ?? "",
    toWebRequest: () => new Request(request.url, { method: request.method, body: text ?? "" }),
  };
}

/** The 403 of a refused Host or Origin, before any other work. */
function rebindingRefusal(problem: string): Reply {
  return jsonRpcErrorReply(403, null, -32600, `Invalid Request: ${problem}`, {
    code: "FORBIDDEN",
    status: 403,
    hint: "Call the endpoint on the service's own host name (BASE_URL); the operator lists other hosts and origins in MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS",
  });
}

/**
 * The CORS preflight of a JSON-RPC endpoint, under the same Host and Origin rule as its POST: a
 * browser is told yes exactly when the POST it asks about would be answered, and no (403) when
 * the POST would be refused.
 */
export function jsonRpcPreflight(methods: string[]): Endpoint {
  const preflight = corsPreflight(methods);
  return endpointOf(async (input) => {
    const problem = rebindingProblem(getApp().config, input.request.headers);
    return problem === null ? preflight.handle(input) : rebindingRefusal(problem);
  });
}

/**
 * A JSON-RPC endpoint of a described operation: rebinding check, body read, then the usual guard
 * (kill switch, key, rate limit) with JSON-RPC refusals, then `handler` with the buffered post.
 * `headerNames`: the request headers the handler passes on to its protocol library.
 */
export function jsonRpcRoute<Spec extends OperationSpec>(
  operation: Spec,
  options: {
    maxBytes: number;
    headerNames: readonly string[];
    /** The endpoint answers JSON-RPC batches: each request in one counts as a call on the rate limits. */
    batches?: boolean;
  },
  handler: (route: OperationContext<Spec>, post: BufferedPost) => Reply | Promise<Reply>,
): OperationEndpoint<Spec> {
  const posts = new WeakMap<RouteRequest, BufferedPost>();
  const calls = new WeakMap<RouteRequest, number>();
  const guarded = route(
    operation,
    (context) => {
      const post = posts.get(context.request);
      if (!post) throw new Error("jsonRpcRoute: the request was not buffered");
      return handler(context, post);
    },
    { renderFailure: renderJsonRpcFailure, cost: (request) => calls.get(request) ?? 1 },
  );
  const endpoint = endpointOf(async (input) => {
    const problem = rebindingProblem(getApp().config, input.request.headers);
    if (problem !== null) return rebindingRefusal(problem);
    let text: string | null;
    try {
      text = await input.request.readBody(options.maxBytes);
    } catch {
      // Over the cap (the body is drained by readBody), or cut off: the handler answers it after the guard.
      text = null;
    }
    const request = buffered(input.request, text);
    const parsed = parsedOrNull(text);
    const id = idOf(parsed);
    posts.set(request, {
      body: text,
      id,
      headers: webHeaders(input.request.headers, options.headerNames),
      url: input.request.url,
    });
    if (options.batches) calls.set(request, callsIn(parsed));
    return requestIds.run(id, () => guarded.handle({ ...input, request }));
  });
  return Object.assign(endpoint, { operation });
}
