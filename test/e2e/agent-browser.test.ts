/**
 * A browser agent on another origin, in a real browser (Debian's Chromium driven by
 * playwright-core, as the other e2e tests): a page served from http://agent.example calls the
 * service at its public name http://abeille.test (both names mapped to this machine by Chromium's
 * host resolver rules) with the key in Authorization, so Chromium sends its CORS preflight and
 * then the POST, on /api/mcp and /api/a2a. The same page calling the service through
 * http://localhost is stopped at the preflight: the loopback protection stays.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredKey } from "../helpers/agents.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

const CHROMIUM = "/usr/bin/chromium";
let server: TestServer;
let agentSite: http.Server;
let browser: Browser;
let page: Page;
let apiKey: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (.ci/run does)`);
  server = await startTestServer({ count: 30 });
  apiKey = await registeredKey(server, "Page agent");
  // The agent's own site: one empty page, on another origin than the service.
  agentSite = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>agent</title><p>agent</p>");
  });
  await new Promise<void>((resolve) => agentSite.listen(0, "127.0.0.1", resolve));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP abeille.test 127.0.0.1, MAP agent.example 127.0.0.1",
    ],
  });
  page = await browser.newPage();
  const sitePort = (agentSite.address() as AddressInfo).port;
  expect((await page.goto(`http://agent.example:${sitePort}/`))?.status()).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => agentSite?.close(resolve));
  await server?.close();
});

interface PageAnswer {
  status?: number;
  requestId?: string | null;
  json?: Record<string, unknown>;
  error?: string;
}

/** A fetch made by the page's own script, as a browser agent makes it. */
function callFromPage(url: string, headers: Record<string, string>, body: unknown): Promise<PageAnswer> {
  return page.evaluate(
    async ({ url, headers, body }) => {
      try {
        const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
        return {
          status: response.status,
          requestId: response.headers.get("x-request-id"),
          json: await response.json(),
        };
      } catch (failure) {
        return { error: String(failure) };
      }
    },
    { url, headers, body },
  );
}

const port = () => new URL(server.url).port;
const toolsList = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const sendMessage = {
  jsonrpc: "2.0",
  id: 2,
  method: "SendMessage",
  params: {
    message: {
      messageId: "page-1",
      role: "ROLE_USER",
      parts: [{ data: { skill: "search_merchants", arguments: { q: "boulangerie", limit: 1 } } }],
    },
  },
};

describe("a browser agent on another origin (Chromium)", () => {
  it.each([
    {
      path: "/api/mcp",
      headers: { "mcp-protocol-version": "2025-06-18" } as Record<string, string>,
      body: toolsList,
      answered: (result: JsonObject) => result.tools.some((tool: JsonObject) => tool.name === "search_merchants"),
    },
    {
      path: "/api/a2a",
      headers: { "a2a-version": "1.0" } as Record<string, string>,
      body: sendMessage,
      answered: (result: JsonObject) => result.message.role === "ROLE_AGENT",
    },
  ])("calls $path on the public name with its key in Authorization: preflight, then POST", async (endpoint) => {
    const answer = await callFromPage(
      `http://abeille.test:${port()}${endpoint.path}`,
      { "content-type": "application/json", authorization: `Bearer ${apiKey}`, ...endpoint.headers },
      endpoint.body,
    );
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(200);
    // What the page may read besides the body: the exposed headers, the request id among them.
    expect(answer.requestId).toMatch(/.+/);
    expect(endpoint.answered(answer.json?.result as JsonObject)).toBe(true);
  });

  it("is stopped at the preflight when it calls the service through localhost", async () => {
    for (const [path, headers, body] of [
      ["/api/mcp", { "mcp-protocol-version": "2025-06-18" }, toolsList],
      ["/api/a2a", { "a2a-version": "1.0" }, sendMessage],
    ] as const) {
      const answer = await callFromPage(
        `http://localhost:${port()}${path}`,
        { "content-type": "application/json", authorization: `Bearer ${apiKey}`, ...headers },
        body,
      );
      expect({ path, error: answer.error }).toEqual({ path, error: "TypeError: Failed to fetch" });
    }
  });
});
