import { AsyncLocalStorage } from "node:async_hooks";
import {
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type JsonRpcId, jsonRpcErrorReply } from "../http/json-rpc-endpoint.ts";
import { toWebResponse } from "../http/reply.ts";
import { logger } from "../logging.ts";
import { MCP_MAX_BATCH_MESSAGES } from "../openapi/jsonrpc.ts";
import { callTool } from "./call-tool.ts";
import { toolDescriptorsFor } from "./registry.ts";
import type { ToolContext } from "./tool.ts";

/**
 * POST /api/mcp: an MCP server over Streamable HTTP, stateless, answering plain JSON, built on the
 * official SDK's v2 generation (@modelcontextprotocol/server). Two eras share the endpoint:
 * - 2026-07-28 (stateless by design): every request carries its protocol version, client info and
 *   capabilities in `params._meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 *   headers; `server/discover` replaces `initialize`. The SDK's `createMcpHandler` serves it
 *   (modern-only, JSON answers), headers and envelope checked by the SDK.
 * - 2025-03-26 to 2025-11-25: `initialize` negotiates the version; each request is served by a
 *   fresh SDK server and stateless transport answering JSON (the SDK's `isLegacyRequest` tells
 *   the two apart, exactly as its own handler routes).
 *
 * Before the SDK sees a message, this module checks the JSON-RPC framing itself, so that protocol
 * faults get the JSON-RPC codes the service promises, with the request id echoed where there is
 * one: -32700 (not JSON), -32600 (not a JSON-RPC 2.0 request, wrong content type, body over
 * 64 KiB), -32602 (params of a known method malformed; unknown tool). -32601 (unknown method) comes
 * from the SDK. A notification (no id) is accepted with 202 and no body. An MCP-Protocol-Version
 * header naming a revision the endpoint does not speak is refused first, naming those it speaks.
 * A JSON-RPC batch is served for MCP 2025-03-26, the one revision whose transport has them (the
 * header names it, or is absent, which the spec reads as 2025-03-26): each message answered as if
 * posted alone, the answers in one array.
 */

export const MCP_MAX_BODY_BYTES = 64 * 1024;
/** The revision the SDK serves statelessly per request (server/discover), then those `initialize` negotiates. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** The oldest revision served: its Streamable HTTP transport is the one this endpoint speaks. */
const OLDEST_SERVED_VERSION = "2025-03-26";
/**
 * The 2025-era revisions `initialize` negotiates: the SDK's list without 2024-11-05 and
 * 2024-10-07, whose HTTP+SSE transport this endpoint does not serve (a client asking for one is
 * offered the latest in its place, as the spec's negotiation says).
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= OLDEST_SERVED_VERSION,
);
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];
/** The revision whose transport carries JSON-RPC batches (2025-06-18 removed them). */
export const BATCH_PROTOCOL_VERSION = "2025-03-26";

export const MCP_SERVER_INFO = { name: "abeille", title: "Abeille merchant registry", version: "1.0.0" } as const;
export const MCP_INSTRUCTIONS =
  "Abeille is a registry of identity-verified local merchants in France. Typical flow: search_merchants -> " +
  "resolve_merchant / get_trust_score / check_certifications / check_availability / compare_merchants -> " +
  "get_lead_fields -> submit_lead (or contact_merchant for a plain message). Keep the tracking_token a lead returns: " +
  "check_lead_status and send_lead_message need it. Orders are closed to public agents: quote_order_readiness (listed for " +
  "level-3 keys) tells what is missing, and purchase intentions are sent as leads. tools/list offers the tools your key allows. Trust scores attest verified facts, not quality of work; " +
  "cite proof levels and never present a merchant's declaration as verified.";

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
} as const;

interface Checked {
  message: Record<string, unknown>;
  /** The request used `"id": null`: the SDK needs a non-null id, so a stand-in travels and is swapped back. */
  nullId: boolean;
  /** A notification the SDK cannot read (params not an object): accepted and dropped, as notifications get no answer. */
  drop?: true;
}

export class JsonRpcFault {
  readonly status: number;
  readonly id: JsonRpcId;
  readonly code: number;
  readonly message: string;
  readonly data: Record<string, unknown> | undefined;

  constructor(status: number, id: JsonRpcId, code: number, message: string, data?: Record<string, unknown>) {
    this.status = status;
    this.id = id;
    this.code = code;
    this.message = message;
    this.data = data;
  }

  toResponse(headers: Record<string, string> = {}): Response {
    return toWebResponse(jsonRpcErrorReply(this.status, this.id, this.code, this.message, this.data, headers));
  }

  /** The error object, as one answer among a batch's. */
  toMessage(): Record<string, unknown> {
    const error = { code: this.code, message: this.message, ...(this.data !== undefined ? { data: this.data } : {}) };
    return { jsonrpc: "2.0", id: this.id, error };
  }
}

export interface McpCall {
  toolContext: ToolContext;
}

/** One POST on the tool endpoint, its body already read (at most MCP_MAX_BODY_BYTES + 1 bytes). */
export interface McpPost {
  url: string;
  headers: Headers;
  /** The body text, or `null` when it was over MCP_MAX_BODY_BYTES. */
  body: string | null;
}

/** Answers one POST on the tool endpoint. */
export async function handleMcpPost(post: McpPost, call: McpCall): Promise<Response> {
  let value: unknown;
  let checked: Checked;
  try {
    value = readJson(post);
    checkVersionHeader(post.headers, value);
    if (Array.isArray(value)) return await answerBatch(value, post, call);
    checked = checkMessage(value);
  } catch (failure) {
    if (failure instanceof JsonRpcFault) return failure.toResponse();
    throw failure;
  }
  return answerMessage(checked, post, call);
}

/** One checked message, answered as the SDK does for its revision. */
async function answerMessage(checked: Checked, post: McpPost, call: McpCall): Promise<Response> {
  if (checked.drop) return new Response(null, { status: 202, headers: { "cache-control": "no-store" } });
  const standIn = `abeille-null-id-${crypto.randomUUID()}`;
  const message = checked.nullId ? { ...checked.message, id: standIn } : checked.message;

  // The SDK insists on these headers; a plain JSON-RPC client need not send them (the answer is JSON either way).
  const headers = new Headers(post.headers);
  headers.set("accept", "application/json, text/event-stream");
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  const sdkRequest = new Request(post.url, { method: "POST", headers, body: JSON.stringify(message) });
  const answer = (await isLegacyRequest(sdkRequest, message))
    ? await serveLegacy(sdkRequest, message, call)
    : await serveModern(sdkRequest, message, call);
  const id = "id" in checked.message && !checked.nullId ? (checked.message.id as JsonRpcId) : null;
  return finish(answer, checked.nullId ? standIn : null, id);
}

/**
 * A batch (MCP 2025-03-26 only): each message checked and answered as if posted alone, in order;
 * the answers to its requests in one array (200), or 202 when it held notifications only. A
 * message that cannot be run gets its error object in the array, the others still run.
 */
async function answerBatch(messages: unknown[], post: McpPost, call: McpCall): Promise<Response> {
  const version = post.headers.get("mcp-protocol-version")?.trim() ?? BATCH_PROTOCOL_VERSION;
  if (version !== BATCH_PROTOCOL_VERSION) {
    throw new JsonRpcFault(
      400,
      null,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: batches belong to MCP ${BATCH_PROTOCOL_VERSION} only (2025-06-18 removed them) and this request speaks ${version}; send one message per POST`,
    );
  }
  if (messages.length === 0 || messages.length > MCP_MAX_BATCH_MESSAGES) {
    throw new JsonRpcFault(
      400,
      null,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: a batch holds 1 to ${MCP_MAX_BATCH_MESSAGES} messages (this one holds ${messages.length})`,
    );
  }
  const answers: unknown[] = [];
  for (const message of messages) {
    const answer = await answerBatchMember(message, post, call);
    if (answer !== null) answers.push(answer);
  }
  const headers = { "cache-control": "no-store" };
  if (answers.length === 0) return new Response(null, { status: 202, headers });
  return new Response(JSON.stringify(answers), {
    status: 200,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

async function answerBatchMember(message: unknown, post: McpPost, call: McpCall): Promise<unknown> {
  try {
    const checked = checkMessage(message);
    const id = isRecord(message) && isId(message.id) ? message.id : null;
    if (checked.message.method === "initialize") {
      throw new JsonRpcFault(
        400,
        id,
        JSONRPC.INVALID_REQUEST,
        "Invalid Request: initialize cannot be part of a batch (MCP 2025-03-26); send it alone first",
      );
    }
    if (isModernEnvelope(checked.message.params)) {
      throw new JsonRpcFault(
        400,
        id,
        JSONRPC.INVALID_REQUEST,
        `Invalid Request: a ${MODERN_PROTOCOL_VERSION} request cannot be part of a batch; send one message per POST`,
      );
    }
    const answer = await answerMessage(checked, post, call);
    const text = await answer.text();
    return text === "" ? null : (JSON.parse(text) as unknown);
  } catch (failure) {
    if (failure instanceof JsonRpcFault) return failure.toMessage();
    throw failure;
  }
}

/**
 * An MCP-Protocol-Version header must name a revision the endpoint speaks; the refusal names them
 * (the SDK would read an unknown later date as 2026-07-28 and ask for a missing `_meta`, and an
 * unknown earlier one got the SDK's list, 2024 revisions included). A request carrying the
 * 2026-07-28 envelope is the SDK's to answer: its own UnsupportedProtocolVersionError lists the
 * versions of that era, as server/discover does.
 */
function checkVersionHeader(headers: Headers, value: unknown): void {
  const header = headers.get("mcp-protocol-version");
  if (header === null || MCP_PROTOCOL_VERSIONS.includes(header.trim())) return;
  if (isRecord(value) && isModernEnvelope(value.params)) return;
  const requested = header.trim().slice(0, 50);
  throw new JsonRpcFault(
    400,
    isRecord(value) && isId(value.id) ? value.id : null,
    ProtocolErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: the MCP-Protocol-Version header names ${JSON.stringify(requested)}; this server speaks ${MCP_PROTOCOL_VERSIONS.join(", ")}`,
    { supported: [...MCP_PROTOCOL_VERSIONS], requested },
  );
}

/** 2025-era traffic: a fresh server and stateless transport per request, JSON answers. */
async function serveLegacy(request: Request, message: Record<string, unknown>, call: McpCall): Promise<Response> {
  const server = createServer(call, { supportedProtocolVersions: [...LEGACY_PROTOCOL_VERSIONS] });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: message });
  } finally {
    await server.close().catch(() => undefined);
  }
}

/** The call being served, for the modern handler's per-request server factory. */
const modernCalls = new AsyncLocalStorage<McpCall>();
let modernHandler: ReturnType<typeof createMcpHandler> | undefined;

/**
 * 2026-07-28 traffic: the SDK's handler, modern-only (legacy went the other way), JSON answers.
 * One handler for the process; its factory builds a fresh server per request for the caller of
 * that request.
 */
async function serveModern(request: Request, message: Record<string, unknown>, call: McpCall): Promise<Response> {
  modernHandler ??= createMcpHandler(
    () => {
      const current = modernCalls.getStore();
      if (!current) throw new Error("MCP request outside of its call context");
      return createServer(current);
    },
    {
      legacy: "reject",
      responseMode: "json",
      onerror: (error) => logger.debug("mcp protocol error", { error: error.message }),
    },
  );
  const handler = modernHandler;
  return modernCalls.run(call, () => handler.fetch(request, { parsedBody: message }));
}

function createServer(call: McpCall, options: { supportedProtocolVersions?: string[] } = {}): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
    ...options,
  });
  server.setRequestHandler("tools/list", () => ({ tools: toolDescriptorsFor(call.toolContext.caller.permissions) }));
  server.setRequestHandler("tools/call", (request) =>
    callTool(request.params.name, request.params.arguments, call.toolContext),
  );
  server.onerror = (error) => logger.debug("mcp protocol error", { error: error.message });
  return server;
}

/**
 * Normalises the SDK's answer: our content type, no caching, the caller's null id restored, and
 * the request's id on an error the transport answered without it (an unsupported
 * MCP-Protocol-Version header on a 2025-era request).
 */
async function finish(answer: Response, standIn: string | null, id: JsonRpcId): Promise<Response> {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (answer.status === 202 || answer.body === null) return new Response(null, { status: answer.status, headers });
  const text = await answer.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return new Response(text, { status: answer.status, headers: { ...headers, "content-type": "application/json" } });
  }
  if (typeof body === "object" && body !== null) {
    const message = body as { id?: unknown; error?: unknown };
    if (standIn !== null && message.id === standIn) message.id = null;
    else if (id !== null && message.error !== undefined && (message.id === null || message.id === undefined)) {
      message.id = id;
    }
  }
  return new Response(JSON.stringify(body), {
    status: answer.status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

/** The body as JSON: -32600 for a wrong content type (415) or a body over the cap (413), -32700 when not JSON. */
function readJson(post: McpPost): unknown {
  const type = post.headers.get("content-type") ?? "";
  if (!JSON_TYPE.test(type)) {
    throw new JsonRpcFault(
      415,
      null,
      JSONRPC.INVALID_REQUEST,
      "Invalid Request: Content-Type must be application/json",
    );
  }
  if (post.body === null) {
    throw new JsonRpcFault(
      413,
      null,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: the body is larger than ${MCP_MAX_BODY_BYTES} bytes`,
      { max_bytes: MCP_MAX_BODY_BYTES },
    );
  }
  try {
    return JSON.parse(post.body) as unknown;
  } catch {
    throw new JsonRpcFault(400, null, JSONRPC.PARSE_ERROR, "Parse error: the body is not valid JSON");
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/** JSON-RPC 2.0 framing and the params of the methods the endpoint serves. */
export function checkMessage(value: unknown): Checked {
  if (Array.isArray(value)) {
    throw new JsonRpcFault(400, null, JSONRPC.INVALID_REQUEST, "Invalid Request: a batch cannot hold another batch");
  }
  if (!isRecord(value)) {
    throw new JsonRpcFault(
      400,
      null,
      JSONRPC.INVALID_REQUEST,
      "Invalid Request: the body must be a JSON-RPC 2.0 object",
    );
  }
  const hasId = "id" in value;
  const id = hasId && isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") {
    throw new JsonRpcFault(400, id, JSONRPC.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be exactly "2.0"');
  }
  if (hasId && !isId(value.id)) {
    throw new JsonRpcFault(
      400,
      null,
      JSONRPC.INVALID_REQUEST,
      'Invalid Request: "id" must be a string or an integer (omit it for a notification)',
    );
  }
  if (!("method" in value)) {
    // A response to a server request: meaningless in stateless mode, accepted and ignored (202).
    if (hasId && ("result" in value || "error" in value)) return { message: value, nullId: false };
    throw new JsonRpcFault(400, id, JSONRPC.INVALID_REQUEST, 'Invalid Request: "method" is required');
  }
  if (typeof value.method !== "string" || value.method === "") {
    throw new JsonRpcFault(400, id, JSONRPC.INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string');
  }
  // A notification gets no answer, even when it is malformed: one the SDK cannot read is dropped.
  if (!hasId) {
    return unknownMembers(value).length === 0 && (value.params === undefined || isRecord(value.params))
      ? { message: value, nullId: false }
      : { message: value, nullId: false, drop: true };
  }
  // A 2026-07-28 request (the per-request _meta envelope) is checked by the SDK's modern path, which
  // answers removed methods such as initialize with 404 and -32601 rather than a params fault.
  const problem = isModernEnvelope(value.params) ? null : paramsProblem(value.method, value.params);
  if (problem) throw new JsonRpcFault(200, id, JSONRPC.INVALID_PARAMS, `Invalid params: ${problem}`);
  const unknown = unknownMembers(value);
  if (unknown.length > 0) {
    throw new JsonRpcFault(
      400,
      id,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: unknown member ${unknown.map((key) => `"${key}"`).join(", ")}; a request has jsonrpc, id, method and params`,
    );
  }
  return { message: value, nullId: value.id === null };
}

function isModernEnvelope(params: unknown): boolean {
  return isRecord(params) && isRecord(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/** JSON-RPC 2.0 defines no other member of a request or notification. */
function unknownMembers(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => !["jsonrpc", "id", "method", "params"].includes(key));
}

function paramsProblem(method: string, params: unknown): string | null {
  if (params !== undefined && !isRecord(params)) return '"params" must be an object';
  const given = params ?? {};
  switch (method) {
    case "initialize": {
      if (typeof given.protocolVersion !== "string") return '"params.protocolVersion" must be a string';
      if (!isRecord(given.capabilities)) return '"params.capabilities" must be an object';
      const info = given.clientInfo;
      if (!isRecord(info) || typeof info.name !== "string" || typeof info.version !== "string") {
        return '"params.clientInfo" must be an object with string "name" and "version"';
      }
      return null;
    }
    case "tools/list":
      return given.cursor === undefined || typeof given.cursor === "string" ? null : '"params.cursor" must be a string';
    case "tools/call":
      if (typeof given.name !== "string" || given.name === "") return '"params.name" must name a tool';
      if (given.arguments !== undefined && !isRecord(given.arguments)) return '"params.arguments" must be an object';
      return null;
    default:
      return null;
  }
}
