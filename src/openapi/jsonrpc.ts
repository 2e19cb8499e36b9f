import { z } from "zod";

/** JSON-RPC 2.0 framing of POST /api/mcp, for the OpenAPI document. */

const idSchema = z.union([z.string(), z.number().int(), z.null()]);

export const jsonRpcRequestSchema = z
  .object({
    jsonrpc: z.literal("2.0").meta({ description: "Always 2.0" }),
    id: idSchema.optional().meta({ description: "Omitted for a notification (answered 202 without a body)" }),
    method: z.string().meta({
      description: "initialize, tools/list, tools/call, ping, or a notification such as notifications/initialized",
    }),
    params: z.record(z.string(), z.unknown()).optional().meta({
      description: "For tools/call: { name, arguments }; the tool schemas are at /.well-known/mcp.json",
    }),
  })
  .meta({ id: "JsonRpcRequest", description: "One JSON-RPC 2.0 message" });

/** Messages in one MCP batch at most: one POST's work stays bounded (each request counts on the rate limits). */
export const MCP_MAX_BATCH_MESSAGES = 20;

/** What POST /api/mcp takes: one message, or a batch of them for MCP 2025-03-26. */
export const mcpRequestBodySchema = z.union([
  jsonRpcRequestSchema,
  z.array(jsonRpcRequestSchema).min(1).max(MCP_MAX_BATCH_MESSAGES).meta({
    description:
      "A batch, for MCP 2025-03-26 only (MCP-Protocol-Version 2025-03-26 or no such header): each message answered as if posted alone; initialize must come alone",
  }),
]);

export const jsonRpcErrorObjectSchema = z.object({
  code: z.number().int().meta({
    description:
      "-32700 parse error, -32600 invalid request (a refused Host or Origin too, with 403), -32601 method not found, -32602 invalid params or unknown tool, -32603 internal error, -32000 transport error; refusals before the message is read keep their HTTP status: -32001 (401 UNAUTHORIZED), -32003 (403 FORBIDDEN), -32029 (429 RATE_LIMITED), -32053 (503 SERVICE_SUSPENDED), with error.data.code, error.data._actions",
  }),
  message: z.string(),
  data: z.unknown().optional(),
});

export const jsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: idSchema,
    result: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "initialize: server info and capabilities; tools/list: { tools }; tools/call: { content, structuredContent, isError? }",
    }),
    error: jsonRpcErrorObjectSchema.optional(),
  })
  .meta({ id: "JsonRpcResponse", description: "Either result or error" });

/** What POST /api/mcp answers with 200: one response, or the responses to a batch's requests. */
export const mcpResponseBodySchema = z.union([
  jsonRpcResponseSchema,
  z
    .array(jsonRpcResponseSchema)
    .max(MCP_MAX_BATCH_MESSAGES)
    .meta({ description: "The answers to a batch's requests, in its order (its notifications get none)" }),
]);

export const jsonRpcErrorResponseSchema = z
  .object({ jsonrpc: z.literal("2.0"), id: idSchema, error: jsonRpcErrorObjectSchema })
  .meta({ id: "JsonRpcErrorResponse" });
