/**
 * A browser agent on another origin, step by step as its browser does it (the CORS preflight,
 * then the POST with the key in Authorization), on the agent endpoints /api/mcp and /api/a2a. The
 * test server's BASE_URL, http://abeille.test, is a public name: a call that reaches that host
 * may come from any web origin; a call that reaches a loopback host keeps the DNS-rebinding
 * protection, and there the preflight says no just as the POST does. test/e2e/agent-browser.test.ts
 * runs the same flow in Chromium.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredKey } from "../helpers/agents.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer({ count: 30 });
  apiKey = await registeredKey(server, "Browser agent");
});
afterAll(async () => {
  await server?.close();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: JsonObject | null;
}

/** fetch cannot set Host: a raw request can, as a browser sends it for the name it called. */
function request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<RawAnswer> {
  const target = new URL(`${server.url}${path}`);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { hostname: target.hostname, port: target.port, path: target.pathname, method, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: JsonObject | null = null;
          try {
            json = text ? (JSON.parse(text) as JsonObject) : null;
          } catch {
            json = null;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const AGENT_ORIGIN = "https://agent.example";

/** What the browser sends before the POST (its headers are not simple: Content-Type JSON, Authorization). */
function preflight(path: string, host: string, requestHeaders: string) {
  return request("OPTIONS", path, {
    host,
    origin: AGENT_ORIGIN,
    "access-control-request-method": "POST",
    "access-control-request-headers": requestHeaders,
  });
}

const ENDPOINTS = [
  {
    path: "/api/mcp",
    requestHeaders: "authorization,content-type,mcp-protocol-version",
    headers: { "mcp-protocol-version": "2025-06-18" } as Record<string, string>,
    body: { jsonrpc: "2.0", id: 7, method: "tools/list" },
    answered: (json: JsonObject) => json.result.tools.length > 0,
  },
  {
    path: "/api/a2a",
    requestHeaders: "a2a-version,authorization,content-type",
    headers: { "a2a-version": "1.0" } as Record<string, string>,
    body: {
      jsonrpc: "2.0",
      id: 7,
      method: "SendMessage",
      params: {
        message: {
          messageId: "browser-1",
          role: "ROLE_USER",
          parts: [{ data: { skill: "search_merchants", arguments: { q: "boulangerie", limit: 1 } } }],
        },
      },
    },
    answered: (json: JsonObject) => json.result.message.parts.length > 0,
  },
];

describe.each(ENDPOINTS)("a browser agent on another origin calling $path", (endpoint) => {
  it("is told yes by the preflight and answered on the POST, with its key in Authorization", async () => {
    const asked = await preflight(endpoint.path, "abeille.test", endpoint.requestHeaders);
    expect(asked.status).toBe(204);
    expect(asked.headers["access-control-allow-origin"]).toBe("*");
    expect(asked.headers["access-control-allow-methods"]).toBe("POST");
    const allowed = String(asked.headers["access-control-allow-headers"]).split(", ");
    for (const name of endpoint.requestHeaders.split(",")) expect(allowed).toContain(name);
    // No ambient credential is ever invited: the key travels in Authorization.
    expect(asked.headers["access-control-allow-credentials"]).toBeUndefined();

    const posted = await request(
      "POST",
      endpoint.path,
      {
        host: "abeille.test",
        origin: AGENT_ORIGIN,
        "content-type": "application/json",
        authorization: `Bearer ${apiKey}`,
        ...endpoint.headers,
      },
      endpoint.body,
    );
    expect(posted.status).toBe(200);
    expect(posted.json?.id).toBe(7);
    expect(posted.json?.error).toBeUndefined();
    expect(endpoint.answered(posted.json as JsonObject)).toBe(true);
    expect(posted.headers["access-control-allow-origin"]).toBe("*");
    expect(posted.headers["access-control-allow-credentials"]).toBeUndefined();
    // The key was the caller's: the agent's own budget (5,000 an hour at level 2), not the address's.
    expect(posted.headers["ratelimit-policy"]).toContain('"hourly";q=5000');
  });

  it("is told no by the preflight exactly when the POST is refused: through a loopback host", async () => {
    const asked = await preflight(endpoint.path, "localhost", endpoint.requestHeaders);
    expect(asked.status).toBe(403);
    expect(asked.headers["access-control-allow-methods"]).toBeUndefined();
    const posted = await request(
      "POST",
      endpoint.path,
      { host: "localhost", origin: AGENT_ORIGIN, "content-type": "application/json", ...endpoint.headers },
      endpoint.body,
    );
    expect(posted.status).toBe(403);
    expect(posted.json).toMatchObject({ id: null, error: { code: -32600, data: { code: "FORBIDDEN" } } });
    expect(asked.json?.error.message).toBe(posted.json?.error.message);
  });

  it("keeps the Host check: a rebinding page's own host is refused before and at the POST", async () => {
    const asked = await preflight(endpoint.path, "evil.example", endpoint.requestHeaders);
    expect(asked.status).toBe(403);
    const posted = await request(
      "POST",
      endpoint.path,
      { host: "evil.example", origin: "http://evil.example", "content-type": "application/json", ...endpoint.headers },
      endpoint.body,
    );
    expect(posted.status).toBe(403);
    expect(posted.json?.error.message).toContain("the Host header (evil.example)");
  });
});
