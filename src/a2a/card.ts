import { AgentCard, type SecurityRequirement } from "@a2a-js/sdk";
import { API_VERSION, SERVICE_DESCRIPTION, SERVICE_NAME } from "../mcp/discovery.ts";
import { TOOLS } from "../mcp/registry.ts";

/**
 * The A2A agent card (protocol 1.0), served bare at /.well-known/agent-card.json: one JSON-RPC
 * interface at /api/a2a, the API key as two optional security schemes, and one skill per tool of
 * the tool registry (the same domain functions as the REST routes and the MCP tools). Built as
 * the SDK's own AgentCard type and written by the SDK's JSON codec, so the card is what the SDK's
 * client parses.
 */

export const A2A_PROTOCOL_VERSION = "1.0";
export const A2A_PATH = "/api/a2a";

const SKILL_TAGS: Record<string, string[]> = {
  search_merchants: ["search", "merchants", "products", "geo"],
  resolve_merchant: ["merchant", "profile", "trust"],
  contact_merchant: ["lead", "contact"],
  get_trust_score: ["trust", "evidence"],
  check_availability: ["opening-hours", "availability"],
  compare_merchants: ["compare", "trust", "distance"],
  check_lead_status: ["lead", "tracking"],
  send_lead_message: ["lead", "follow-up"],
  get_lead_fields: ["lead", "form"],
  submit_lead: ["lead", "quote", "appointment", "estimate"],
  get_product_details: ["products", "prices"],
  check_certifications: ["credentials", "evidence", "proof"],
  contact_service: ["support", "platform"],
  quote_order_readiness: ["orders", "readiness"],
};

const SKILL_EXAMPLES: Record<string, string[]> = {
  search_merchants: [
    "boulangerie Lyon",
    '{"skill":"search_merchants","arguments":{"q":"plombier","lat":48.85,"lng":2.35}}',
  ],
  resolve_merchant: ['{"skill":"resolve_merchant","arguments":{"ab_id":"ab_3k9x2m7q"}}'],
  check_availability: ["Is this garage open on Saturday morning?"],
  compare_merchants: ["Compare these three electricians on trust and distance"],
  submit_lead: ["Ask this caterer for a quote for 40 people on 12 June"],
  check_certifications: ["Is this insurance broker registered with ORIAS?"],
};

export const HOW_TO_CALL =
  'Send a message (SendMessage) with a data part {"skill": <skill id>, "arguments": {...}}: the arguments are ' +
  "those of the MCP tool of the same name (schemas at /.well-known/mcp.json). A message with text only searches " +
  "merchants with that text. Success is an agent message whose data part is the navigation envelope the REST " +
  "route answers; a refusal is a task in state rejected (unknown skill, invalid arguments) or failed, whose " +
  "status message carries what to do next and the error envelope.";

/** Either scheme, no anonymous call. */
const KEY_REQUIRED: SecurityRequirement[] = [
  { schemes: { bearer: { list: [] } } },
  { schemes: { apiKey: { list: [] } } },
];

/** The card in the SDK's own type (what DefaultRequestHandler takes). */
export function agentCard(baseUrl: string): AgentCard {
  return {
    name: SERVICE_NAME,
    description: `${SERVICE_DESCRIPTION} ${HOW_TO_CALL}`,
    supportedInterfaces: [
      { url: `${baseUrl}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: SERVICE_NAME, url: baseUrl },
    version: API_VERSION,
    documentationUrl: `${baseUrl}/llms.txt`,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            scheme: "bearer",
            bearerFormat: "",
            description:
              "Optional API key from POST /api/agents/register: anonymous callers may search, read and send leads; a key raises the rate limits and unlocks quote_order_readiness (level 3)",
          },
        },
      },
      apiKey: {
        scheme: {
          $case: "apiKeySecurityScheme",
          value: { location: "header", name: "X-API-Key", description: "The same API key in a header" },
        },
      },
    },
    // Anonymous calls are allowed (an empty requirement), or either scheme.
    securityRequirements: [
      { schemes: {} },
      { schemes: { bearer: { list: [] } } },
      { schemes: { apiKey: { list: [] } } },
    ],
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: TOOLS.map((tool) => ({
      id: tool.name,
      name: tool.title,
      description: tool.description,
      tags: [...(SKILL_TAGS[tool.name] ?? []), tool.annotations.readOnlyHint ? "read-only" : "write"],
      examples: SKILL_EXAMPLES[tool.name] ?? [],
      inputModes: tool.name === "search_merchants" ? ["application/json", "text/plain"] : ["application/json"],
      outputModes: ["application/json", "text/plain"],
      // A tool that needs a key's permission says so; the others take the card's (anonymous allowed).
      securityRequirements: tool.permission === "orders:quote" ? KEY_REQUIRED : [],
    })),
    signatures: [],
  };
}

/** The card as JSON (protocol 1.0 wire form), as /.well-known/agent-card.json serves it. */
export function agentCardJson(baseUrl: string): Record<string, unknown> {
  return AgentCard.toJSON(agentCard(baseUrl)) as Record<string, unknown>;
}
