/**
 * Hostile requests, generated (fast-check), against every route of the built server: methods,
 * paths and their encodings, query strings, headers and bodies that no well-behaved client sends.
 * The contract under test, whatever the request: no 5xx, no stack trace or source path in any
 * answer, and under /api/ a JSON answer in the envelope (the MCP endpoint answers JSON-RPC).
 *
 * Requests go over a raw socket, so that what fetch would refuse to send (bad encodings, odd
 * methods, raw bytes in the target) reaches the server. A failure prints the seed and the
 * shrunk request: FUZZ_SEED=<seed> replays it; FUZZ_RUNS raises the number of requests.
 */
import { readdirSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const STACK_TRACE = /\bat [^\n]*\.(?:ts|js|mjs|cjs):\d+|node:internal|\/src\/[a-z-]+\/[a-z-]+\.ts/;

let server: TestServer;
let knownAbId: string;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_ANON_HOURLY: "1000000000" } });
  knownAbId = server.roster.cases.active_contactable?.[0] ?? "";
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Every route file's path, with its parameters as `[name]` / `[...name]` (Astro conventions). */
function routeTemplates(): string[] {
  const pages = path.resolve(import.meta.dirname, "../../src/pages");
  const templates: string[] = [];
  const walk = (directory: string, prefix: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        walk(path.join(directory, entry.name), `${prefix}/${entry.name}`);
        continue;
      }
      if (entry.name.startsWith("_")) continue;
      const stem = entry.name.replace(/\.(ts|astro)$/, "");
      templates.push(stem === "index" ? prefix || "/" : `${prefix}/${stem}`);
    }
  };
  walk(pages, "");
  return templates.sort();
}

interface HostileRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body: string;
}

const hostileSegment = fc.oneof(
  fc.constantFrom("..", "%2e%2e", "%2F", "%00", "%ZZ", "%", "%c3%28", "%ff%fe", "~", "a b", "\u00e9", "ab_", "null"),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", maxLength: 20 }).map(encodeURIComponent),
  fc.stringMatching(/^[a-z0-9_-]{1,24}$/),
  fc.constant("x".repeat(5_000)),
);

function requestArbitrary(templates: string[]): fc.Arbitrary<HostileRequest> {
  const parameter = fc.oneof(
    { weight: 1, arbitrary: fc.constant(knownAbId) },
    { weight: 3, arbitrary: hostileSegment },
  );
  const target = fc
    .tuple(
      fc.constantFrom(...templates),
      fc.array(parameter, { minLength: 3, maxLength: 3 }),
      fc.oneof(
        fc.constant(""),
        fc
          .array(
            fc.tuple(
              fc.constantFrom("q", "lat", "lng", "radius", "limit", "token", "tags", "since", "x"),
              hostileSegment,
            ),
            {
              maxLength: 4,
            },
          )
          .map((pairs) => `?${pairs.map(([key, value]) => `${key}=${value}`).join("&")}`),
        fc.constantFrom(
          "?",
          "?&&",
          "?q",
          "?lat=NaN&lng=Infinity&radius=-1",
          "?limit=1e309",
          "?q=%",
          "?tags[]=a&tags[]=b",
        ),
      ),
      fc.constantFrom("", "/", "//", "/.", ".json", "%20"),
    )
    .map(([template, values, query, suffix]) => {
      let index = 0;
      const filled = template.replace(/\[(?:\.\.\.)?[a-z_]+\]/g, () => values[index++ % values.length] ?? "x");
      return `${filled}${suffix}${query}`;
    });
  const header = fc.oneof(
    fc.tuple(
      fc.constant("content-type"),
      fc.constantFrom(
        "application/json",
        "application/json; charset=latin1",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json;;;",
        "",
      ),
    ),
    fc.tuple(
      fc.constant("accept"),
      fc.constantFrom("application/json", "text/html", "text/event-stream", "*/*", "x/y;q=2"),
    ),
    fc.tuple(
      fc.constant("authorization"),
      fc.constantFrom("Bearer ", "Bearer abk_live_x", "Basic Zm9vOmJhcg==", "Bearer \u00e9", "Bearer x".repeat(300)),
    ),
    fc.tuple(
      fc.constantFrom("idempotency-key", "x-tracking-token", "if-none-match", "x-forwarded-for", "origin", "range"),
      fc.string({ maxLength: 300 }).map((value) => value.replace(/[\r\n]/g, "")),
    ),
    fc.tuple(
      fc.constantFrom("mcp-protocol-version", "mcp-session-id"),
      fc.constantFrom("2025-06-18", "1999-01-01", "", "x"),
    ),
  );
  const validLead = fc
    .record({
      ab_id: fc.oneof(fc.constant(knownAbId), fc.string()),
      contact_name: fc.oneof(fc.string(), fc.constant("Camille\r\nBcc: x@example.org")),
      contact_email: fc.oneof(fc.emailAddress(), fc.string()),
      lead_type: fc.constantFrom("quote", "contact", "booking", "x"),
      message: fc.oneof(fc.string({ maxLength: 3_000 }), fc.integer()),
    })
    .map((lead) => JSON.stringify(lead));
  const body = fc.oneof(
    fc.constant(""),
    fc.json({ maxDepth: 4 }),
    validLead,
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      "{",
      "[]",
      "null",
      '{"__proto__":{"x":1}}',
      `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x".repeat(300) } }),
      JSON.stringify({ jsonrpc: "2.0", method: "initialize" }),
      `"${"a".repeat(300_000)}"`,
    ),
  );
  return fc.record({
    method: fc.constantFrom(
      "GET",
      "GET",
      "HEAD",
      "POST",
      "POST",
      "PUT",
      "PATCH",
      "DELETE",
      "OPTIONS",
      "TRACE",
      "PROPFIND",
    ),
    target,
    headers: fc.uniqueArray(header, { maxLength: 4, selector: ([name]) => name }),
    body,
  });
}

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** One request over its own connection; the answer read to the end (Connection: close). */
function send(request: HostileRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  const bodyBytes = Buffer.from(request.body, "utf8");
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: ${hostname}`,
    "Connection: close",
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    ...(request.body === "" ? [] : [`Content-Length: ${bodyBytes.length}`]),
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      // write, not end: a client that half-closes after its request is taken to have gone away
      // (Node's server, like nginx, then drops the answer of a request still being handled).
      socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, "latin1"), bodyBytes]));
    });
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () =>
      socket.destroy(new Error(`no answer within 15 s to ${request.method} ${request.target}`)),
    );
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // The server may close first on a request it refused while the body was still being sent.
      if (error.code === "ECONNRESET" || error.code === "EPIPE") resolve(parse(Buffer.concat(chunks)));
      else reject(error);
    });
    socket.on("end", () => resolve(parse(Buffer.concat(chunks))));
  });
}

function parse(raw: Buffer): RawAnswer {
  const text = raw.toString("utf8");
  const split = text.indexOf("\r\n\r\n");
  const headLines = (split < 0 ? text : text.slice(0, split)).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headLines[0] ?? "")?.[1] ?? 0);
  const headers = new Map<string, string>();
  for (const line of headLines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = split < 0 ? "" : text.slice(split + 4);
  if (headers.get("transfer-encoding") === "chunked") body = unchunk(body);
  return { status, headers, body };
}

function unchunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    if (lineEnd < 0) return out;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    // Sizes count bytes; the body was decoded as UTF-8, so re-encode to cut at the right place.
    const bytes = Buffer.from(rest.slice(lineEnd + 2), "utf8");
    out += bytes.subarray(0, size).toString("utf8");
    rest = bytes.subarray(size + 2).toString("utf8");
  }
}

function checkContract(request: HostileRequest, answer: RawAnswer): void {
  const where = `${request.method} ${request.target.slice(0, 200)}`;
  expect(answer.status, `${where}: status`).toBeGreaterThanOrEqual(200);
  expect(answer.status, `${where}: no 5xx`).toBeLessThan(500);
  expect(STACK_TRACE.test(answer.body), `${where}: no stack trace in ${answer.body.slice(0, 300)}`).toBe(false);
  // The path as the server resolves it (dot segments removed, as RFC 3986 has it): /api/.. is /.
  const pathOnly = URL.canParse(request.target, "http://x") ? new URL(request.target, "http://x").pathname : "";
  const underApi = pathOnly.startsWith("/api/") || pathOnly === "/api";
  if (!underApi || request.method === "HEAD" || answer.status === 204 || answer.status === 304) return;
  if (pathOnly.startsWith("/api/mcp") && answer.headers.get("content-type")?.startsWith("text/event-stream")) return;
  const contentType = answer.headers.get("content-type") ?? "";
  expect(contentType, `${where}: JSON under /api/`).toMatch(/^application\/(?:ld\+)?json/);
  const parsed = JSON.parse(answer.body) as Record<string, unknown>;
  // The MCP endpoint's own protocol, and a JSON-LD document as Schema.org has it (no envelope).
  if ("jsonrpc" in parsed || contentType.startsWith("application/ld+json")) return;
  expect(typeof parsed.success, `${where}: envelope`).toBe("boolean");
  expect(parsed._meta, `${where}: _meta`).toBeTypeOf("object");
  expect(parsed._links, `${where}: _links`).toBeTypeOf("object");
  if (parsed.success === false) {
    const error = parsed.error as { code?: unknown; message?: unknown };
    expect(typeof error.code, `${where}: error.code`).toBe("string");
    expect(typeof error.message, `${where}: error.message`).toBe("string");
    expect(Array.isArray(parsed._actions), `${where}: _actions`).toBe(true);
  }
}

describe("hostile requests to every route", () => {
  it("never answer 5xx nor leak a stack trace, and answer the envelope under /api/", async () => {
    const templates = routeTemplates();
    // Every route file is in the pool (the 404 page included), so a new route is fuzzed too.
    expect(templates).toContain("/api/contact/brick");
    expect(templates).toContain("/m/[ab_id]");
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(templates), async (request) => {
        const answer = await send(request);
        statuses.add(answer.status);
        checkContract(request, answer);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The requests got past the edge into the routes: answers, refusals of the body, unknowns, methods.
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 404, 405]));
  }, 300_000);
});
