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
    expect(etag).toMatch(/^"sha256-/);
    const again = await server.get("/assets/microsite.css", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
  });

  it("refuses a URL that cannot be decoded with 400 rather than a fault", async () => {
    const response = await server.get("/api/registry/resolve/%E0%A4%A");
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("VALIDATION_ERROR");
  });
});
