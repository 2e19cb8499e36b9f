/**
 * The tool endpoint's JSON-RPC framing over raw HTTP: what a plain JSON-RPC client (no MCP SDK)
 * meets, including the faults.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  // A browser client's page on another site is allowed by listing its origin (DNS-rebinding protection).
  server = await startTestServer({ count: 60, env: { MCP_ALLOWED_ORIGINS: "https://agent.example" } });
});
afterAll(async () => {
  await server?.close();
});

async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: JsonObject | null }> {
  const response = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: JsonObject | null = null;
  try {
    json = JSON.parse(text) as JsonObject;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** fetch does not let a caller set Host: a raw HTTP request does, as a rebinding page's browser would. */
function postWithHost(body: unknown, host: string): Promise<{ status: number; json: JsonObject | null }> {
  const target = new URL(`${server.url}/api/mcp`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { host, "content-type": "application/json" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, json: text ? (JSON.parse(text) as JsonObject) : null });
        });
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

const initialize = (id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
});

describe("requests a plain JSON-RPC client sends", () => {
  it("initialize answers the server info and the tools capability, without any Accept header", async () => {
    const { status, json, headers } = await post(initialize(7));
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(headers.get("mcp-session-id")).toBeNull();
    expect(json).toMatchObject({ jsonrpc: "2.0", id: 7 });
    expect(json?.result.serverInfo.name).toBe("abeille");
    expect(json?.result.capabilities.tools).toBeDefined();
    expect(json?.result.instructions).toContain("search_merchants");
  });

  it("tools/list works without initialize (stateless) and echoes a string id", async () => {
    const { status, json, text } = await post({ jsonrpc: "2.0", id: "list-1", method: "tools/list" });
    expect(status).toBe(200);
    expect(json?.id).toBe("list-1");
    // The 13 tools an anonymous caller can use (quote_order_readiness needs a level-3 key), in portable schemas.
    expect(json?.result.tools).toHaveLength(13);
    expect(Buffer.byteLength(text)).toBeLessThan(40_000);
    expect(text).not.toMatch(/"type":\[/);
  });

  it("tools/call answers a result with structuredContent", async () => {
    const { json } = await post({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "search_merchants", arguments: { q: "boulangerie", limit: 2 } },
    });
    expect(json?.result.isError).toBeUndefined();
    expect(json?.result.structuredContent.success).toBe(true);
  });

  it("ping answers an empty result", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 4, method: "ping" });
    expect(json).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  it("keeps a null id (JSON-RPC 2.0 allows it, the spec lists it)", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: null, method: "tools/list" });
    expect(status).toBe(200);
    expect(json?.id).toBeNull();
    expect(json?.result.tools).toHaveLength(13);
  });

  it("carries the describedby Link and the request id", async () => {
    const { headers } = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "x-request-id": "rpc-trace-1" });
    expect(headers.get("x-request-id")).toBe("rpc-trace-1");
    expect(headers.get("link")).toContain('/openapi.json>; rel="describedby"');
  });
});

describe("notifications", () => {
  it("a notification without id is accepted with 202 and no body", async () => {
    const { status, text } = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(status).toBe(202);
    expect(text).toBe("");
  });

  it("an unknown notification is still 202 (notifications are never answered)", async () => {
    const { status, text } = await post({ jsonrpc: "2.0", method: "notifications/whatever", params: [1, 2] });
    expect(status).toBe(202);
    expect(text).toBe("");
  });
});

describe("protocol faults are JSON-RPC errors with the id echoed", () => {
  it("-32700 for a body that is not JSON", async () => {
    const { status, json } = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(status).toBe(400);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("-32600 for a wrong jsonrpc version, with the id echoed", async () => {
    const { status, json } = await post({ jsonrpc: "1.0", id: 42, method: "tools/list" });
    expect(status).toBe(400);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: 42, error: { code: -32600 } });
    expect(json?.error.message).toContain('"jsonrpc"');
  });

  it("-32600 for a missing jsonrpc member", async () => {
    const { json } = await post({ id: "a", method: "tools/list" });
    expect(json).toMatchObject({ id: "a", error: { code: -32600 } });
  });

  it("-32600 for a method that is not a string", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 5, method: 12 });
    expect(json).toMatchObject({ id: 5, error: { code: -32600 } });
  });

  it("-32600 for an id that is neither a string nor an integer", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" });
    expect(json).toMatchObject({ id: null, error: { code: -32600 } });
    const fractional = await post({ jsonrpc: "2.0", id: 1.5, method: "ping" });
    expect(fractional.json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("-32600 for a request with a member JSON-RPC does not define", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 16, method: "tools/list", extra: true });
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: 16, error: { code: -32600 } });
    expect(json?.error.message).toContain('"extra"');
  });

  it("-32600 for a JSON value that is not an object", async () => {
    for (const body of ["42", '"tools/list"', "null"]) {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it("a 2026-07-28 header without the per-request _meta is 400 saying what is missing, with the id", async () => {
    const { status, json } = await post(
      { jsonrpc: "2.0", id: 77, method: "tools/list" },
      { "mcp-protocol-version": "2026-07-28" },
    );
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: 77, error: { code: -32602, data: { envelope: { missing: ["_meta"] } } } });
  });

  it("-32601 for an unknown method, answered 200 with the id", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 9, method: "resources/list" });
    expect(status).toBe(200);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32601 } });
  });

  it("-32602 for an unknown tool, naming the available ones", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "order_pizza" } });
    expect(json).toMatchObject({ id: 10, error: { code: -32602 } });
    expect(json?.error.message).toMatch(/^Unknown tool: order_pizza\. Available tools: search_merchants, /);
  });

  it("-32602 for malformed params of a known method", async () => {
    const cases = [
      { jsonrpc: "2.0", id: 11, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "search_merchants", arguments: [1] } },
      { jsonrpc: "2.0", id: 13, method: "tools/list", params: [] },
      { jsonrpc: "2.0", id: 14, method: "initialize", params: { protocolVersion: 2025 } },
      { jsonrpc: "2.0", id: 15, method: "tools/list", params: { cursor: 3 } },
    ];
    for (const request of cases) {
      const { status, json } = await post(request);
      expect(status).toBe(200);
      expect(json).toMatchObject({ jsonrpc: "2.0", id: request.id, error: { code: -32602 } });
    }
  });

  it("a batch is refused as a whole with -32600 from a client that speaks a revision without batches", async () => {
    const { status, json } = await post(
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ],
      { "mcp-protocol-version": "2025-06-18" },
    );
    expect(status).toBe(400);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message:
          "Invalid Request: batches belong to MCP 2025-03-26 only (2025-06-18 removed them) and this request speaks 2025-06-18; send one message per POST",
      },
    });
  });

  it("an empty batch, or one over 20 messages, is refused as a whole", async () => {
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ id: null, error: { code: -32600 } });
    expect(empty.json?.error.message).toBe("Invalid Request: a batch holds 1 to 20 messages (this one holds 0)");
    const pings = Array.from({ length: 21 }, (_, index) => ({ jsonrpc: "2.0", id: index, method: "ping" }));
    const large = await post(pings);
    expect(large.status).toBe(400);
    expect(large.json?.error.message).toBe("Invalid Request: a batch holds 1 to 20 messages (this one holds 21)");
  });

  it("a wrong content type is 415 with -32600", async () => {
    const { status, json } = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      "content-type": "text/plain",
    });
    expect(status).toBe(415);
    expect(json).toMatchObject({ error: { code: -32600 } });
  });
});

describe("huge params", () => {
  it("a body over 64 KiB is 413 with a JSON-RPC error, declared length or not", async () => {
    const big = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search_merchants", arguments: { q: "x".repeat(70_000) } },
    };
    const { status, json } = await post(big);
    expect(status).toBe(413);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, data: { max_bytes: 65536 } } });

    // Streamed without Content-Length: the cap applies while reading.
    const encoder = new TextEncoder();
    const chunk = encoder.encode(" ".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6) {
          controller.enqueue(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })));
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it("many streamed bodies over 64 KiB at once are each refused, and the server stays up", async () => {
    // Readable.toWeb once let a chunk reach the stream after the cap cancelled it: an uncaught
    // "Controller is already closed" that ends the server process (vitest reports it here).
    const streamed = () => {
      let sent = 0;
      const chunk = new Uint8Array(32 * 1024).fill(32);
      return fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 1;
            if (sent > 40) controller.close();
            else controller.enqueue(chunk);
          },
        }),
        duplex: "half",
      } as RequestInit).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        // The server may close the connection once it has answered 413 with the body still coming.
        () => 413,
      );
    };
    const statuses = await Promise.all(Array.from({ length: 30 }, streamed));
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 413));
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("large arguments under 64 KiB reach the tool, which refuses them with guidance", async () => {
    const { status, json } = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "search_merchants", arguments: { q: "x".repeat(60_000) } },
    });
    expect(status).toBe(200);
    expect(json?.result.isError).toBe(true);
    expect(json?.result.structuredContent.error.code).toBe("VALIDATION_ERROR");
    expect(json?.result.content[0].text).toContain("at most 200 characters");
  });

  it("deeply nested arguments are refused, not crashed on", async () => {
    let nested: unknown = "leaf";
    for (let depth = 0; depth < 2000; depth += 1) nested = [nested];
    const { status, json } = await post({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "resolve_merchant", arguments: { ab_id: nested } },
    });
    expect(status).toBe(200);
    expect(json?.result.isError).toBe(true);
  });
});

describe("other HTTP methods", () => {
  it("GET answers 405 at once with Allow: POST (the SDK client then stops waiting for a stream)", async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5000);
    const response = await fetch(`${server.url}/api/mcp`, {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    clearTimeout(timer);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expectErrorEnvelope((await response.json()) as JsonObject, "METHOD_NOT_ALLOWED");
  });

  it("DELETE answers 405 too (there are no sessions to end)", async () => {
    const response = await fetch(`${server.url}/api/mcp`, { method: "DELETE" });
    expect(response.status).toBe(405);
  });
});

describe("cross-origin access (MCP clients in a browser)", () => {
  it("answers the preflight with the methods and headers a client sends", async () => {
    const response = await fetch(`${server.url}/api/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, authorization, mcp-protocol-version, mcp-method, mcp-name",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("POST");
    const allowed = response.headers.get("access-control-allow-headers")?.split(", ") ?? [];
    expect(allowed).toEqual(
      expect.arrayContaining(["content-type", "authorization", "mcp-protocol-version", "mcp-method", "mcp-name"]),
    );
  });

  it("lets the page read answers and refusals alike, with the request id and rate limit headers", async () => {
    const ping = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://agent.example" });
    expect(ping.status).toBe(200);
    expect(ping.headers.get("access-control-allow-origin")).toBe("*");
    expect(ping.headers.get("access-control-expose-headers")).toContain("ratelimit");
    const refused = await post(
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { origin: "https://agent.example", authorization: "Bearer ab_live_unknown" },
    );
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32001, data: { code: "UNAUTHORIZED", status: 401 } },
    });
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const wrongMethod = await fetch(`${server.url}/api/mcp`, { headers: { origin: "https://agent.example" } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("DNS-rebinding protection (Host and Origin)", () => {
  const ping = { jsonrpc: "2.0", id: 5, method: "ping" };

  it("refuses a Host that names another site with 403 and a JSON-RPC error, before anything else", async () => {
    const { status, json } = await postWithHost(ping, "evil.example:80");
    expect(status).toBe(403);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, data: { code: "FORBIDDEN" } } });
    expect(json?.error.message).toContain("evil.example");
  });

  it("refuses an Origin that is neither the service's, a loopback one nor listed", async () => {
    const { status, json } = await post(ping, { origin: "http://evil.example" });
    expect(status).toBe(403);
    expect(json?.error.message).toContain("http://evil.example");
  });

  it("accepts the base URL's host and origin, loopback ones and the listed origin", async () => {
    for (const headers of [
      { origin: "http://abeille.test" },
      { origin: "http://localhost:6274" },
      { origin: "https://agent.example" },
    ]) {
      const { status, json } = await post(ping, headers);
      expect(status, JSON.stringify(headers)).toBe(200);
      expect(json).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    }
    expect((await postWithHost(ping, "abeille.test")).status).toBe(200);
    expect((await postWithHost(ping, "localhost:1234")).status).toBe(200);
  });
});

describe("refusals are JSON-RPC errors with the HTTP status kept", () => {
  it("a malformed API key is 401 with the request id, the error code and the recovery steps", async () => {
    const { status, json, headers } = await post(
      { jsonrpc: "2.0", id: "call-7", method: "tools/list" },
      { authorization: "Bearer not-a-key" },
    );
    expect(status).toBe(401);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(json?.id).toBe("call-7");
    expect(json?.error.code).toBe(-32001);
    expect(json?.error.data.code).toBe("UNAUTHORIZED");
    expect(json?.error.data._actions.map((step: JsonObject) => step.rel)).toContain("register_agent");
    expect(json).not.toHaveProperty("success");
  });
});

describe("JSON-RPC batches for a client that negotiated 2025-03-26", () => {
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

  it("answers each request of the batch, in order, with the header or without it (the spec's default)", async () => {
    const sent: Record<string, string>[] = [{ "mcp-protocol-version": "2025-03-26" }, {}];
    for (const headers of sent) {
      const { status, json } = await post(
        [
          { jsonrpc: "2.0", id: "a", method: "ping" },
          initialized,
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
          {
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "search_merchants", arguments: { q: "boulangerie", limit: 1 } },
          },
        ],
        headers,
      );
      expect(status).toBe(200);
      expect(Array.isArray(json)).toBe(true);
      const answers = json as unknown as JsonObject[];
      expect(answers.map((answer) => answer.id)).toEqual(["a", 2, 3]);
      expect(answers[0]).toEqual({ jsonrpc: "2.0", id: "a", result: {} });
      expect(answers[1]?.result.tools.map((tool: JsonObject) => tool.name)).toContain("search_merchants");
      expect(answers[2]?.result.structuredContent.success).toBe(true);
    }
  });

  it("answers a batch of notifications only with 202 and no body", async () => {
    const { status, text } = await post([initialized, initialized], { "mcp-protocol-version": "2025-03-26" });
    expect(status).toBe(202);
    expect(text).toBe("");
  });

  it("answers a message that cannot run with its own error, the others still run", async () => {
    const { status, json } = await post([
      { jsonrpc: "2.0", id: 1, method: "initialize", params: initialize().params },
      { jsonrpc: "1.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
      "not a message",
      { jsonrpc: "2.0", id: 5, method: "ping" },
    ]);
    expect(status).toBe(200);
    const answers = json as unknown as JsonObject[];
    expect(answers.map((answer) => [answer.id, answer.error?.code ?? "result"])).toEqual([
      [1, -32600],
      [2, -32600],
      [3, -32602],
      [null, -32600],
      [5, "result"],
    ]);
    expect(answers[0]?.error.message).toBe(
      "Invalid Request: initialize cannot be part of a batch (MCP 2025-03-26); send it alone first",
    );
  });

  it("counts each request of a batch on the rate limit, as if posted alone", async () => {
    const remaining = (headers: Headers) => Number(/r=(\d+)/.exec(headers.get("ratelimit") ?? "")?.[1]);
    const single = await post({ jsonrpc: "2.0", id: 1, method: "ping" });
    const batch = await post([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
      initialized,
      { jsonrpc: "2.0", id: 3, method: "ping" },
    ]);
    expect(batch.status).toBe(200);
    expect(remaining(single.headers) - remaining(batch.headers)).toBe(3);
  });
});

describe("protocol versions", () => {
  it("refuses an MCP-Protocol-Version it does not speak, naming the versions it speaks, the id echoed", async () => {
    for (const version of ["2099-01-01", "1999-01-01", "2024-11-05", "banana"]) {
      const { status, json } = await post(
        { jsonrpc: "2.0", id: 9, method: "tools/list" },
        {
          "mcp-protocol-version": version,
        },
      );
      expect({ version, status }).toEqual({ version, status: 400 });
      expect(json).toEqual({
        jsonrpc: "2.0",
        id: 9,
        error: {
          code: -32022,
          message: `Unsupported protocol version: the MCP-Protocol-Version header names "${version}"; this server speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26`,
          data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], requested: version },
        },
      });
    }
  });

  it("offers its latest 2025 revision to a client asking initialize for 2024-11-05, whose transport it does not serve", async () => {
    const { json } = await post({
      ...initialize(4),
      params: { ...initialize().params, protocolVersion: "2024-11-05" },
    });
    expect(json?.result.protocolVersion).toBe("2025-11-25");
  });
});
