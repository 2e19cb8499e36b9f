import type { z } from "zod";
import { type ErrorCode, errorCatalog } from "../errors/catalog.ts";
import { PAGE_OPERATIONS } from "../http/guard.ts";
import { API_VERSION, SERVICE_DESCRIPTION, SERVICE_NAME } from "../mcp/discovery.ts";
import { errorEnvelopeSchema } from "./envelopes.ts";
import { ComponentRegistry, type JsonSchema } from "./json-schema.ts";
import { jsonRpcErrorResponseSchema } from "./jsonrpc.ts";
import { OPERATIONS, type OperationSpec, type ResponseSpec } from "./operations.ts";

/**
 * The OpenAPI 3.1 document, generated from the operation table and the zod schemas. Nothing in
 * it is written by hand but prose: parameters, bodies and answers are the schemas the routes
 * validate with and build from, and each operation's error answers name the codes they can carry.
 */

const GUARD_CODES: ErrorCode[] = ["UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED", "SERVICE_SUSPENDED"];

const TAGS: { name: string; description: string }[] = [
  { name: "Registry", description: "Search and resolve merchants" },
  { name: "Merchant documents", description: "Per-merchant documents: decision card, JSON-LD, AI digest, Q&A, ai.md" },
  { name: "Trust", description: "Signed manifests, public keys and evidence pages" },
  { name: "Leads", description: "Leads to merchants, their status and follow-up messages" },
  { name: "Platform", description: "Messages to the platform team" },
  { name: "Orders", description: "Orders (closed to public agents)" },
  { name: "Agents", description: "Agent registration and API keys" },
  { name: "Attribution", description: "Attribution sessions" },
  { name: "Tools", description: "The MCP tool endpoint" },
  { name: "Discovery", description: "Documents that describe the service" },
  { name: "Operations", description: "Health" },
  { name: "People", description: "Pages for people, in French: the front door and its search, the notices" },
  {
    name: "Merchant space",
    description:
      "The merchants' own space (/pro, HTML, French): sign-in with ProConnect, claims, and what a merchant manages. A session cookie, never an API key",
  },
];

const HEADER_DOCS: Record<string, { description: string; schema: JsonSchema }> = {
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } },
  "RateLimit-Policy": { description: "The quota applied (IETF RateLimit fields)", schema: { type: "string" } },
  RateLimit: { description: "What is left of the quota (IETF RateLimit fields)", schema: { type: "string" } },
  "X-Request-Id": { description: "The request id, also in _meta.request_id", schema: { type: "string" } },
  Location: { description: "URL of the created resource", schema: { type: "string", format: "uri" } },
  ETag: {
    description:
      "Entity tag: strong on an uncompressed bare document, weak (W/) on an envelope (its _meta is the request's own) and on a compressed answer; send it back in If-None-Match to get 304",
    schema: { type: "string" },
  },
  Vary: {
    description: "Accept-Encoding: the answer is compressed (br, gzip) as the request allows",
    schema: { type: "string" },
  },
  "Cache-Control": { description: "Caching rules", schema: { type: "string" } },
  "Last-Modified": { description: "When the answer was generated", schema: { type: "string" } },
  "WWW-Authenticate": { description: "The authentication scheme expected", schema: { type: "string" } },
  Link: {
    description: "Links to the API description (describedby) and alternate representations",
    schema: { type: "string" },
  },
};

function pascal(code: string): string {
  return code
    .toLowerCase()
    .split("_")
    .map((part) => (part[0]?.toUpperCase() ?? "") + part.slice(1))
    .join("");
}

/** The error codes an operation can answer, by HTTP status. */
export function errorCodesByStatus(operation: OperationSpec): Map<string, ErrorCode[]> {
  const codes = new Set<ErrorCode>(operation.errors ?? []);
  const hasInput = Boolean(operation.pathParams || operation.query || operation.headers?.length);
  if (!operation.jsonRpc) {
    if (hasInput || operation.body) codes.add("VALIDATION_ERROR");
    if (operation.body) codes.add("PAYLOAD_TOO_LARGE");
  }
  if (operation.access !== "open") for (const code of GUARD_CODES) codes.add(code);
  codes.add("INTERNAL_ERROR");
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of codes) {
    const status = String(errorCatalog[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

export interface OpenApiDocument {
  openapi: string;
  info: JsonSchema;
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: JsonSchema };
  [key: string]: unknown;
}

let cached: { baseUrl: string; document: OpenApiDocument } | undefined;

export function openApiDocument(baseUrl: string): OpenApiDocument {
  if (cached?.baseUrl === baseUrl) return cached.document;
  const document = buildDocument(baseUrl);
  cached = { baseUrl, document };
  return document;
}

function buildDocument(baseUrl: string): OpenApiDocument {
  const registry = new ComponentRegistry();
  const errorEnvelope = registry.add(errorEnvelopeSchema, "output");
  const errorSchemaFor = (codes: ErrorCode[]): JsonSchema => {
    const sorted = [...codes].sort();
    return registry.put(`Error${sorted.map(pascal).join("Or")}`, {
      description: `Error envelope; error.code is one of ${sorted.join(", ")}`,
      allOf: [
        errorEnvelope,
        {
          type: "object",
          properties: { error: { type: "object", properties: { code: { type: "string", enum: sorted } } } },
        },
      ],
    });
  };

  const jsonRpcRefusal = registry.add(jsonRpcErrorResponseSchema, "output");
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of OPERATIONS) {
    const entry: JsonSchema = {
      operationId: operation.operationId,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      tags: [...operation.tags],
      ...(operation.deprecated ? { deprecated: true } : {}),
    };
    const parameters = parametersOf(operation, registry);
    if (parameters.length > 0) entry.parameters = parameters;
    if (operation.body) {
      entry.requestBody = {
        required: true,
        content: {
          [operation.bodyType === "form" ? "application/x-www-form-urlencoded" : "application/json"]: {
            schema: registry.add(operation.body, "input"),
          },
        },
      };
    }
    if (operation.access === "open") entry.security = [];

    const responses: JsonSchema = {};
    for (const [status, spec] of Object.entries(operation.responses)) {
      responses[status] = responseObject(spec, registry, operation);
    }
    if (operation.method === "get" && responses["304"] === undefined) {
      responses["304"] = responseObject(
        { description: "Not modified: If-None-Match matched the ETag", headers: ["ETag"] },
        registry,
        operation,
      );
    }
    for (const [status, codes] of errorCodesByStatus(operation)) {
      const headers = errorHeaders(codes, operation);
      const existing = responses[status];
      // People's pages answer their failures as French HTML pages (pageRoute), not the envelope.
      if (PAGE_OPERATIONS.has(operation.access)) {
        const said = codes.map((code) => `${code}: ${errorCatalog[code].message}`).join("; ");
        if (existing && typeof existing === "object" && !Array.isArray(existing)) {
          existing.description = `${String(existing.description)}; or an HTML page saying the failure in French (${codes.join(", ")})`;
          continue;
        }
        responses[status] = {
          description: `An HTML page saying the failure in French. ${said}`,
          ...(headers ? { headers } : {}),
          content: { "text/html": { schema: { type: "string" } } },
        };
        continue;
      }
      // A JSON-RPC endpoint answers its refusals as JSON-RPC errors (src/http/json-rpc-endpoint.ts).
      const errorBody = operation.jsonRpc ? jsonRpcRefusal : errorSchemaFor(codes);
      if (existing && typeof existing === "object" && !Array.isArray(existing)) {
        // A status the operation answers in its own format too (JSON-RPC): either body.
        const content = existing.content as Record<string, { schema: JsonSchema }> | undefined;
        const json = content?.["application/json"];
        if (json && !operation.jsonRpc) json.schema = { anyOf: [json.schema, errorBody] };
        existing.description = `${String(existing.description)}; or ${operation.jsonRpc ? "a JSON-RPC error whose error.data.code is" : "an error envelope"} (${codes.join(", ")})`;
        continue;
      }
      responses[status] = {
        description:
          (operation.jsonRpc ? "A JSON-RPC error; error.data.code is the service's error code. " : "") +
          codes.map((code) => `${code}: ${errorCatalog[code].message}`).join("; "),
        ...(headers ? { headers } : {}),
        content: { "application/json": { schema: errorBody } },
      };
    }
    entry.responses = sortResponses(responses);
    paths[operation.path] = { ...(paths[operation.path] ?? {}), [operation.method]: entry };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: `${SERVICE_NAME} merchant registry API`,
      version: API_VERSION,
      summary: "Identity-verified local merchants in France, for AI agents",
      description:
        `${SERVICE_DESCRIPTION}\n\nEvery JSON answer under /api is a navigation envelope (success, data, _actions, _links, _state, _meta; ` +
        "errors add error.code and error.message and carry recovery steps in _actions). The same capabilities are MCP tools at /api/mcp " +
        "(schemas at /.well-known/mcp.json).",
      contact: { name: `${SERVICE_NAME} platform team`, url: `${baseUrl}/llms.txt` },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: baseUrl }],
    tags: TAGS,
    security: [{}, { bearerAuth: [] }, { apiKeyHeader: [] }],
    paths,
    components: {
      schemas: registry.schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "Optional API key (abk_...) from POST /api/agents/register; a bad key is 401, never a silent downgrade",
        },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "The same API key in a header" },
      },
    },
  };
}

function parametersOf(operation: OperationSpec, registry: ComponentRegistry): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const add = (location: "path" | "query", shape: z.ZodObject) => {
    for (const [name, field] of Object.entries(shape.shape)) {
      const schema = parameterSchema(field as z.ZodType, registry);
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: location,
        required: location === "path" || !(field as z.ZodType).safeParse(undefined).success,
        ...(typeof description === "string" ? { description } : {}),
        // A list in a query string is one value, comma-separated (tags=bio,local), as the routes read it.
        ...(location === "query" && rest.type === "array" ? { style: "form", explode: false } : {}),
        schema: rest,
      });
    }
  };
  if (operation.pathParams) add("path", operation.pathParams);
  if (operation.query) add("query", operation.query);
  for (const header of operation.headers ?? []) {
    parameters.push({
      name: header.name,
      in: "header",
      required: header.required ?? false,
      description: header.description,
      schema: registry.add(header.schema, "input"),
    });
  }
  return parameters;
}

/**
 * A query or path parameter: the input side of the zod schema (what is written in the URL), with
 * the output side's bounds when both sides have the same type (coerced numbers keep their limits).
 */
function parameterSchema(field: z.ZodType, registry: ComponentRegistry): JsonSchema {
  const input = registry.add(field, "input");
  const output = registry.add(field, "output");
  const numeric = (type: unknown) => type === "number" || type === "integer";
  if (input.type === output.type || (numeric(input.type) && numeric(output.type))) return output;
  return input;
}

function responseObject(spec: ResponseSpec, registry: ComponentRegistry, operation: OperationSpec): JsonSchema {
  const headers: JsonSchema = {};
  // Every successful GET carries a validator and is compressed as asked (src/http/conventions.ts).
  const conventions = operation.method === "get" ? ["ETag", "Vary"] : [];
  const names = new Set([
    ...(spec.headers ?? []),
    ...conventions,
    "X-Request-Id",
    ...(operation.access !== "open" ? ["RateLimit"] : []),
  ]);
  for (const name of names) {
    const doc = HEADER_DOCS[name];
    if (doc) headers[name] = { description: doc.description, schema: doc.schema };
  }
  const response: JsonSchema = { description: spec.description, headers };
  if (spec.schema) {
    response.content = { [spec.contentType ?? "application/json"]: { schema: registry.add(spec.schema, "output") } };
  }
  return response;
}

function errorHeaders(codes: ErrorCode[], operation: OperationSpec): JsonSchema | null {
  const names = ["X-Request-Id"];
  if (codes.includes("RATE_LIMITED")) names.push("Retry-After", "RateLimit-Policy", "RateLimit");
  if (codes.includes("UNAUTHORIZED")) names.push("WWW-Authenticate");
  if (operation.access === "open" && names.length === 1) return null;
  const headers: JsonSchema = {};
  for (const name of names) {
    const doc = HEADER_DOCS[name];
    if (doc) headers[name] = { description: doc.description, schema: doc.schema };
  }
  return headers;
}

function sortResponses(responses: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** For tests and tools: the operation an HTTP method and a concrete path answer to. */
export function matchOperation(method: string, pathname: string): OperationSpec | undefined {
  return OPERATIONS.find((operation) => {
    if (operation.method !== method.toLowerCase()) return false;
    const pattern = new RegExp(`^${operation.path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return pattern.test(pathname);
  });
}
