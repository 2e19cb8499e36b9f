import { AsyncLocalStorage } from "node:async_hooks";
import { getApp } from "../app.ts";
import type { Config } from "../config/config.ts";
import type { errorCatalog } from "../errors/catalog.ts";
import type { OperationSpec } from "../openapi/operations.ts";
import type { RequestContext } from "./envelope.ts";
import { type Reply, reply } from "./reply.ts";
import { errorAnswer, JSON_TYPE } from "./respond.ts";
import { endpointOf, type OperationContext, type OperationEndpoint, route } from "./route.ts";
import type { HeaderSource, RouteRequest } from "./route-request.ts";

/**
 * The agent endpoints that speak JSON-RPC 2.0 over HTTP (/api/mcp, /api/a2a). Three things set
 * them apart from the REST routes:
 * - DNS-rebinding protection: the Host header must name BASE_URL's host, a loopback host or one
 *   listed in MCP_ALLOWED_HOSTS, and an Origin header, when sent, BASE_URL's origin, a loopback
 *   origin or one of MCP_ALLOWED_ORIGINS; anything else is 403 before any other work.
 * - The body is read first (at most `maxBytes`), so that a refusal can echo the request's id.
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

/** Why the Host or Origin header is refused (DNS-rebinding protection), or null. */
export function rebindingProblem(
  config: Pick<Config, "baseUrl" | "agentEndpoints">,
  headers: HeaderSource,
): string | null {
  const base = new URL(config.baseUrl);
  const { allowedHosts, allowedOrigins } = config.agentEndpoints;
  const host = headers.get("host");
  if (host !== null && !allowedHosts.includes("*")) {
    const name = hostnameOf(host);
    const known = name === base.hostname.toLowerCase() || LOOPBACK_HOSTS.has(name) || allowedHosts.includes(name);
    if (!known) return `the Host header (${host.slice(0, 100)}) names no host this service answers for`;
  }
  const origin = headers.get("origin");
  if (origin !== null && !allowedOrigins.includes("*")) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    const known =
      parsed !== null &&
      (parsed.origin === base.origin ||
        LOOPBACK_HOSTS.has(parsed.hostname.toLowerCase()) ||
        allowedOrigins.includes(parsed.origin.toLowerCase()));
    if (!known) return `the Origin header (${origin.slice(0, 100)}) is not an origin allowed to call this endpoint`;
  }
  return null;
}

function idOf(text: string | null): JsonRpcId {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value) || !("id" in value)) return null;
    const id = (value as { id: unknown }).id;
    return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
  } catch {
    return null;
  }
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

/**
 * A JSON-RPC endpoint of a described operation: rebinding check, body read, then the usual guard
 * (kill switch, key, rate limit) with JSON-RPC refusals, then `handler` with the buffered post.
 * `headerNames`: the request headers the handler passes on to its protocol library.
 */
export function jsonRpcRoute<Spec extends OperationSpec>(
  operation: Spec,
  options: { maxBytes: number; headerNames: readonly string[] },
  handler: (route: OperationContext<Spec>, post: BufferedPost) => Reply | Promise<Reply>,
): OperationEndpoint<Spec> {
  const posts = new WeakMap<RouteRequest, BufferedPost>();
  const guarded = route(
    operation,
    (context) => {
      const post = posts.get(context.request);
      if (!post) throw new Error("jsonRpcRoute: the request was not buffered");
      return handler(context, post);
    },
    { renderFailure: renderJsonRpcFailure },
  );
  const endpoint = endpointOf(async (input) => {
    const problem = rebindingProblem(getApp().config, input.request.headers);
    if (problem !== null) {
      return jsonRpcErrorReply(403, null, -32600, `Invalid Request: ${problem}`, {
        code: "FORBIDDEN",
        status: 403,
        hint: "Call the endpoint on the service's own host name (BASE_URL); the operator lists other hosts and origins in MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS",
      });
    }
    let text: string | null;
    try {
      text = await input.request.readBody(options.maxBytes);
    } catch {
      // Over the cap (the body is drained by readBody), or cut off: the handler answers it after the guard.
      text = null;
    }
    const request = buffered(input.request, text);
    posts.set(request, {
      body: text,
      id: idOf(text),
      headers: webHeaders(input.request.headers, options.headerNames),
      url: input.request.url,
    });
    return requestIds.run(idOf(text), () => guarded.handle({ ...input, request }));
  });
  return Object.assign(endpoint, { operation });
}
