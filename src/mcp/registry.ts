import { errorEnvelopeSchema } from "../openapi/envelopes.ts";
import { inlineJsonSchema, type JsonSchema, outlineJsonSchema, portableJsonSchema } from "../openapi/json-schema.ts";
import type { ToolAnnotations, ToolDefinition } from "./tool.ts";
import { leadTools } from "./tools/lead-tools.ts";
import { platformTools } from "./tools/platform-tools.ts";
import { registryTools } from "./tools/registry-tools.ts";

/**
 * The tool registry: the 14 tools of the tool endpoint, in the order tools/list gives them.
 * tools/list (the tools the caller can use), /.well-known/mcp.json (all of them, with their full
 * output schemas) and the agent card's skills are all generated from here.
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

/** How deep tools/list's output schemas go: the envelope's members and their types. */
const OUTPUT_OUTLINE_DEPTH = 1;

let descriptors: ToolDescriptor[] | undefined;
let outputSchemas: Record<string, ObjectSchema> | undefined;
const inputSchemas = new Map<string, ObjectSchema>();

/**
 * The full schema of each tool's `structuredContent`, in the portable dialect: the success
 * envelope or the error envelope, since a failed call (isError) carries the error envelope there
 * and MCP clients validate structuredContent whenever present. Published whole in
 * /.well-known/mcp.json (`output_schemas`); tools/list carries their outline.
 */
export function toolOutputSchemas(): Record<string, ObjectSchema> {
  if (outputSchemas) return outputSchemas;
  const errorEnvelope = inlineJsonSchema(errorEnvelopeSchema, "output");
  outputSchemas = Object.fromEntries(
    TOOLS.map((tool) => [
      tool.name,
      portableJsonSchema({
        type: "object",
        anyOf: [inlineJsonSchema(tool.output, "output"), errorEnvelope],
      }) as ObjectSchema,
    ]),
  );
  return outputSchemas;
}

/**
 * The 14 tools as tools/list describes them, small enough for an agent's context (docs/decisions.md,
 * "tools/list small and portable"): input schemas whole, output schemas as the outline of the
 * envelope (its members and their types: whatever the full schema accepts, the outline accepts),
 * the full one named in the outline's description; every schema in the portable dialect (no
 * type arrays).
 */
export function toolDescriptors(): ToolDescriptor[] {
  if (descriptors) return descriptors;
  const full = toolOutputSchemas();
  descriptors = TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    outputSchema: {
      ...outlineJsonSchema(full[tool.name] as ObjectSchema, OUTPUT_OUTLINE_DEPTH),
      type: "object",
      description: `The navigation envelope, in outline; the full schema is output_schemas.${tool.name} in /.well-known/mcp.json`,
    },
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return descriptors;
}

/** The tools a caller can use: a tool that needs a permission the caller lacks is not offered to it. */
export function toolDescriptorsFor(permissions: readonly string[]): ToolDescriptor[] {
  return toolDescriptors().filter((descriptor) => {
    const permission = findTool(descriptor.name)?.permission;
    return permission === undefined || permissions.includes(permission);
  });
}

/** The permission each tool needs beyond the endpoint's, for those that need one. */
export function toolPermissions(): Record<string, string> {
  return Object.fromEntries(TOOLS.flatMap((tool) => (tool.permission ? [[tool.name, tool.permission]] : [])));
}

export function inputSchemaOf(tool: ToolDefinition): ObjectSchema {
  let schema = inputSchemas.get(tool.name);
  if (!schema) {
    schema = { ...portableJsonSchema(inlineJsonSchema(tool.input, "input")), type: "object" };
    inputSchemas.set(tool.name, schema);
  }
  return schema;
}
