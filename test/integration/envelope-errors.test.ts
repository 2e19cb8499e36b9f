import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

describe("the envelope holds for failures outside any operation", () => {
  it("answers an unknown /api route with 404 NOT_FOUND in the envelope", async () => {
    const { status, body, headers } = await server.getJson("/api/does-not-exist/at-all");
    expect(status).toBe(404);
    expect(headers.get("content-type")).toMatch(/application\/json/);
    expectErrorEnvelope(body, "NOT_FOUND");
  });

  it("answers a wrong method with 405 METHOD_NOT_ALLOWED and an Allow header", async () => {
    const { status, body, headers } = await server.getJson("/api/registry/search?q=pain", { method: "POST" });
    expect(status).toBe(405);
    expect(headers.get("allow")).toContain("GET");
    expectErrorEnvelope(body, "METHOD_NOT_ALLOWED");
  });

  it("answers DELETE on resolve with 405", async () => {
    const { status, body } = await server.getJson("/api/registry/resolve/ab_aaaaaaaa", { method: "DELETE" });
    expect(status).toBe(405);
    expectErrorEnvelope(body, "METHOD_NOT_ALLOWED");
  });

  it("echoes a request id header and carries it in _meta", async () => {
    const { body, headers } = await server.getJson("/api/registry/search?q=boulangerie", {
      headers: { "x-request-id": "trace-123" },
    });
    expect(headers.get("x-request-id")).toBe("trace-123");
    expect(body._meta.request_id).toBe("trace-123");
  });

  it("gives every answer a request id: merchant pages and unknown pages too, the caller's when usable", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    for (const pathName of [`/m/${abId}`, "/no-such-page", "/api/health"]) {
      const traced = await server.get(pathName, { headers: { "x-request-id": "page-trace-7" } });
      expect(traced.headers.get("x-request-id")).toBe("page-trace-7");
      const fresh = await server.get(pathName, { headers: { "x-request-id": "not a usable id!" } });
      expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("answers the health check", async () => {
    const { status, body } = await server.getJson("/api/health");
    expect(status).toBe(200);
    expect(body.data.status).toBe("ok");
    // Each shared part: the embedded store, limits in DATA_DIR's file (no REDIS_URL, no DATABASE_URL).
    expect(body.data.store).toEqual({ engine: "sqlite", revision_notices: null });
    expect(body.data.limits).toEqual({ store: "file", state: "ok" });
  });
});

describe("the envelope holds for unknown discovery paths", () => {
  it("answers an unknown /.well-known path with 404 NOT_FOUND in the envelope", async () => {
    const { status, body } = await server.getJson("/.well-known/not-a-document.json");
    expect(status).toBe(404);
    expectErrorEnvelope(body, "NOT_FOUND");
  });
});

describe("the server around the routes", () => {
  it("serves the build's static files from memory with an ETag and 304", async () => {
    const first = await server.get("/assets/microsite.css");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const etag = first.headers.get("etag");
    // Compressed (fetch asks for it): the weak twin of the identity bytes' strong tag.
    expect(etag).toMatch(/^W\/"sha256-/);
    const again = await server.get("/assets/microsite.css", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
  });

  it("refuses a URL that cannot be decoded with 400 in the whole envelope rather than a fault", async () => {
    for (const target of ["/api/registry/resolve/%E0%A4%A", "/api/health%ZZ", "/m/%C3"]) {
      const { status, body } = await server.getJson(target);
      expect(status, target).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
    }
  });

  it("answers encoded, double-encoded and reserved-escape paths under the API prefixes in the envelope, never a page", async () => {
    const targets = [
      "/api/health%00%40",
      "/api/x%2541",
      "/api/%C3%A9%2F",
      "/api/registry/resolve/ab%20%3D",
      "/.well-known/%C3%A9%2F",
      "/openapi.json%00",
      "/openapi.json/extra",
      "/api",
    ];
    for (const target of targets) {
      const { status, body, headers } = await server.getJson(target);
      expect([400, 404], target).toContain(status);
      expect(headers.get("content-type"), target).toMatch(/^application\/json/);
      expectErrorEnvelope(body, status === 400 ? "VALIDATION_ERROR" : "NOT_FOUND");
    }
  });

  it("answers methods the server does not handle with 405 in the envelope and Allow, on routes and pages alike", async () => {
    for (const [method, target, allow] of [
      ["TRACE", "/api/health", "GET, HEAD"],
      // Node's parser does not know TRACK: refused before any route, with the server's methods.
      ["TRACK", "/api/registry/search", "GET, HEAD, POST, OPTIONS"],
      ["TRACE", "/", "GET, HEAD"],
      ["PUT", "/no-such-page", "GET, HEAD"],
      ["TRACE", "/api/contact/brick", "POST"],
    ] as const) {
      // fetch refuses TRACE and TRACK: the request goes over a plain socket.
      const answer = await rawRequest(`${method} ${target} HTTP/1.1`);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      expect(head.split("\r\n")[0], `${method} ${target}`).toBe("HTTP/1.1 405 Method Not Allowed");
      expect(head.toLowerCase(), `${method} ${target}`).toContain(`\r\nallow: ${allow.toLowerCase()}\r\n`);
      expectErrorEnvelope(JSON.parse(body), "METHOD_NOT_ALLOWED");
    }
  });

  it("answers HEAD on every GET route with the GET answer's status and headers, without a body", async () => {
    const abId = server.roster.cases.active_contactable?.[0] ?? "";
    for (const target of [
      "/api/health",
      "/api/registry/search?q=boulangerie",
      `/api/registry/resolve/${abId}`,
      `/api/merchants/${abId}/decision-card`,
      "/openapi.json",
      "/llms.txt",
    ]) {
      const get = await server.get(target);
      const head = await server.get(target, { method: "HEAD" });
      expect(head.status, target).toBe(get.status);
      expect(head.headers.get("content-type"), target).toBe(get.headers.get("content-type"));
      expect(await head.text(), target).toBe("");
    }
  });

  it("answers the request forms fetch cannot send: absolute-form targets and OPTIONS *", async () => {
    const absolute = await rawRequest("GET http://elsewhere.example/api/health HTTP/1.1");
    expect(absolute.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(absolute).toContain('"status":"ok"');
    const options = await rawRequest("OPTIONS * HTTP/1.1");
    expect(options.split("\r\n")[0]).toBe("HTTP/1.1 204 No Content");
    expect(options.toLowerCase()).toContain("allow: get, head, post, options");
  });
});

function rawRequest(requestLine: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`${requestLine}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}
