import { z } from "zod";

/*
 * The discovery documents' shapes, for the OpenAPI document and the tests: /.well-known/mcp.json
 * (src/mcp/discovery.ts builds it), the MCP server card (same file) and the A2A agent card
 * (src/a2a/card.ts). Here, with the other schemas, so that the operation catalog reads them
 * without importing the protocol modules that themselves route through it.
 */

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
    outputSchema: z.record(z.string(), z.unknown()).meta({
      description:
        "JSON Schema 2020-12 of structuredContent, in outline (the envelope's members and their types); the full schema is in output_schemas",
    }),
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
    batching: z
      .object({ protocol_versions: z.array(z.string()), max_messages: z.number().int() })
      .meta({ description: "JSON-RPC batches: the revisions that have them (2025-03-26) and their size limit" }),
  }),
  authentication: z.object({
    required: z.literal(false),
    schemes: z.array(z.string()),
    register_url: z.url(),
  }),
  capabilities: z.object({ tools: z.object({ listChanged: z.boolean() }) }),
  instructions: z.string(),
  tools: z.array(toolDescriptorSchema).meta({
    description:
      "Every tool as tools/list describes it; tools/list offers a caller only those its key allows (tool_permissions)",
  }),
  tool_permissions: z
    .record(z.string(), z.string())
    .meta({ description: "The permission a tool needs beyond reading the registry, for the tools that need one" }),
  output_schemas: z.record(z.string(), z.record(z.string(), z.unknown())).meta({
    description:
      "Each tool's full JSON Schema 2020-12 of structuredContent (the success or the error envelope); tools/list carries its outline",
  }),
  documents: z.record(z.string(), z.url()),
};

// --- MCP server card (the Server Card working group's format, schema v1)

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/** The card's fields as the v1 schema bounds them (name pattern, description of 100 characters at most). */
export const mcpServerCardSchema = z
  .object({
    $schema: z.literal(SERVER_CARD_SCHEMA),
    name: z
      .string()
      .min(3)
      .max(200)
      .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
    version: z.string().max(255),
    description: z.string().min(1).max(100),
    title: z.string().min(1).max(100),
    websiteUrl: z.url(),
    remotes: z.array(
      z.object({
        type: z.literal("streamable-http"),
        url: z.url(),
        headers: z.array(
          z.object({
            name: z.string(),
            description: z.string(),
            isRequired: z.boolean(),
            isSecret: z.boolean(),
            value: z.string(),
            variables: z.record(
              z.string(),
              z.object({ description: z.string(), isRequired: z.boolean(), isSecret: z.boolean() }),
            ),
          }),
        ),
        supportedProtocolVersions: z.array(z.string()),
      }),
    ),
  })
  .meta({
    id: "McpServerCard",
    description: "MCP server card (schema v1): identity, endpoint and protocol versions, before any connection",
  });

// --- AI Catalog (Agent Card Working Group, specVersion 1.0)

export const aiCatalogSchema = z
  .object({
    specVersion: z.literal("1.0"),
    host: z.object({ displayName: z.string(), identifier: z.string(), documentationUrl: z.url() }),
    entries: z.array(
      z.object({
        identifier: z.string().meta({ description: "urn:air:{publisher}:{namespace}:{name}" }),
        type: z.string().meta({ description: "The artifact's media type" }),
        url: z.url(),
        tags: z.array(z.string()),
      }),
    ),
    signature: z.string().optional().meta({
      description:
        "Detached JWS (compact, empty payload part; EdDSA, kid in the header) over the RFC 8785 canonical JSON of the catalog without this member; keys at /.well-known/ab-public-keys.json",
    }),
  })
  .meta({
    id: "AiCatalog",
    description: "AI Catalog: the MCP server card and the A2A agent card of this service, signed",
  });

// --- A2A agent card

const securitySchemeSchema = z.union([
  z.object({
    httpAuthSecurityScheme: z.object({ scheme: z.string(), description: z.string().optional() }),
  }),
  z.object({
    apiKeySecurityScheme: z.object({ location: z.string(), name: z.string(), description: z.string().optional() }),
  }),
]);

const securityRequirementSchema = z.object({
  schemes: z.record(z.string(), z.object({ list: z.array(z.string()).optional() })).optional(),
});

/** A skill's fields in both card shapes (1.0 and 0.3 differ in how they name its security only). */
const skillShape = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()),
  outputModes: z.array(z.string()),
};

/** The card's fields in both shapes. */
const cardShape = {
  name: z.string(),
  description: z.string(),
  provider: z.object({ organization: z.string(), url: z.url() }),
  version: z.string(),
  documentationUrl: z.url(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
};

const interfacesSchema = z
  .array(z.object({ url: z.url(), protocolBinding: z.string(), protocolVersion: z.string() }))
  .min(1);

/** The card's shape as served (the A2A 1.0 JSON form), for the OpenAPI document. */
export const agentCardSchema = z
  .object({
    ...cardShape,
    supportedInterfaces: interfacesSchema,
    capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean(), extendedAgentCard: z.boolean() }),
    securitySchemes: z.record(z.string(), securitySchemeSchema),
    securityRequirements: z.array(securityRequirementSchema),
    skills: z.array(z.object({ ...skillShape, securityRequirements: z.array(securityRequirementSchema).optional() })),
  })
  .meta({
    id: "AgentCard",
    description: "A2A agent card (protocol 1.0); skills are the MCP tools, served over A2A JSON-RPC at /api/a2a",
  });

/** 0.3 security requirements: scheme name to scopes, one object per alternative. */
const legacyRequirementsSchema = z.array(z.record(z.string(), z.array(z.string())));

const legacySecuritySchemeSchema = z.union([
  z.object({ type: z.literal("http"), scheme: z.string(), description: z.string().optional() }),
  z.object({ type: z.literal("apiKey"), in: z.string(), name: z.string(), description: z.string().optional() }),
]);

/** The card in the A2A 0.3 shape, for clients that send no A2A-Version (the 1.0 interfaces kept beside). */
export const legacyAgentCardSchema = z
  .object({
    ...cardShape,
    protocolVersion: z.string(),
    url: z.url(),
    preferredTransport: z.literal("JSONRPC"),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean(),
    }),
    securitySchemes: z.record(z.string(), legacySecuritySchemeSchema),
    security: legacyRequirementsSchema,
    skills: z.array(z.object({ ...skillShape, security: legacyRequirementsSchema.optional() })),
    supportsAuthenticatedExtendedCard: z.boolean(),
    supportedInterfaces: interfacesSchema,
  })
  .meta({
    id: "LegacyAgentCard",
    description:
      "A2A agent card in the 0.3 shape (url, preferredTransport, protocolVersion), answered when the request sends no A2A-Version or names 0.3; supportedInterfaces keeps the 1.0 interfaces",
  });
