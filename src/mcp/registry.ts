import { errorEnvelopeSchema } from "../openapi/envelopes.ts";
import { inlineJsonSchema, type JsonSchema } from "../openapi/json-schema.ts";
import type { ToolAnnotations, ToolDefinition } from "./tool.ts";
import { leadTools } from "./tools/lead-tools.ts";
import { platformTools } from "./tools/platform-tools.ts";
import { registryTools } from "./tools/registry-tools.ts";

/**
 * The tool registry: the 14 tools of the tool endpoint, in the order tools/list gives them.
 * tools/list, /.well-known/mcp.json and the agent card's skills are all generated from here.
 */
const ORDER = [
  "search_merchants",
  "resolve_merchant",
  "contact_merchant",
  "get_trust_score",
  "check_availability",
  "compare_merchants",
  "check_lead_status",
  "send_lead_message",
  "get_lead_fields",
  "submit_lead",
  "get_product_details",
  "check_certifications",
  "contact_service",
  "quote_order_readiness",
];

/** In the order the spec names them. */
export const TOOLS: readonly ToolDefinition[] = [...registryTools, ...leadTools, ...platformTools].sort(
  (a, b) => ORDER.indexOf(a.name) - ORDER.indexOf(b.name),
);

export const TOOL_NAMES = TOOLS.map((tool) => tool.name);

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

/** MCP requires both schemas of a tool to describe an object. */
export type ObjectSchema = JsonSchema & { type: "object" };

/** A tool as MCP publishes it (tools/list and /.well-known/mcp.json). */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  annotations: ToolAnnotations & { title: string };
}

let descriptors: ToolDescriptor[] | undefined;
const inputSchemas = new Map<string, ObjectSchema>();

/**
 * Input schemas as the model reads them (input side of each zod schema); output schemas accept
 * the success envelope or the error envelope, since a failed call (isError) carries the error
 * envelope in structuredContent and MCP clients validate structuredContent whenever present.
 */
export function toolDescriptors(): ToolDescriptor[] {
  if (descriptors) return descriptors;
  const errorEnvelope = inlineJsonSchema(errorEnvelopeSchema, "output");
  descriptors = TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    outputSchema: { type: "object", anyOf: [inlineJsonSchema(tool.output, "output"), errorEnvelope] },
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return descriptors;
}

export function inputSchemaOf(tool: ToolDefinition): ObjectSchema {
  let schema = inputSchemas.get(tool.name);
  if (!schema) {
    schema = { ...inlineJsonSchema(tool.input, "input"), type: "object" };
    inputSchemas.set(tool.name, schema);
  }
  return schema;
}
