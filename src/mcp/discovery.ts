import { z } from "zod";
import { TOOLS, toolDescriptors } from "./registry.ts";
import { MCP_INSTRUCTIONS, MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO } from "./server.ts";

/**
 * The discovery documents agents read before calling anything: /.well-known/mcp.json (the tool
 * schemas and how to reach the endpoint), the A2A agent card and /llms.txt. All three are built
 * from the tool registry, so they list exactly what tools/list answers.
 */

export const SERVICE_NAME = "Abeille";
export const SERVICE_DESCRIPTION =
  "Registry of identity-verified local merchants in France, for AI agents: search merchants and their products, " +
  "read trust scores traced to verifiable evidence, check opening hours, and send leads (contact, estimate, " +
  "appointment and quote requests). Orders are closed to public agents: purchase intentions are sent as leads.";
export const API_VERSION = "1.0.0";

const annotationsSchema = z.object({
  title: z.string(),
  readOnlyHint: z.boolean(),
  destructiveHint: z.boolean(),
  idempotentHint: z.boolean(),
  openWorldHint: z.boolean(),
});

export const toolDescriptorSchema = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema 2020-12 of the arguments" }),
    outputSchema: z
      .record(z.string(), z.unknown())
      .meta({ description: "JSON Schema 2020-12 of structuredContent: the success or the error envelope" }),
    annotations: annotationsSchema,
  })
  .meta({ id: "McpTool" });

/** The fields of /.well-known/mcp.json (at the top level of the envelope). */
export const mcpDiscoveryShape = {
  serverInfo: z.object({ name: z.string(), title: z.string(), version: z.string() }),
  description: z.string(),
  protocolVersion: z.string(),
  supportedProtocolVersions: z.array(z.string()),
  endpoint: z.url(),
  transport: z.object({
    type: z.literal("streamable-http"),
    url: z.url(),
    method: z.literal("POST"),
    stateless: z.literal(true),
    response: z.literal("application/json"),
    methods: z.array(z.string()),
    max_body_bytes: z.number().int(),
    batching: z.literal(false),
  }),
  authentication: z.object({
    required: z.literal(false),
    schemes: z.array(z.string()),
    register_url: z.url(),
  }),
  capabilities: z.object({ tools: z.object({ listChanged: z.boolean() }) }),
  instructions: z.string(),
  tools: z.array(toolDescriptorSchema),
  documents: z.record(z.string(), z.url()),
};

export function discoveryLinks(baseUrl: string): Record<string, string> {
  return {
    openapi: `${baseUrl}/openapi.json`,
    mcp: `${baseUrl}/.well-known/mcp.json`,
    agent_card: `${baseUrl}/.well-known/agent-card.json`,
    llms_txt: `${baseUrl}/llms.txt`,
    jwks: `${baseUrl}/.well-known/ab-public-keys.json`,
  };
}

export function mcpDiscovery(baseUrl: string) {
  const endpoint = `${baseUrl}/api/mcp`;
  return {
    serverInfo: { ...MCP_SERVER_INFO },
    description: SERVICE_DESCRIPTION,
    protocolVersion: MCP_PROTOCOL_VERSIONS[0],
    supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
    endpoint,
    transport: {
      type: "streamable-http" as const,
      url: endpoint,
      method: "POST" as const,
      stateless: true as const,
      response: "application/json" as const,
      methods: ["server/discover", "initialize", "tools/list", "tools/call", "ping"],
      max_body_bytes: 64 * 1024,
      batching: false as const,
    },
    authentication: {
      required: false as const,
      schemes: ["Authorization: Bearer <api key>", "X-API-Key: <api key>"],
      register_url: `${baseUrl}/api/agents/register`,
    },
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
    tools: toolDescriptors(),
    documents: discoveryLinks(baseUrl),
  };
}

// --- A2A agent card (A2A protocol 0.3)

export const A2A_PROTOCOL_VERSION = "0.3.0";
export const MCP_TRANSPORT_SPEC = "https://modelcontextprotocol.io/specification/2025-06-18/basic/transports";

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
  search_merchants: ["Trouve une boulangerie bio près de Lyon", "Find a plumber within 5 km of 48.85,2.35"],
  resolve_merchant: ["Show me the full profile of ab_3k9x2m7q"],
  check_availability: ["Is this garage open on Saturday morning?"],
  compare_merchants: ["Compare these three electricians on trust and distance"],
  submit_lead: ["Ask this caterer for a quote for 40 people on 12 June"],
  check_certifications: ["Is this insurance broker registered with ORIAS?"],
};

const agentSkillSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()),
  outputModes: z.array(z.string()),
});

export const agentCardSchema = z
  .object({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.url(),
    preferredTransport: z.string(),
    additionalInterfaces: z.array(z.object({ url: z.url(), transport: z.string() })),
    provider: z.object({ organization: z.string(), url: z.url() }),
    version: z.string(),
    documentationUrl: z.url(),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean(),
      extensions: z.array(
        z.object({
          uri: z.url(),
          description: z.string(),
          required: z.boolean(),
          params: z.record(z.string(), z.unknown()).optional(),
        }),
      ),
    }),
    securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(agentSkillSchema),
    supportsAuthenticatedExtendedCard: z.boolean(),
  })
  .meta({ id: "AgentCard", description: "A2A agent card (protocol 0.3); skills are the MCP tools" });

export function agentCard(baseUrl: string) {
  const endpoint = `${baseUrl}/api/mcp`;
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: SERVICE_NAME,
    description:
      `${SERVICE_DESCRIPTION} The skills below are MCP tools served at ${endpoint} (MCP over Streamable HTTP, ` +
      "JSON-RPC 2.0, stateless, JSON answers): call tools/call with the skill id as the tool name. " +
      `The same operations are plain REST under ${baseUrl}/api (see ${baseUrl}/openapi.json).`,
    url: endpoint,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url: endpoint, transport: "JSONRPC" }],
    provider: { organization: SERVICE_NAME, url: baseUrl },
    version: API_VERSION,
    documentationUrl: `${baseUrl}/llms.txt`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: false,
      extensions: [
        {
          uri: MCP_TRANSPORT_SPEC,
          description:
            "The endpoint speaks the Model Context Protocol (initialize, tools/list, tools/call), not A2A task messages; tool schemas at /.well-known/mcp.json",
          required: true,
          params: { mcp_discovery: `${baseUrl}/.well-known/mcp.json`, protocol_version: MCP_PROTOCOL_VERSIONS[0] },
        },
      ],
    },
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "Optional API key from POST /api/agents/register (anonymous calls are allowed)",
      },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The same key in a header" },
    },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: TOOLS.map((tool) => ({
      id: tool.name,
      name: tool.title,
      description: tool.description,
      tags: [...(SKILL_TAGS[tool.name] ?? []), tool.annotations.readOnlyHint ? "read-only" : "write"],
      ...(SKILL_EXAMPLES[tool.name] ? { examples: SKILL_EXAMPLES[tool.name] } : {}),
      inputModes: ["application/json"],
      outputModes: ["application/json"],
    })),
    supportsAuthenticatedExtendedCard: false,
  };
}

// --- llms.txt

export function llmsTxt(baseUrl: string): string {
  const links = discoveryLinks(baseUrl);
  const lines = [
    `# ${SERVICE_NAME}`,
    "",
    `> ${SERVICE_DESCRIPTION}`,
    "",
    "Every merchant has an identifier `ab_` followed by 8 lowercase letters or digits (ab_id). Trust scores (0-100) are the sum of four components (experience, expertise, authority, trust; 0-25 each) and every point is traced to a credential with its proof level: official_source_verified (checked against an official register), machine_consistent (observed by the platform) or merchant_declared (the merchant's word). Never present a declaration as a verified fact.",
    "",
    "Every JSON answer under /api is a navigation envelope: `success`, `data`, `_actions` (next steps, or recovery steps on errors), `_links`, `_state` (capabilities: can_contact, can_order, blocked_because) and `_meta`. Errors carry `error.code` (VALIDATION_ERROR, MERCHANT_NOT_FOUND, CONTACT_DISABLED, ORDER_DISABLED, RATE_LIMITED, SERVICE_SUSPENDED, ...). No key is needed to search, read or send leads; an API key (POST /api/agents/register) raises rate limits.",
    "",
    "## For agents",
    "",
    `- [MCP endpoint](${baseUrl}/api/mcp): Model Context Protocol over Streamable HTTP (POST, stateless, JSON answers) with ${TOOLS.length} tools`,
    `- [MCP tool schemas](${links.mcp}): every tool's description, input and output schema and annotations`,
    `- [OpenAPI description](${links.openapi}): OpenAPI 3.1 of every REST operation, answers and error codes`,
    `- [A2A agent card](${links.agent_card}): skills and how to reach them`,
    "",
    "## Tools",
    "",
    ...TOOLS.map((tool) => `- ${tool.name}: ${tool.title}`),
    "",
    "## REST",
    "",
    `- [Search](${baseUrl}/api/registry/search?q=boulangerie): GET /api/registry/search?q=&tags=&lat=&lng=&radius=&limit=`,
    `- Merchant profile: GET ${baseUrl}/api/registry/resolve/{ab_id}`,
    `- Decision card: GET ${baseUrl}/api/merchants/{ab_id}/decision-card (identity, trust, actionability, lead contract)`,
    `- Send a lead: POST ${baseUrl}/api/contact/brick (ab_id, contact_name, contact_email, lead_type; keep the tracking_token)`,
    `- Lead status: GET ${baseUrl}/api/leads/{lead_id} with X-Tracking-Token`,
    `- Signed verification manifest: GET ${baseUrl}/api/registry/verify/{ab_id}, keys at ${links.jwks}`,
    "",
    "## Per merchant documents",
    "",
    `- ${baseUrl}/m/{ab_id}/ai.md: the merchant as Markdown`,
    `- ${baseUrl}/api/merchants/{ab_id}/ai-digest: compact digest`,
    `- ${baseUrl}/api/merchants/{ab_id}/jsonld: Schema.org JSON-LD`,
    `- ${baseUrl}/api/merchants/{ab_id}/clusters: questions and answers`,
    "",
    "## Rules",
    "",
    "- Orders are closed to public agents (can_order is false, ORDER_DISABLED): send purchase intentions as leads (lead_type quote).",
    "- Send only the contact details the user agreed to share; the merchant answers the user directly.",
    "- A 429 answer carries Retry-After; a 503 SERVICE_SUSPENDED has no known end: do not retry in a loop.",
    "",
  ];
  return lines.join("\n");
}
