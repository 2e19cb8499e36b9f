import { AgentCard, type SecurityRequirement, type SecurityScheme } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION, duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { API_VERSION, SERVICE_DESCRIPTION, SERVICE_NAME } from "../mcp/discovery.ts";
import { TOOLS } from "../mcp/registry.ts";

/**
 * The A2A agent card, served bare at /.well-known/agent-card.json: one JSON-RPC endpoint at
 * /api/a2a speaking A2A 1.0 and 0.3, the API key as two optional security schemes, and one skill
 * per tool of the tool registry (the same domain functions as the REST routes and the MCP tools).
 * Built as the SDK's own AgentCard type and written by the SDK's JSON codec, so the card is what
 * the SDK's client parses; a 0.3 client (which sends no A2A-Version) reads the same card in the
 * 0.3 shape (`legacyAgentCardJson`).
 */

export const A2A_PROTOCOL_VERSION = "1.0";
/** The card-level protocolVersion of the 0.3 shape, as the 0.3 specification writes it. */
export const LEGACY_CARD_PROTOCOL_VERSION = "0.3.0";
export const A2A_PATH = "/api/a2a";

const SKILL_TAGS: Record<string, string[]> = {
  search_merchants: ["search", "merchants", "products", "geo", "opening-hours"],
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
    '{"skill":"search_merchants","arguments":{"q":"boulangerie","near":"Lyon","open_now":true}}',
  ],
  resolve_merchant: ['{"skill":"resolve_merchant","arguments":{"ab_id":"ab_3k9x2m7q"}}'],
  check_availability: ["Is this garage open on Saturday morning?"],
  compare_merchants: ["Compare these three electricians on trust and distance"],
  submit_lead: ["Ask this caterer for a quote for 40 people on 12 June"],
  check_certifications: ["Is this insurance broker registered with ORIAS?"],
};

export const HOW_TO_CALL =
  'Send a message (SendMessage; message/send in A2A 0.3) with a data part {"skill": <skill id>, "arguments": {...}}: the arguments are ' +
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
    // 1.0 first (what a 1.0 client picks), then its 0.3 mirror at the same URL (the SDK's compat layer).
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: `${baseUrl}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
      ["JSONRPC"],
    ),
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

/** The card as JSON (protocol 1.0 wire form), as /.well-known/agent-card.json serves it to 1.0 clients. */
export function agentCardJson(baseUrl: string): Record<string, unknown> {
  return AgentCard.toJSON(agentCard(baseUrl)) as Record<string, unknown>;
}

/**
 * Whether an A2A-Version header asks for 0.3: absent (the 1.0 specification reads a request
 * without it as 0.3, and 0.3 clients never send it) or a version from 0.3 up to, not including, 1.0.
 */
export function isLegacyA2aVersion(header: string | null | undefined): boolean {
  const version = header?.trim() ?? "";
  if (version === "") return true;
  const match = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(version);
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2] ?? 0);
  return major === 0 && minor >= 3;
}

/** The version a request speaks, in the card's terms: "0.3" for every 0.3.x, else the header as sent. */
export function requestedA2aVersion(header: string | null | undefined): string {
  return isLegacyA2aVersion(header) ? A2A_LEGACY_PROTOCOL_VERSION : (header ?? "").trim();
}

type LegacyScheme = Record<string, unknown>;

/** A 1.0 security scheme in the 0.3 shape (OpenAPI's `type` discriminator). */
function legacySecurityScheme(scheme: SecurityScheme): LegacyScheme {
  const inner = scheme.scheme;
  switch (inner?.$case) {
    case "httpAuthSecurityScheme":
      return {
        type: "http",
        scheme: inner.value.scheme,
        ...(inner.value.bearerFormat ? { bearerFormat: inner.value.bearerFormat } : {}),
        description: inner.value.description,
      };
    case "apiKeySecurityScheme":
      return { type: "apiKey", in: inner.value.location, name: inner.value.name, description: inner.value.description };
    default:
      throw new Error(`the 0.3 card has no form for the security scheme ${inner?.$case ?? "(none)"}`);
  }
}

/** 1.0 requirements (`{ schemes: { name: { list } } }`) in the 0.3 shape (`{ name: scopes }`). */
function legacyRequirements(requirements: readonly SecurityRequirement[]): Record<string, string[]>[] {
  return requirements.map((requirement) =>
    Object.fromEntries(Object.entries(requirement.schemes).map(([name, scopes]) => [name, [...(scopes?.list ?? [])]])),
  );
}

/**
 * The card in the A2A 0.3 shape, for 0.3 clients: `url`, `preferredTransport` and
 * `protocolVersion` at the top, 0.3 security schemes and requirements, skills with `security`;
 * the 1.0 `supportedInterfaces` kept beside it (the SDK's "hybrid" card: a 1.0 client reading
 * it still finds the 1.0 interface and prefers it). Derived from the 1.0 card, so the two
 * cannot drift apart.
 */
export function legacyAgentCardJson(baseUrl: string): Record<string, unknown> {
  const card = agentCard(baseUrl);
  return {
    protocolVersion: LEGACY_CARD_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: `${baseUrl}${A2A_PATH}`,
    preferredTransport: "JSONRPC",
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: {
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: card.capabilities?.pushNotifications ?? false,
      stateTransitionHistory: false,
    },
    securitySchemes: Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, legacySecurityScheme(scheme)]),
    ),
    security: legacyRequirements(card.securityRequirements),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
      ...(skill.securityRequirements.length > 0 ? { security: legacyRequirements(skill.securityRequirements) } : {}),
    })),
    supportsAuthenticatedExtendedCard: false,
    supportedInterfaces: (agentCardJson(baseUrl) as { supportedInterfaces: unknown }).supportedInterfaces,
  };
}

/** The card a request asks for by its A2A-Version header: the 0.3 shape for 0.3 clients, else 1.0. */
export function agentCardJsonFor(baseUrl: string, versionHeader: string | null): Record<string, unknown> {
  return isLegacyA2aVersion(versionHeader) ? legacyAgentCardJson(baseUrl) : agentCardJson(baseUrl);
}
