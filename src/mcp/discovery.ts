import type { z } from "zod";
import type { Reply } from "../http/reply.ts";
import { jsonResponse } from "../http/respond.ts";
import { MCP_MAX_BATCH_MESSAGES } from "../openapi/jsonrpc.ts";
import { type mcpServerCardSchema, SERVER_CARD_SCHEMA } from "../schemas/discovery.ts";
import { TOOLS, toolDescriptors, toolOutputSchemas, toolPermissions } from "./registry.ts";
import {
  BATCH_PROTOCOL_VERSION,
  MCP_INSTRUCTIONS,
  MCP_MAX_BODY_BYTES,
  MCP_PROTOCOL_VERSIONS,
  MCP_SERVER_INFO,
} from "./server.ts";

/**
 * The discovery documents agents read before calling anything: /.well-known/mcp.json (the tool
 * schemas and how to reach the endpoint), the MCP server card and /llms.txt (the A2A agent card is
 * src/a2a/card.ts). They are built from the tool registry: mcp.json's `tools` are the descriptors
 * tools/list answers (all 14; tools/list leaves out those the caller's key does not allow, named
 * in `tool_permissions`), and `output_schemas` holds the full schemas tools/list outlines. Their
 * shapes, for the OpenAPI document, are in src/schemas/discovery.ts.
 */

export const SERVICE_NAME = "Abeille";
export const SERVICE_DESCRIPTION =
  "Registry of identity-verified local merchants in France, for AI agents: search merchants and their products, " +
  "read trust scores traced to verifiable evidence, check opening hours, and send leads (contact, estimate, " +
  "appointment and quote requests). Orders are closed to public agents: purchase intentions are sent as leads.";
export const API_VERSION = "1.0.0";

export function discoveryLinks(baseUrl: string): Record<string, string> {
  return {
    openapi: `${baseUrl}/openapi.json`,
    mcp: `${baseUrl}/.well-known/mcp.json`,
    agent_card: `${baseUrl}/.well-known/agent-card.json`,
    mcp_server_card: serverCardUrl(baseUrl),
    ai_catalog: `${baseUrl}/.well-known/ai-catalog.json`,
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
      max_body_bytes: MCP_MAX_BODY_BYTES,
      batching: { protocol_versions: [BATCH_PROTOCOL_VERSION], max_messages: MCP_MAX_BATCH_MESSAGES },
    },
    authentication: {
      required: false as const,
      schemes: ["Authorization: Bearer <api key>", "X-API-Key: <api key>"],
      register_url: `${baseUrl}/api/agents/register`,
    },
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
    tools: toolDescriptors(),
    tool_permissions: toolPermissions(),
    output_schemas: toolOutputSchemas(),
    documents: discoveryLinks(baseUrl),
  };
}

// --- MCP server card (the Server Card working group's format, schema v1)

/** The card's media type (SEP-2127), which the AI Catalog's entry declares too. */
export const SERVER_CARD_MEDIA_TYPE = "application/mcp-server-card+json";

/** How long a cache may keep a discovery document (the server-card proposal's recommendation). */
export const DISCOVERY_MAX_AGE_SECONDS = 3600;

/** Where the card is: `<streamable-http-url>/server-card`, the location the proposal reserves. */
export function serverCardUrl(baseUrl: string): string {
  return `${baseUrl}/api/mcp/server-card`;
}

/**
 * The headers of a public discovery document (server card, AI Catalog): any origin may read it
 * and revalidate it (the ETag and the 304 come from src/http/conventions.ts), caches keep it an hour.
 */
export function discoveryDocumentHeaders(contentType: string, requestId: string): Record<string, string> {
  return {
    "content-type": contentType,
    "cache-control": `public, max-age=${DISCOVERY_MAX_AGE_SECONDS}`,
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET",
    "access-control-allow-headers": "Content-Type, If-None-Match",
    "x-request-id": requestId,
  };
}

/** The card as served, at its reserved location and at the .well-known path clients already use. */
export function serverCardReply(baseUrl: string, requestId: string): Reply {
  return jsonResponse(200, mcpServerCard(baseUrl), discoveryDocumentHeaders(SERVER_CARD_MEDIA_TYPE, requestId));
}

export const SERVER_CARD_DESCRIPTION = "Identity-verified local merchants in France: search, trust evidence, leads.";

/** The service's host as a publisher name: BASE_URL's host name, without IPv6 brackets, in name characters. */
export function publisherHost(baseUrl: string): string {
  return new URL(baseUrl).hostname.replace(/^\[|\]$/g, "").replace(/[^a-zA-Z0-9.-]/g, "-");
}

/** Reverse-DNS namespace of the service's host: abeille.example.fr -> fr.example.abeille. */
function reverseDns(baseUrl: string): string {
  return publisherHost(baseUrl).split(".").reverse().join(".");
}

export function mcpServerCard(baseUrl: string): z.output<typeof mcpServerCardSchema> {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${reverseDns(baseUrl)}/abeille`,
    version: MCP_SERVER_INFO.version,
    description: SERVER_CARD_DESCRIPTION,
    title: MCP_SERVER_INFO.title,
    websiteUrl: `${baseUrl}/llms.txt`,
    remotes: [
      {
        type: "streamable-http",
        url: `${baseUrl}/api/mcp`,
        headers: [
          {
            name: "Authorization",
            description:
              "Optional: anonymous calls may search, read and send leads; an API key from POST /api/agents/register raises the rate limits",
            isRequired: false,
            isSecret: true,
            value: "Bearer {api_key}",
            variables: {
              api_key: { description: "The API key (abk_...)", isRequired: false, isSecret: true },
            },
          },
        ],
        supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
      },
    ],
  };
}

// --- server.json for the official MCP Registry (schema 2025-12-11)

export const REGISTRY_SERVER_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/**
 * The registry entry of the deployment at `baseUrl`: the served card's name, version, title,
 * description and remote, in the registry's shape (no `supportedProtocolVersions`, which its
 * remotes do not have). `npm run server-json -- <BASE_URL>` writes it; the copy at the project
 * root is the example deployment's.
 */
export function mcpRegistryServerJson(baseUrl: string) {
  const card = mcpServerCard(baseUrl);
  return {
    $schema: REGISTRY_SERVER_SCHEMA,
    name: card.name,
    title: card.title,
    description: card.description,
    version: card.version,
    websiteUrl: card.websiteUrl,
    remotes: card.remotes.map(({ type, url, headers }) => ({ type, url, headers })),
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
    `- [MCP server card](${links.mcp_server_card}): the endpoint and the protocol versions it speaks (2026-07-28 and 2025)`,
    `- [AI Catalog](${links.ai_catalog}): the MCP server card and the A2A agent card, signed with the registry's key (${links.jwks})`,
    `- [A2A endpoint](${baseUrl}/api/a2a): Agent2Agent protocol 1.0 and 0.3 (JSON-RPC), one skill per tool; [agent card](${links.agent_card})`,
    "",
    "## Tools",
    "",
    ...TOOLS.map((tool) => `- ${tool.name}: ${tool.title}`),
    "",
    "## REST",
    "",
    `- [Search](${baseUrl}/api/registry/search?q=boulangerie): GET /api/registry/search?q=&tags=&lat=&lng=&near=&radius=&open_now=&open_at=&at=&limit= (each result says merchant.opening; a point without radius ranks nearer first, no distance cut)`,
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
