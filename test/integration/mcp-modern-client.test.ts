/**
 * The official SDK's v2 client (@modelcontextprotocol/client) against the built server over HTTP,
 * for protocol revision 2026-07-28: pinned to it (no fallback to initialize), and in 'auto' mode
 * (server/discover probe). Stateless requests with the per-request _meta envelope and the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. Raw requests check what a client without
 * the SDK meets: the id echoed on every error, the headers enforced.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 40 });
});
afterAll(async () => {
  await server?.close();
});

async function connect(mode: "auto" | { pin: "2026-07-28" }): Promise<Client> {
  const client = new Client({ name: "abeille-modern-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
  return client;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "curl", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function post(body: JsonObject, headers: Record<string, string>): Promise<{ status: number; json: JsonObject }> {
  const response = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as JsonObject };
}

describe("a client pinned to 2026-07-28", () => {
  it("discovers the server, lists the 13 tools an anonymous caller can use and calls one, statelessly", async () => {
    const client = await connect({ pin: "2026-07-28" });
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(client.getServerVersion()).toMatchObject({ name: "abeille", version: "1.0.0" });
      const { tools } = await client.listTools();
      // quote_order_readiness needs a level-3 key: it is not offered to an anonymous caller.
      expect(tools).toHaveLength(13);
      expect(tools.map((tool) => tool.name)).not.toContain("quote_order_readiness");
      expect(tools[0]?.name).toBe("search_merchants");
      const result = (await client.callTool({
        name: "search_merchants",
        arguments: { q: "boulangerie", limit: 3 },
      })) as {
        isError?: boolean;
        structuredContent: JsonObject;
      };
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent.success).toBe(true);
      expect(result.structuredContent.query).toBe("boulangerie");
      // The same domain function as the REST route: the same merchants, in the same order.
      const rest = await server.getJson("/api/registry/search?q=boulangerie&limit=3");
      const ids = (answer: JsonObject) => answer.results.map((hit: JsonObject) => hit.merchant.ab_id);
      expect(ids(result.structuredContent)).toEqual(ids(rest.body));
      expect(ids(rest.body).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("gets a tool failure as a result with the error envelope, and an unknown tool as -32602", async () => {
    const client = await connect({ pin: "2026-07-28" });
    try {
      const result = (await client.callTool({ name: "resolve_merchant", arguments: { ab_id: "ab_zzzzzzzz" } })) as {
        isError?: boolean;
        structuredContent: JsonObject;
      };
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error.code).toBe("MERCHANT_NOT_FOUND");
      await expect(client.callTool({ name: "book_table", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});

describe("a client in auto mode", () => {
  it("probes with server/discover and speaks 2026-07-28", async () => {
    const client = await connect("auto");
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect((await client.listTools()).tools).toHaveLength(13);
    } finally {
      await client.close();
    }
  });
});

describe("raw 2026-07-28 requests", () => {
  it("server/discover names the versions, the tools capability and the server", async () => {
    const { status, json } = await post(
      { jsonrpc: "2.0", id: "d-1", method: "server/discover", params: { _meta: META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    );
    expect(status).toBe(200);
    expect(json.id).toBe("d-1");
    expect(json.result.supportedVersions).toEqual(["2026-07-28"]);
    expect(json.result.capabilities).toEqual({ tools: { listChanged: false } });
    expect(json.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({
      name: "abeille",
      version: "1.0.0",
    });
  });

  it("an unsupported version is 400 with the supported ones and the request id", async () => {
    const { status, json } = await post(
      {
        jsonrpc: "2.0",
        id: 41,
        method: "tools/list",
        params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
      },
      { "mcp-protocol-version": "2027-01-01", "mcp-method": "tools/list" },
    );
    expect(status).toBe(400);
    expect(json.id).toBe(41);
    expect(json.error.code).toBe(-32022);
    expect(json.error.data.supported).toContain("2026-07-28");
  });

  it("a Mcp-Name header that disagrees with the tool called is refused (-32020, 400)", async () => {
    const { status, json } = await post(
      {
        jsonrpc: "2.0",
        id: 42,
        method: "tools/call",
        params: { name: "search_merchants", arguments: { q: "pain" }, _meta: META },
      },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "resolve_merchant" },
    );
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: 42, error: { code: -32020 } });
  });

  it("initialize is gone from the 2026-07-28 revision: 404 and -32601", async () => {
    const { status, json } = await post(
      { jsonrpc: "2.0", id: 43, method: "initialize", params: { _meta: META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "initialize" },
    );
    expect(status).toBe(404);
    expect(json).toMatchObject({ id: 43, error: { code: -32601 } });
  });
});
