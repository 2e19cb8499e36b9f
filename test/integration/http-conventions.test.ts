import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/openapi/operations.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

/*
 * HTTP conventions every route follows (src/http/conventions.ts, src/http/router.ts): HEAD beside
 * every GET, negotiated compression, validators with 304, the same CORS everywhere. Raw node:http
 * requests, so what is on the wire (compressed bytes, empty HEAD bodies) is what is checked.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 120 });
});
afterAll(async () => {
  await server?.close();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function raw(method: string, pathAndQuery: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${server.url}${pathAndQuery}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

/** A cluster of the merchant, from its cluster list. */
async function aClusterId(abId: string): Promise<string> {
  const list = await raw("GET", `/api/merchants/${abId}/clusters`);
  const id = /"cluster_id":"([0-9a-f-]{36})"/.exec(list.body.toString())?.[1];
  if (!id) throw new Error(`${abId} has no cluster`);
  return id;
}

/** A URL of every GET operation, its path parameters filled with real values. */
async function getPaths(): Promise<string[]> {
  const abId = first("active_contactable");
  const clusterId = await aClusterId(abId);
  return OPERATIONS.filter((operation) => operation.method === "get").map((operation) =>
    operation.path
      .replace("{ab_id}", abId)
      .replace("{signal}", "siren")
      .replace("{cluster_id}", clusterId)
      .replace("{lead_id}", "00000000-0000-4000-8000-000000000000"),
  );
}

describe("HEAD", () => {
  it("answers every GET route with GET's status and headers and no body", async () => {
    const paths = [
      ...(await getPaths()),
      "/",
      "/robots.txt",
      "/sitemap.xml",
      "/favicon.svg",
      "/confidentialite",
      "/nope",
    ];
    for (const target of paths) {
      const get = await raw("GET", target, { "accept-encoding": "identity" });
      const head = await raw("HEAD", target, { "accept-encoding": "identity" });
      expect({ target, status: head.status }).toEqual({ target, status: get.status });
      expect({ target, body: head.body.length }).toEqual({ target, body: 0 });
      expect({ target, type: head.headers["content-type"] }).toEqual({ target, type: get.headers["content-type"] });
      // A freshly signed manifest differs on every call, and so does its length.
      if (!target.startsWith("/api/registry/verify/")) {
        expect({ target, length: head.headers["content-length"] }).toEqual({ target, length: String(get.body.length) });
      }
    }
  });
});

describe("request targets", () => {
  it("reads a target starting with // as a path, not as a URL with a host", async () => {
    // `///?` once threw in the server's handler and left the request unanswered.
    const page = await raw("GET", "///?");
    expect(page.status).toBe(404);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const api = await raw("GET", "//api/health");
    expect(api.status).toBe(404);
  });
});

describe("compression", () => {
  it("sends /openapi.json with brotli, or gzip, as the request allows, with Vary: Accept-Encoding", async () => {
    const identity = await raw("GET", "/openapi.json", { "accept-encoding": "identity" });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toBe("Accept-Encoding");
    const br = await raw("GET", "/openapi.json", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(Number(br.headers["content-length"])).toBe(br.body.length);
    expect(zlib.brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(br.body.length * 5).toBeLessThan(identity.body.length);
    const gzip = await raw("GET", "/openapi.json", { "accept-encoding": "gzip;q=1, br;q=0" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gzip.body).equals(identity.body)).toBe(true);
  });

  it("compresses search answers, merchant pages and published documents alike", async () => {
    const abId = first("active_contactable");
    for (const target of [
      "/api/registry/search?q=boulangerie&limit=50",
      `/m/${abId}/`,
      `/api/merchants/${abId}/jsonld`,
    ]) {
      const answer = await raw("GET", target, { "accept-encoding": "gzip" });
      expect({ target, coding: answer.headers["content-encoding"] }).toEqual({ target, coding: "gzip" });
      expect(zlib.gunzipSync(answer.body).length).toBeGreaterThan(answer.body.length);
    }
  });

  it("leaves bodies under 1 KiB as they are", async () => {
    const health = await raw("GET", "/api/health", { "accept-encoding": "br" });
    expect(health.body.length).toBeLessThan(1024);
    expect(health.headers["content-encoding"]).toBeUndefined();
  });
});

describe("validators", () => {
  it("answers 304 on the discovery documents and on answers that change with a revision", async () => {
    const abId = first("active_contactable");
    const targets = [
      "/openapi.json",
      "/.well-known/mcp.json",
      "/.well-known/agent-card.json",
      "/.well-known/ab-public-keys.json",
      "/llms.txt",
      `/api/registry/resolve/${abId}`,
      "/api/registry/search?q=boulangerie",
      `/api/merchants/${abId}/decision-card`,
      `/m/${abId}/`,
      "/",
      "/sitemap.xml",
    ];
    for (const target of targets) {
      for (const coding of ["identity", "br"]) {
        const first = await raw("GET", target, { "accept-encoding": coding });
        const etag = first.headers.etag;
        expect({ target, etag: typeof etag }).toEqual({ target, etag: "string" });
        const again = await raw("GET", target, { "accept-encoding": coding, "if-none-match": String(etag) });
        expect({ target, coding, status: again.status }).toEqual({ target, coding, status: 304 });
        expect(again.headers.etag).toBe(etag);
        expect(again.body.length).toBe(0);
      }
    }
  });

  it("gives a compressed answer a weak tag of the identity bytes' strong one", async () => {
    const identity = await raw("GET", "/openapi.json", { "accept-encoding": "identity" });
    const br = await raw("GET", "/openapi.json", { "accept-encoding": "br" });
    expect(identity.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(br.headers.etag).toBe(`W/${identity.headers.etag}`);
  });
});

describe("CORS", () => {
  it("lets any origin read search, resolve, live verification and the documents", async () => {
    const abId = first("active_contactable");
    for (const target of [
      "/api/registry/search?q=boulangerie",
      `/api/registry/resolve/${abId}`,
      `/api/registry/verify/${abId}`,
      "/api/registry/changes",
      `/api/merchants/${abId}/jsonld`,
      "/openapi.json",
      "/api/registry/resolve/ab_zzzzzzzz",
    ]) {
      const answer = await raw("GET", target, { origin: "https://agent.example" });
      expect({ target, origin: answer.headers["access-control-allow-origin"] }).toEqual({ target, origin: "*" });
      expect(answer.headers["access-control-expose-headers"]).toContain("etag");
    }
  });

  it("answers a preflight on every route with its methods and the headers clients send", async () => {
    const preflight = {
      origin: "https://agent.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, idempotency-key, x-api-key",
    };
    const brick = await raw("OPTIONS", "/api/contact/brick", preflight);
    expect(brick.status).toBe(204);
    expect(brick.headers["access-control-allow-origin"]).toBe("*");
    expect(brick.headers["access-control-allow-methods"]).toBe("POST, OPTIONS");
    for (const name of ["idempotency-key", "x-api-key", "authorization", "mcp-protocol-version", "mcp-session-id"]) {
      expect(brick.headers["access-control-allow-headers"]?.split(", ")).toContain(name);
    }
    const search = await raw("OPTIONS", "/api/registry/search", preflight);
    expect(search.status).toBe(204);
    expect(search.headers["access-control-allow-methods"]).toBe("GET, HEAD, OPTIONS");
    const abId = first("active_contactable");
    for (const target of ["/openapi.json", `/api/merchants/${abId}/jsonld`, "/.well-known/mcp.json"]) {
      const answer = await raw("OPTIONS", target, preflight);
      expect({ target, status: answer.status }).toEqual({ target, status: 204 });
    }
    // The agent endpoints answer theirs under their POST's Host and Origin rule
    // (test/integration/agent-endpoints-cors.test.ts): the service's own origin is always known.
    const mcp = await raw("OPTIONS", "/api/mcp", { ...preflight, origin: "http://abeille.test" });
    expect(mcp.status).toBe(204);
  });

  it("keeps people's pages to their own origin", async () => {
    const page = await raw("GET", `/m/${first("active_contactable")}/`);
    expect(page.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
