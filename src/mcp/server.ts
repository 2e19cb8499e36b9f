import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { logger } from "../logging.ts";
import { callTool } from "./call-tool.ts";
import { toolDescriptors } from "./registry.ts";
import type { ToolContext } from "./tool.ts";

/**
 * POST /api/mcp: an MCP server over Streamable HTTP, stateless, answering plain JSON. Every
 * request gets a fresh SDK server and transport (stateless transports cannot be reused).
 *
 * Before the SDK sees a message, this module checks the JSON-RPC framing itself, so that protocol
 * faults get the JSON-RPC codes the service promises, with the request id echoed where there is
 * one: -32700 (not JSON), -32600 (not a JSON-RPC 2.0 request, batch, wrong content type, body over
 * 64 KiB), -32602 (params of a known method malformed; unknown tool). -32601 (unknown method) comes
 * from the SDK. A notification (no id) is accepted with 202 and no body.
 */

export const MCP_MAX_BODY_BYTES = 64 * 1024;
export const MCP_SERVER_INFO = { name: "abeille", title: "Abeille merchant registry", version: "1.0.0" } as const;
export const MCP_INSTRUCTIONS =
  "Abeille is a registry of identity-verified local merchants in France. Typical flow: search_merchants -> " +
  "resolve_merchant / get_trust_score / check_certifications / check_availability / compare_merchants -> " +
  "get_lead_fields -> submit_lead (or contact_merchant for a plain message). Keep the tracking_token a lead returns: " +
  "check_lead_status and send_lead_message need it. Orders are closed to public agents: quote_order_readiness tells " +
  "what is missing, and purchase intentions are sent as leads. Trust scores attest verified facts, not quality of work; " +
  "cite proof levels and never present a merchant's declaration as verified.";

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
} as const;

type JsonRpcId = string | number | null;

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
    return jsonRpcError(this.status, this.id, this.code, this.message, this.data, headers);
  }
}

export function jsonRpcError(
  status: number,
  id: JsonRpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } }),
    { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } },
  );
}

export interface McpCall {
  toolContext: ToolContext;
}

/** Answers one POST on the tool endpoint. */
export async function handleMcpPost(request: Request, call: McpCall): Promise<Response> {
  let checked: Checked;
  try {
    checked = await readMessage(request);
  } catch (failure) {
    if (failure instanceof JsonRpcFault) return failure.toResponse();
    throw failure;
  }
  if (checked.drop) return new Response(null, { status: 202, headers: { "cache-control": "no-store" } });
  const standIn = `abeille-null-id-${crypto.randomUUID()}`;
  const message = checked.nullId ? { ...checked.message, id: standIn } : checked.message;

  const server = createServer(call);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // The SDK insists on these headers; a plain JSON-RPC client need not send them (the answer is JSON either way).
    const headers = new Headers(request.headers);
    headers.set("accept", "application/json, text/event-stream");
    headers.set("content-type", "application/json");
    const sdkRequest = new Request(request.url, { method: "POST", headers });
    const answer = await transport.handleRequest(sdkRequest, { parsedBody: message });
    return await finish(answer, checked.nullId ? standIn : null);
  } finally {
    await server.close().catch(() => undefined);
  }
}

function createServer(call: McpCall): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolDescriptors() }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(request.params.name, request.params.arguments, call.toolContext),
  );
  server.onerror = (error) => logger.debug("mcp protocol error", { error: error.message });
  return server;
}

/** Normalises the SDK's answer: our content type, no caching, the caller's null id restored. */
async function finish(answer: Response, standIn: string | null): Promise<Response> {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (answer.status === 202 || answer.body === null) return new Response(null, { status: answer.status, headers });
  const text = await answer.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return new Response(text, { status: answer.status, headers: { ...headers, "content-type": "application/json" } });
  }
  if (standIn !== null && typeof body === "object" && body !== null && (body as { id?: unknown }).id === standIn) {
    (body as { id: JsonRpcId }).id = null;
  }
  return new Response(JSON.stringify(body), {
    status: answer.status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

async function readMessage(request: Request): Promise<Checked> {
  const type = request.headers.get("content-type") ?? "";
  if (!JSON_TYPE.test(type)) {
    throw new JsonRpcFault(
      415,
      null,
      JSONRPC.INVALID_REQUEST,
      "Invalid Request: Content-Type must be application/json",
    );
  }
  const text = await readCapped(request);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new JsonRpcFault(400, null, JSONRPC.PARSE_ERROR, "Parse error: the body is not valid JSON");
  }
  return checkMessage(value);
}

async function readCapped(request: Request): Promise<string> {
  const tooLarge = () =>
    new JsonRpcFault(
      413,
      null,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: the body is larger than ${MCP_MAX_BODY_BYTES} bytes`,
      {
        max_bytes: MCP_MAX_BODY_BYTES,
      },
    );
  if (Number(request.headers.get("content-length") ?? "0") > MCP_MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MCP_MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
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
    throw new JsonRpcFault(
      400,
      null,
      JSONRPC.INVALID_REQUEST,
      "Invalid Request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send one message per POST",
    );
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
    return JSONRPCMessageSchema.safeParse(value).success
      ? { message: value, nullId: false }
      : { message: value, nullId: false, drop: true };
  }
  const problem = paramsProblem(value.method, value.params);
  if (problem) throw new JsonRpcFault(200, id, JSONRPC.INVALID_PARAMS, `Invalid params: ${problem}`);
  // Anything else the SDK's message schema refuses (unknown members, a malformed _meta) is an invalid request.
  const sdkView = value.id === null ? { ...value, id: 0 } : value;
  const parsed = JSONRPCMessageSchema.safeParse(sdkView);
  if (!parsed.success) {
    const unknown = Object.keys(value).filter((key) => !["jsonrpc", "id", "method", "params"].includes(key));
    throw new JsonRpcFault(
      400,
      id,
      JSONRPC.INVALID_REQUEST,
      unknown.length > 0
        ? `Invalid Request: unknown member ${unknown.map((key) => `"${key}"`).join(", ")}; a request has jsonrpc, id, method and params`
        : "Invalid Request: the message is not a valid JSON-RPC 2.0 request",
    );
  }
  return { message: value, nullId: value.id === null };
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
