/**
 * What an agent finds before calling anything: /.well-known/mcp.json (the same tools as
 * tools/list), the A2A agent card, /llms.txt, the OpenAPI document, and the Link headers that
 * point to them from every answer.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { compactVerify, createLocalJWKSet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpRegistryServerJson } from "../../src/mcp/discovery.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
import { expectMeta } from "../helpers/envelope.ts";
import { newAjv } from "../helpers/openapi.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

const projectRoot = path.resolve(import.meta.dirname, "../..");
const readJson = (relative: string): JsonObject =>
  JSON.parse(readFileSync(path.join(projectRoot, relative), "utf8")) as JsonObject;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

async function toolsList(headers: Record<string, string> = {}): Promise<JsonObject[]> {
  const response = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return ((await response.json()) as JsonObject).result.tools;
}

describe("/.well-known/mcp.json", () => {
  it("publishes exactly the tools tools/list gives, and how to reach the endpoint", async () => {
    const { status, headers, body } = await server.getJson("/.well-known/mcp.json");
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(body.success).toBe(true);
    expectMeta(body);
    expect(body.tools).toHaveLength(14);
    // tools/list gives the same descriptors, less those the caller's permissions do not allow.
    expect(body.tool_permissions).toEqual({
      contact_merchant: "leads:write",
      send_lead_message: "leads:write",
      submit_lead: "leads:write",
      quote_order_readiness: "orders:quote",
    });
    expect(await toolsList()).toEqual(
      body.tools.filter((tool: JsonObject) => body.tool_permissions[tool.name] !== "orders:quote"),
    );
    // The full output schemas tools/list outlines, one per tool, in the portable dialect.
    expect(Object.keys(body.output_schemas)).toEqual(body.tools.map((tool: JsonObject) => tool.name));
    expect(JSON.stringify(body)).not.toMatch(/"type":\[/);
    expect(body.endpoint).toBe(`${TEST_BASE_URL}/api/mcp`);
    expect(body.transport).toMatchObject({ type: "streamable-http", url: `${TEST_BASE_URL}/api/mcp`, stateless: true });
    expect(body.serverInfo).toMatchObject({ name: "abeille", version: "1.0.0" });
    expect(body.supportedProtocolVersions).toContain(body.protocolVersion);
    expect(body.documents.openapi).toBe(`${TEST_BASE_URL}/openapi.json`);
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual([
        "annotations",
        "description",
        "inputSchema",
        "name",
        "outputSchema",
        "title",
      ]);
    }
  });
});

describe("/.well-known/agent-card.json", () => {
  it("is an A2A 1.0 agent card: a JSON-RPC interface at /api/a2a, 1.0 security schemes, the tools as skills", async () => {
    const { status, headers, body } = await server.getJson("/.well-known/agent-card.json", {
      headers: { "a2a-version": "1.0" },
    });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(body.success).toBeUndefined();
    expect(body).toMatchObject({
      name: "Abeille",
      // 1.0 first; 0.3 clients (test/integration/a2a-legacy-client.test.ts) are served at the same URL.
      supportedInterfaces: [
        { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
      version: "1.0.0",
      provider: { organization: "Abeille", url: TEST_BASE_URL },
      defaultInputModes: ["application/json", "text/plain"],
      defaultOutputModes: ["application/json", "text/plain"],
      capabilities: { streaming: false, pushNotifications: false },
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: "bearer" } },
        apiKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
      },
    });
    // The 1.0 card has no 0.3 fields (url, preferredTransport): those are the 0.3 card's.
    expect(body.url).toBeUndefined();
    expect(body.preferredTransport).toBeUndefined();
    expect(body.protocolVersion).toBeUndefined();
    // Every tool is a skill (a skill that needs a key says so in its securityRequirements).
    const tools = (await server.getJson("/.well-known/mcp.json")).body.tools as JsonObject[];
    expect(body.skills.map((skill: JsonObject) => skill.id)).toEqual(tools.map((tool) => tool.name));
    for (const skill of body.skills) {
      expect(skill.name.length).toBeGreaterThan(3);
      expect(skill.description.length).toBeGreaterThan(100);
      expect(skill.tags.length).toBeGreaterThan(0);
    }
  });
});

/** RFC 8785 for what a catalog holds (objects, arrays, strings): keys sorted, no whitespace. */
function jcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Verifies a catalog's detached signature as a third party would: JCS bytes, the key set, jose. */
async function verifyCatalog(catalog: JsonObject): Promise<{ alg: string; kid?: string; typ?: string }> {
  const { signature, ...signed } = catalog;
  const [header, payloadPart, sig] = String(signature).split(".");
  expect(payloadPart).toBe("");
  const jwks = createLocalJWKSet((await server.getJson("/.well-known/ab-public-keys.json")).body as never);
  const payload = Buffer.from(jcs(signed), "utf8").toString("base64url");
  const { protectedHeader } = await compactVerify(`${header}.${payload}.${sig}`, jwks, { algorithms: ["EdDSA"] });
  return protectedHeader as { alg: string; kid?: string; typ?: string };
}

describe("/.well-known/ai-catalog.json", () => {
  it("lists the MCP server card and the A2A agent card, as application/ai-catalog+json, open to any origin, cached an hour", async () => {
    const response = await server.get("/.well-known/ai-catalog.json", {
      headers: { origin: "https://elsewhere.example" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/ai-catalog+json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("etag")).toMatch(/^(W\/)?"[\w-]+"$/);
    const { signature, ...catalog } = (await response.json()) as JsonObject;
    expect(catalog).toEqual({
      specVersion: "1.0",
      host: { displayName: "Abeille", identifier: "abeille.test", documentationUrl: `${TEST_BASE_URL}/llms.txt` },
      entries: [
        {
          identifier: "urn:air:abeille.test:mcp:abeille",
          type: "application/mcp-server-card+json",
          url: `${TEST_BASE_URL}/api/mcp/server-card`,
          tags: ["mcp", "merchants", "france", "local-businesses"],
        },
        {
          identifier: "urn:air:abeille.test:a2a:abeille",
          type: "application/a2a-agent-card+json",
          url: `${TEST_BASE_URL}/.well-known/agent-card.json`,
          tags: ["a2a", "merchants", "france", "local-businesses"],
        },
      ],
    });
    expect(typeof signature).toBe("string");
    // Each entry's URL answers its card; the MCP card with the media type the entry declares.
    const mcpCard = await server.get(new URL(catalog.entries[0].url).pathname);
    expect(mcpCard.headers.get("content-type")).toBe(catalog.entries[0].type);
    expect(((await mcpCard.json()) as JsonObject).name).toBe("test.abeille/abeille");
    const agentCard = await server.getJson(new URL(catalog.entries[1].url).pathname);
    expect(agentCard.body.name).toBe("Abeille");
  });

  it("is signed: a detached EdDSA JWS over the canonical JSON without `signature`, verified from the key set", async () => {
    const { body } = await server.getJson("/.well-known/ai-catalog.json");
    const header = await verifyCatalog(body);
    expect(header.alg).toBe("EdDSA");
    const keys = (await server.getJson("/.well-known/ab-public-keys.json")).body.keys as JsonObject[];
    expect(keys.map((key) => key.kid)).toContain(header.kid);
    // A catalog changed after signing no longer verifies.
    const moved = structuredClone(body);
    moved.entries[0].url = "https://elsewhere.example/mcp/server-card";
    await expect(verifyCatalog(moved)).rejects.toThrow(/signature verification failed/);
  });

  it("revalidates: the same catalog keeps its ETag, If-None-Match gives 304", async () => {
    const first = await server.get("/.well-known/ai-catalog.json");
    const etag = first.headers.get("etag") ?? "";
    const again = await server.get("/.well-known/ai-catalog.json", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
  });
});

describe("the MCP server card", () => {
  /** The server-card proposal's JSON Schema (v1, kept in the project as published). */
  const validateCard = (() => {
    const ajv = newAjv();
    ajv.addSchema(readJson("test/fixtures/schemas/mcp-server-card.v1.schema.json"), "server-card");
    return ajv.compile({ $ref: "server-card#/$defs/ServerCard" });
  })();

  it("is at <MCP endpoint>/server-card as application/mcp-server-card+json, valid against the proposal's schema", async () => {
    const response = await server.get("/api/mcp/server-card", {
      headers: { accept: "application/mcp-server-card+json", origin: "https://elsewhere.example" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/mcp-server-card+json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET");
    expect(response.headers.get("access-control-allow-headers")).toBe("Content-Type, If-None-Match");
    expect(response.headers.get("access-control-expose-headers")).toContain("etag");
    const body = (await response.json()) as JsonObject;
    expect(validateCard(body), JSON.stringify(validateCard.errors)).toBe(true);
    expect(body).toMatchObject({
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: "test.abeille/abeille",
      version: "1.0.0",
      title: "Abeille merchant registry",
      remotes: [{ type: "streamable-http", url: `${TEST_BASE_URL}/api/mcp` }],
    });
    expect(body.description.length).toBeLessThanOrEqual(100);
    expect(body.remotes[0].supportedProtocolVersions[0]).toBe("2026-07-28");
    expect(body.remotes[0].headers[0]).toMatchObject({ name: "Authorization", isRequired: false, isSecret: true });
  });

  it("has an ETag, and If-None-Match gives 304 without a body", async () => {
    const first = await server.get("/api/mcp/server-card");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^(W\/)?"[\w-]+"$/);
    const again = await server.get("/api/mcp/server-card", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  it("answers a browser's preflight for GET", async () => {
    const response = await server.get("/api/mcp/server-card", {
      method: "OPTIONS",
      headers: {
        origin: "https://elsewhere.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toContain("if-none-match");
  });

  it("is the same card, with the same headers, at /.well-known/mcp/server-card.json; mcp.json says the same facts", async () => {
    const card = await server.get("/api/mcp/server-card");
    const wellKnown = await server.get("/.well-known/mcp/server-card.json");
    expect(wellKnown.status).toBe(200);
    for (const name of ["content-type", "cache-control", "access-control-allow-origin", "etag"]) {
      expect(wellKnown.headers.get(name), name).toBe(card.headers.get(name));
    }
    const body = (await card.json()) as JsonObject;
    expect(await wellKnown.json()).toEqual(body);
    const mcp = (await server.getJson("/.well-known/mcp.json")).body;
    expect(mcp.serverInfo.version).toBe(body.version);
    expect(mcp.serverInfo.title).toBe(body.title);
    expect(mcp.endpoint).toBe(body.remotes[0].url);
    expect(mcp.supportedProtocolVersions).toEqual(body.remotes[0].supportedProtocolVersions);
    expect(mcp.documents.mcp_server_card).toBe(`${TEST_BASE_URL}/api/mcp/server-card`);
  });
});

describe("server.json", () => {
  it("agrees with the card the server serves: the entry `npm run server-json` writes for its BASE_URL", async () => {
    const card = (await server.getJson("/api/mcp/server-card")).body;
    const entry = mcpRegistryServerJson(TEST_BASE_URL);
    expect(entry.name).toBe(card.name);
    expect(entry.version).toBe(card.version);
    expect(entry.description).toBe(card.description);
    expect(entry.remotes).toEqual([
      { type: "streamable-http", url: card.remotes[0].url, headers: card.remotes[0].headers },
    ]);
    // The project's own server.json (the example deployment's) carries the version served.
    expect(readJson("server.json").version).toBe(card.version);
  });
});

describe("/llms.txt", () => {
  it("describes the service and links the key documents", async () => {
    const response = await server.get("/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text.startsWith("# Abeille\n\n> ")).toBe(true);
    for (const url of ["/openapi.json", "/.well-known/mcp.json", "/.well-known/agent-card.json", "/api/mcp"]) {
      expect(text).toContain(`${TEST_BASE_URL}${url}`);
    }
    for (const tool of await toolsList()) expect(text).toContain(`- ${tool.name}: `);
  });
});

describe("/openapi.json", () => {
  it("is OpenAPI 3.1, version 1.0.0, the generated document", async () => {
    const { status, body } = await server.getJson("/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe("1.0.0");
    expect(body).toEqual(JSON.parse(JSON.stringify(openApiDocument(TEST_BASE_URL))));
  });

  it("answers while agent access would be suspended, without counting (open route)", async () => {
    const response = await server.get("/openapi.json");
    expect(response.headers.get("ratelimit")).toBeNull();
  });
});

describe("Link headers", () => {
  it("point every API answer to the OpenAPI document", async () => {
    for (const path of [
      "/api/registry/search?q=pain",
      "/api/health",
      "/api/registry/resolve/ab_zzzzzzzz",
      "/.well-known/mcp.json",
    ]) {
      const response = await server.get(path);
      expect(response.headers.get("link"), path).toContain(`<${TEST_BASE_URL}/openapi.json>; rel="describedby"`);
    }
  });

  it("point merchant resources to their Markdown snapshot", async () => {
    const abId = first("active_contactable");
    for (const path of [
      `/api/registry/resolve/${abId}`,
      `/api/merchants/${abId}/decision-card`,
      `/api/merchants/${abId}/jsonld`,
      `/api/registry/verify/${abId}`,
    ]) {
      const link = (await server.get(path)).headers.get("link") ?? "";
      expect(link, path).toContain(`<${TEST_BASE_URL}/m/${abId}/ai.md>; rel="alternate"; type="text/markdown"`);
    }
  });

  it("do not point a missing merchant, nor ai.md itself, to a snapshot", async () => {
    const missing = (await server.get("/api/registry/resolve/ab_zzzzzzzz")).headers.get("link") ?? "";
    expect(missing).not.toContain('rel="alternate"');
    const abId = first("active_contactable");
    const aiMd = (await server.get(`/m/${abId}/ai.md`)).headers.get("link") ?? "";
    expect(aiMd).not.toContain('rel="alternate"');
  });

  it("keep a route's own links", async () => {
    const link = (await server.get("/api/trust/public-key")).headers.get("link") ?? "";
    expect(link).toContain('rel="alternate"; type="application/jwk-set+json"');
    expect(link).toContain('rel="describedby"');
  });
});
