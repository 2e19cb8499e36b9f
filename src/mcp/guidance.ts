import type { ErrorCode } from "../errors/catalog.ts";
import type { ServiceError } from "../errors/service-error.ts";
import type { JsonSchema, JsonValue } from "../openapi/json-schema.ts";
import type { ToolDefinition } from "./tool.ts";

/**
 * The text of a failed tool call: what went wrong and what to do next, for a language model. The
 * structuredContent next to it is the error envelope the REST route would answer.
 */

export interface ErrorEnvelopeBody {
  error: { code: string; message: string; blocked_because?: string[] };
  data: { issues: { path: string; message: string }[] } | null;
  _actions: { rel: string; method: string; href: string; title: string }[];
  _meta: { request_id?: string };
}

const GENERIC: Partial<Record<ErrorCode, (tool: string, body: ErrorEnvelopeBody, keyPresented: boolean) => string>> = {
  VALIDATION_ERROR: (tool) => `Fix the arguments listed above and call ${tool} again.`,
  MERCHANT_NOT_FOUND: () =>
    "No active merchant has this ab_id (unknown, or archived). Do not retry with the same ab_id: call search_merchants and use an ab_id from its results.",
  CONTACT_DISABLED: (_tool, body) =>
    `This merchant cannot receive leads right now (blocked_because: ${(body.error.blocked_because ?? []).join(", ") || "see _state"}). ` +
    "Do not retry: choose another merchant from search_merchants whose _state.can_contact is true, or tell the user to reach this merchant by other means. To report a problem with the listing, use contact_service.",
  ORDER_DISABLED: () =>
    'Orders are closed to public agents and the service never takes payment. Send the purchase intention to the merchant as a lead instead: call submit_lead with ab_id, contact_name, contact_email, lead_type "quote" and a message listing the products and quantities (get_lead_fields gives the merchant\'s own fields).',
  ORDER_TRUST_TOO_LOW: () =>
    'This merchant cannot take orders (trust or payment setup). Send the purchase intention as a lead with submit_lead (lead_type "quote").',
  FORBIDDEN: (_tool, _body, keyPresented) =>
    keyPresented
      ? "The API key you presented does not carry the permission this tool needs. Call without a key (anonymous callers may search, read and send leads) or register an agent at a higher level (POST /api/agents/register)."
      : "This tool needs an API key: anonymous callers may search, read and send leads, not this. Register an agent (POST /api/agents/register) and send its key as Authorization: Bearer <key>.",
  UNAUTHORIZED: () => "The API key is unknown or revoked: call without a key, or register again for a new key.",
  RATE_LIMITED: () => "Too many requests: wait for the delay given, then call again.",
  CONFLICT: () => "The request conflicts with an earlier one; read the message, change the request and call again.",
  NOT_FOUND: () => "Check the identifier you passed; do not retry with the same value.",
  INTERNAL_ERROR: (_tool, body) =>
    `An unexpected fault occurred${body._meta.request_id ? ` (request id ${body._meta.request_id})` : ""}. You may retry once; if it persists, tell the user and quote the request id.`,
  SERVICE_SUSPENDED: () => "Agent access is suspended by the operators for an unknown time; do not retry in a loop.",
};

export function failureText(
  tool: ToolDefinition | null,
  toolName: string,
  body: ErrorEnvelopeBody,
  error: ServiceError | null,
  inputSchema: JsonSchema | null,
  /** The call carried an API key (a refusal then says the key lacks a permission, not that a key is needed). */
  keyPresented = true,
): string {
  const code = body.error.code as ErrorCode;
  const lines = [`${toolName} failed: ${body.error.code}: ${body.error.message}`];
  const issues = body.data?.issues ?? [];
  if (issues.length > 0) {
    lines.push("Invalid arguments:");
    for (const issue of issues) lines.push(`- ${issue.path || "(arguments)"}: ${issue.message}`);
    if (inputSchema) {
      lines.push(`Arguments of ${toolName}:`);
      lines.push(...describeArguments(inputSchema));
    }
  }
  const generic = GENERIC[code]?.(toolName, body, keyPresented);
  if (generic) lines.push(`What to do next: ${generic}`);
  const specific = error && tool?.guidance?.[code]?.(error);
  if (specific) lines.push(specific);
  if (body._actions.length > 0) {
    lines.push("Recovery steps (REST):");
    for (const step of body._actions) lines.push(`- ${step.title}: ${step.method} ${step.href}`);
  }
  return lines.join("\n");
}

function isObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One line per argument: type, required or not, allowed values and bounds. */
export function describeArguments(schema: JsonSchema): string[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const lines = Object.entries(properties).map(([name, property]) => {
    const facts = isObject(property) ? describeProperty(property) : [];
    return `- ${name}${required.has(name) ? " (required)" : " (optional)"}${facts.length > 0 ? `: ${facts.join("; ")}` : ""}`;
  });
  if (schema.additionalProperties === false) lines.push("- no other argument is accepted");
  return lines;
}

function describeProperty(property: JsonSchema): string[] {
  const facts: string[] = [];
  const type = typeLabel(property);
  if (type) facts.push(type);
  if (Array.isArray(property.enum)) facts.push(`one of: ${property.enum.map(String).join(", ")}`);
  if (property.const !== undefined) facts.push(`exactly ${JSON.stringify(property.const)}`);
  if (typeof property.pattern === "string") facts.push(`pattern ${property.pattern}`);
  if (typeof property.format === "string") facts.push(`format ${property.format}`);
  if (typeof property.minLength === "number") facts.push(`at least ${property.minLength} characters`);
  if (typeof property.maxLength === "number") facts.push(`at most ${property.maxLength} characters`);
  if (typeof property.minimum === "number") facts.push(`minimum ${property.minimum}`);
  if (typeof property.exclusiveMinimum === "number") facts.push(`greater than ${property.exclusiveMinimum}`);
  if (typeof property.maximum === "number") facts.push(`maximum ${property.maximum}`);
  if (typeof property.minItems === "number") facts.push(`at least ${property.minItems} items`);
  if (typeof property.maxItems === "number") facts.push(`at most ${property.maxItems} items`);
  if (isObject(property.items) && Array.isArray(property.items.enum)) {
    facts.push(`items one of: ${property.items.enum.map(String).join(", ")}`);
  }
  if (typeof property.description === "string") facts.push(property.description);
  return facts;
}

function typeLabel(property: JsonSchema): string | null {
  if (typeof property.type === "string") {
    if (property.type === "array" && isObject(property.items) && typeof property.items.type === "string") {
      return `array of ${property.items.type}`;
    }
    return property.type;
  }
  if (Array.isArray(property.anyOf)) {
    const types = property.anyOf.flatMap((option) =>
      isObject(option) && typeof option.type === "string" ? [option.type] : [],
    );
    return types.length > 0 ? types.join(" or ") : null;
  }
  return null;
}
