import { describe, expect, it } from "vitest";
import { agentCard } from "../../src/a2a/card.ts";
import { ANONYMOUS_PERMISSIONS, PERMISSIONS_BY_LEVEL } from "../../src/domain/agents/levels.ts";
import { errorCodes } from "../../src/errors/catalog.ts";
import { llmsTxt, mcpDiscovery, mcpServerCard } from "../../src/mcp/discovery.ts";
import { describeArguments, failureText } from "../../src/mcp/guidance.ts";
import {
  findTool,
  inputSchemaOf,
  TOOL_NAMES,
  TOOLS,
  toolDescriptors,
  toolDescriptorsFor,
  toolOutputSchemas,
  toolPermissions,
} from "../../src/mcp/registry.ts";
import { inlineJsonSchema, outlineJsonSchema, portableJsonSchema } from "../../src/openapi/json-schema.ts";
import { mcpServerCardSchema } from "../../src/schemas/discovery.ts";
import { newAjv } from "../helpers/openapi.ts";
import type { JsonObject } from "../helpers/test-server.ts";

const SPEC_TOOLS = [
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

describe("the tool registry", () => {
  it("holds the 14 tools the spec names, in its order", () => {
    expect(TOOL_NAMES).toEqual(SPEC_TOOLS);
  });

  it("describes each tool for a model: when to use it, what it returns, what next", () => {
    for (const tool of TOOLS) {
      expect(tool.description.length, tool.name).toBeGreaterThan(200);
      // Every description points the model somewhere: another tool, or what to tell the user.
      const mentionsOtherTool = SPEC_TOOLS.some((name) => name !== tool.name && tool.description.includes(name));
      expect(mentionsOtherTool, `${tool.name} names no next step`).toBe(true);
    }
  });

  it("publishes self-contained input schemas with an object root and no refs", () => {
    for (const descriptor of toolDescriptors()) {
      expect(descriptor.inputSchema.type).toBe("object");
      expect(JSON.stringify(descriptor.inputSchema)).not.toContain('"$ref"');
      expect(JSON.stringify(descriptor.outputSchema)).not.toContain('"$ref"');
      expect(descriptor.annotations.title).toBe(descriptor.title);
    }
  });

  it("compiles every schema with ajv (2020-12) and with the SDK client's draft-07 validator", async () => {
    const { default: Ajv } = await import("ajv");
    const { default: addFormats } = await import("ajv-formats");
    // As the SDK's AjvJsonSchemaValidator builds it.
    const draft07 = new Ajv({ strict: false, validateSchema: false, allErrors: true, validateFormats: true });
    addFormats(draft07);
    const ajv = newAjv();
    for (const descriptor of toolDescriptors()) {
      expect(() => ajv.compile(descriptor.inputSchema), descriptor.name).not.toThrow();
      expect(() => ajv.compile(descriptor.outputSchema), descriptor.name).not.toThrow();
      expect(() => draft07.compile(descriptor.outputSchema), descriptor.name).not.toThrow();
    }
  });

  it("accepts both the success and the error envelope as structuredContent", () => {
    const ajv = newAjv();
    const descriptor = toolDescriptors().find((tool) => tool.name === "get_trust_score");
    if (!descriptor) throw new Error("no get_trust_score");
    const full = ajv.compile(toolOutputSchemas().get_trust_score ?? {});
    const validate = ajv.compile(descriptor.outputSchema);
    const errorEnvelope = {
      success: false,
      data: null,
      error: { code: "MERCHANT_NOT_FOUND", message: "No active merchant has ab_id ab_zzzzzzzz" },
      _actions: [],
      _links: { self: "http://x/api/mcp" },
      _state: null,
      _meta: { protocol: "abeille/hateoas", version: "1.0", timestamp: "2026-01-01T00:00:00.000Z" },
    };
    expect(validate(errorEnvelope)).toBe(true);
    expect(validate({ ...errorEnvelope, success: true })).toBe(false);
    expect(full(errorEnvelope)).toBe(true);
    expect(full({ ...errorEnvelope, success: true })).toBe(false);
  });

  it("annotates read tools read-only and writes as additive, open-world operations", () => {
    for (const tool of TOOLS) {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
      expect(destructiveHint, tool.name).toBe(false);
      if (readOnlyHint) {
        expect(idempotentHint, tool.name).toBe(true);
        expect(openWorldHint, tool.name).toBe(false);
      } else {
        expect(openWorldHint, tool.name).toBe(true);
      }
    }
  });

  it("checks the finer permission of the write tools and of quote_order_readiness", () => {
    expect(findTool("submit_lead")?.permission).toBe("leads:write");
    expect(findTool("contact_merchant")?.permission).toBe("leads:write");
    expect(findTool("send_lead_message")?.permission).toBe("leads:write");
    expect(findTool("quote_order_readiness")?.permission).toBe("orders:quote");
    expect(findTool("search_merchants")?.permission).toBeUndefined();
  });
});

describe("tools/list, small and portable", () => {
  const TYPE_ARRAY = /"type":\[/;

  it("fits in 40 KB for a caller offered all 14 tools (it was 106 KB, 83 KB of output schemas)", () => {
    const tools = toolDescriptorsFor(PERMISSIONS_BY_LEVEL[4]);
    expect(tools.map((tool) => tool.name)).toEqual(SPEC_TOOLS);
    const answer = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } });
    const outputs = tools.reduce((total, tool) => total + JSON.stringify(tool.outputSchema).length, 0);
    const full = JSON.stringify(toolOutputSchemas()).length;
    // What it measures now (also printed for docs/decisions.md): the answer, the outlines, the full schemas.
    console.info(
      `tools/list ${Buffer.byteLength(answer)} bytes, output outlines ${outputs}, full output schemas ${full}`,
    );
    expect(Buffer.byteLength(answer)).toBeLessThan(40_000);
    expect(outputs).toBeLessThan(15_000);
  });

  it("writes no type array anywhere: a nullable is an anyOf of single types", () => {
    expect(JSON.stringify(toolDescriptors())).not.toMatch(TYPE_ARRAY);
    expect(JSON.stringify(toolOutputSchemas())).not.toMatch(TYPE_ARRAY);
    const resolve = toolOutputSchemas().resolve_merchant as JsonObject;
    expect(resolve.anyOf[0].properties.merchant.properties.phone).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
    });
  });

  it("outlines the envelope: its members, their types and which are required, the full schema named", () => {
    const resolve = toolDescriptors().find((tool) => tool.name === "resolve_merchant");
    const full = toolOutputSchemas().resolve_merchant as JsonObject;
    const outline = resolve?.outputSchema as JsonObject;
    expect(outline.description).toBe(
      "The navigation envelope, in outline; the full schema is output_schemas.resolve_merchant in /.well-known/mcp.json",
    );
    expect(Object.keys(outline.anyOf[0].properties)).toEqual(Object.keys(full.anyOf[0].properties));
    expect(outline.anyOf[0].required).toEqual(full.anyOf[0].required);
    expect(outline.anyOf[0].properties.merchant).toEqual({ type: "object" });
    expect(outline.anyOf[0].properties.success).toEqual({ type: "boolean", const: true });
  });

  it("offers a caller only the tools its permissions allow", () => {
    const names = (permissions: readonly string[]) => toolDescriptorsFor(permissions).map((tool) => tool.name);
    expect(names(ANONYMOUS_PERMISSIONS)).toEqual(SPEC_TOOLS.filter((name) => name !== "quote_order_readiness"));
    expect(names(PERMISSIONS_BY_LEVEL[1])).toEqual(
      SPEC_TOOLS.filter(
        (name) => !["contact_merchant", "send_lead_message", "submit_lead", "quote_order_readiness"].includes(name),
      ),
    );
    expect(names(PERMISSIONS_BY_LEVEL[3])).toEqual(SPEC_TOOLS);
    expect(toolPermissions()).toEqual({
      contact_merchant: "leads:write",
      send_lead_message: "leads:write",
      submit_lead: "leads:write",
      quote_order_readiness: "orders:quote",
    });
  });
});

describe("the portable schema dialect", () => {
  it("turns a type array into an anyOf, constraints inside, annotations outside, null out of the enum", () => {
    expect(
      portableJsonSchema({
        type: "object",
        properties: {
          city: { description: "Town", type: ["string", "null"], maxLength: 80 },
          level: { type: ["string", "null"], enum: ["a", "b", null] },
          count: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
          type: { type: "string" },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        city: { description: "Town", anyOf: [{ type: "string", maxLength: 80 }, { type: "null" }] },
        level: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
        count: { type: "integer" },
        type: { type: "string" },
      },
    });
  });

  it("outlines to a depth: deeper objects keep their type, nothing is closed", () => {
    const schema = {
      type: "object",
      properties: { inner: { type: "object", properties: { x: { type: "number" } }, additionalProperties: false } },
      required: ["inner"],
      additionalProperties: false,
    };
    expect(outlineJsonSchema(schema, 1)).toEqual({
      type: "object",
      properties: { inner: { type: "object" } },
      required: ["inner"],
    });
  });
});

describe("guidance for failed calls", () => {
  it("describes arguments with types, requirement, allowed values and bounds", () => {
    const tool = findTool("search_merchants");
    if (!tool) throw new Error("no search_merchants");
    const lines = describeArguments(inputSchemaOf(tool));
    expect(lines[0]).toMatch(/^- q \(required\): string; at least 1 characters; at most 200 characters/);
    expect(lines.some((line) => line.startsWith("- limit (optional): integer; minimum 1; maximum 50"))).toBe(true);
    expect(lines.at(-1)).toBe("- no other argument is accepted");
  });

  it("lists enum values", () => {
    const tool = findTool("contact_service");
    if (!tool) throw new Error("no contact_service");
    expect(describeArguments(inputSchemaOf(tool)).join("\n")).toContain(
      "one of: merchant_inquiry, partnership, support",
    );
  });

  it("has generic next steps for the codes a tool can meet", () => {
    for (const code of [
      "VALIDATION_ERROR",
      "MERCHANT_NOT_FOUND",
      "CONTACT_DISABLED",
      "ORDER_DISABLED",
      "FORBIDDEN",
      "NOT_FOUND",
      "CONFLICT",
      "INTERNAL_ERROR",
    ]) {
      expect(errorCodes).toContain(code);
      const text = failureText(
        null,
        "some_tool",
        {
          error: { code, message: "m" },
          data: null,
          _actions: [{ rel: "search", method: "GET", href: "http://x/api/registry/search?q={q}", title: "Search" }],
          _meta: { request_id: "req-1" },
        },
        null,
        null,
      );
      expect(text, code).toContain("What to do next:");
      expect(text).toContain("- Search: GET http://x/api/registry/search?q={q}");
    }
  });

  it("says to send a lead instead of an order", () => {
    const text = failureText(
      null,
      "x",
      { error: { code: "ORDER_DISABLED", message: "closed" }, data: null, _actions: [], _meta: {} },
      null,
      null,
    );
    expect(text).toContain("submit_lead");
    expect(text).toContain('lead_type "quote"');
  });
});

describe("discovery documents from the registry", () => {
  const base = "https://abeille.example";

  it("mcp.json lists the registry's descriptors and the endpoint", () => {
    const document = mcpDiscovery(base);
    expect(document.tools).toEqual(toolDescriptors());
    expect(document.output_schemas).toEqual(toolOutputSchemas());
    expect(Object.keys(document.output_schemas)).toEqual(SPEC_TOOLS);
    expect(document.tool_permissions).toEqual(toolPermissions());
    expect(document.endpoint).toBe(`${base}/api/mcp`);
  });

  it("the agent card's skills are the tools, reached over A2A 1.0 JSON-RPC at /api/a2a", () => {
    const card = agentCard(base);
    expect(card.skills.map((skill) => skill.id)).toEqual(SPEC_TOOLS);
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${base}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ]);
    expect(card.version).toBe("1.0.0");
  });

  it("the MCP server card names the endpoint, the versions and a reverse-DNS name within the v1 bounds", () => {
    const card = mcpServerCard(base);
    expect(mcpServerCardSchema.parse(card)).toEqual(card);
    expect(card.name).toBe("example.abeille/abeille");
    expect(card.remotes[0]?.url).toBe(`${base}/api/mcp`);
    // Only what the endpoint speaks: 2024-11-05 and 2024-10-07 (HTTP+SSE) are not served.
    expect(card.remotes[0]?.supportedProtocolVersions).toEqual([
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
    ]);
    expect(mcpServerCard("http://localhost:4321").name).toBe("localhost/abeille");
  });

  it("llms.txt follows the llms.txt layout: title, summary, link sections", () => {
    const text = llmsTxt(base);
    expect(text).toMatch(/^# Abeille\n\n> .+\n/);
    expect(text).toContain(`[OpenAPI description](${base}/openapi.json)`);
    expect(text).toContain("## Tools");
  });

  it("inlines $defs so the schemas stand alone", () => {
    const tool = findTool("compare_merchants");
    if (!tool) throw new Error("no compare_merchants");
    const schema = inlineJsonSchema(tool.input, "input");
    expect(JSON.stringify(schema)).toContain("^ab_[a-z0-9]{8}$");
    expect(schema.$defs).toBeUndefined();
  });
});
