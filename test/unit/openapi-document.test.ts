/**
 * The generated OpenAPI document: complete (every route the project serves, every operation of
 * the spec), consistent with the error catalog, valid for a standard linter (Redocly, offline).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { errorCatalog } from "../../src/errors/catalog.ts";
import { errorCodesByStatus, matchOperation, openApiDocument } from "../../src/openapi/document.ts";
import { OPERATIONS } from "../../src/openapi/operations.ts";
import { OpenApiValidator } from "../helpers/openapi.ts";

const BASE = "https://abeille.example";
const root = path.resolve(import.meta.dirname, "../..");
const document = openApiDocument(BASE);

/** The spec's endpoint table, plus the withdrawn attestation route it describes. */
const SPEC_ENDPOINTS = [
  "GET /api/registry/search",
  "GET /api/registry/resolve/{ab_id}",
  "GET /api/registry/verify/{ab_id}",
  "GET /api/trust/public-key",
  "POST /api/contact/brick",
  "POST /api/contact/platform",
  "POST /api/orders/create",
  "GET /api/merchants/{ab_id}/jsonld",
  "GET /api/merchants/{ab_id}/ai-digest",
  "GET /api/merchants/{ab_id}/clusters",
  "GET /api/clusters/{cluster_id}",
  "GET /m/{ab_id}/ai.md",
  "POST /api/agents/register",
  "GET /api/agents/verify",
  "POST /api/attribution/session",
  "POST /api/attribution/convert",
  "POST /api/mcp",
  "GET /api/verify/{signal}/{ab_id}",
  "GET /.well-known/ab-public-keys.json",
  "GET /.well-known/mcp.json",
  "GET /openapi.json",
  "GET /api/trust/attestation/{ab_id}",
];

function documented(): string[] {
  return Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
  );
}

/** Route paths of the files under src/pages (helpers starting with _ and the catch-all excluded). */
function servedRoutes(): string[] {
  const pagesDir = path.join(root, "src/pages");
  const routes: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) {
        visit(full);
        continue;
      }
      if (!entry.endsWith(".ts") || entry.startsWith("_") || entry.includes("[...")) continue;
      const relative = path.relative(pagesDir, full).replace(/\.ts$/, "").split(path.sep);
      if (relative.at(-1) === "index") relative.pop();
      routes.push(`/${relative.join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}"));
    }
  };
  visit(pagesDir);
  return routes.sort();
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with info.version 1.0.0 and servers on BASE_URL", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(document.servers).toEqual([{ url: BASE }]);
  });

  it("names each component schema once (two zod schemas with one id would become Name2)", () => {
    const names = Object.keys((document.components?.schemas ?? {}) as Record<string, unknown>);
    expect(names.filter((name) => /\d$/.test(name))).toEqual([]);
    expect(names).toContain("ClusterNode");
    expect(names).toContain("DecisionCardClusterNode");
  });

  it("describes every operation of the spec's endpoint table", () => {
    const paths = documented();
    for (const endpoint of SPEC_ENDPOINTS) expect(paths, endpoint).toContain(endpoint);
  });

  it("describes every route the project serves", () => {
    const documentedPaths = new Set(Object.keys(document.paths));
    for (const route of servedRoutes()) expect(documentedPaths, route).toContain(route);
  });

  it("has unique operation ids and a summary for each", () => {
    const ids = OPERATIONS.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of OPERATIONS) expect(operation.summary.length).toBeGreaterThan(5);
  });

  it("answers errors with the status the catalog gives their code", () => {
    for (const operation of OPERATIONS) {
      for (const [status, codes] of errorCodesByStatus(operation)) {
        for (const code of codes)
          expect(String(errorCatalog[code].status), `${operation.operationId} ${code}`).toBe(status);
        const response = document.paths[operation.path]?.[operation.method]?.responses as Record<string, unknown>;
        expect(response[status], `${operation.operationId} ${status}`).toBeDefined();
      }
    }
  });

  it("gives guarded operations their 401, 403, 429 and 503, and open ones none", () => {
    const search = document.paths["/api/registry/search"]?.get?.responses as Record<string, unknown>;
    for (const status of ["400", "401", "403", "429", "500", "503"]) expect(search[status], status).toBeDefined();
    const jwks = document.paths["/.well-known/ab-public-keys.json"]?.get?.responses as Record<string, unknown>;
    for (const status of ["401", "429", "503"]) expect(jwks[status], status).toBeUndefined();
  });

  it("restricts each error answer to the codes it can carry", () => {
    const validator = new OpenApiValidator(document as unknown as Record<string, never>);
    const envelope = (code: string) => ({
      success: false,
      data: null,
      error: { code, message: "m" },
      _actions: [],
      _links: { self: `${BASE}/api/registry/resolve/ab_zzzzzzzz` },
      _state: null,
      _meta: { protocol: "abeille/hateoas", version: "1.0", timestamp: "2026-01-01T00:00:00.000Z" },
    });
    const url = "/api/registry/resolve/ab_zzzzzzzz";
    expect(validator.check("GET", url, 404, "application/json", envelope("MERCHANT_NOT_FOUND")).errors).toEqual([]);
    expect(validator.check("GET", url, 404, "application/json", envelope("NOT_FOUND")).errors.length).toBeGreaterThan(
      0,
    );
    expect(validator.check("GET", url, 418, "application/json", envelope("NOT_FOUND")).errors.length).toBeGreaterThan(
      0,
    );
    expect(validator.check("GET", url, 200, "application/json", { success: true }).errors.length).toBeGreaterThan(0);
  });

  it("describes the failures of people's pages as the French HTML pages they are, the API's as the envelope", () => {
    const contentOf = (pathKey: string, method: string, status: string) => {
      const responses = (document.paths[pathKey]?.[method]?.responses ?? {}) as Record<
        string,
        { content?: Record<string, unknown> }
      >;
      return Object.keys(responses[status]?.content ?? {});
    };
    for (const [pathKey, method] of [
      ["/m/{ab_id}", "get"],
      ["/m/{ab_id}", "post"],
      ["/suivi", "post"],
      ["/pro/{ab_id}", "post"],
      ["/pro/revendiquer", "post"],
    ] as const) {
      for (const status of ["429", "500", "503"])
        expect(contentOf(pathKey, method, status), `${method} ${pathKey} ${status}`).toEqual(["text/html"]);
    }
    expect(contentOf("/m/{ab_id}", "post", "400")).toEqual(["text/html"]);
    for (const status of ["400", "429", "503"])
      expect(contentOf("/api/contact/brick", "post", status)).toEqual(["application/json"]);
    const validator = new OpenApiValidator(document as unknown as Record<string, never>);
    expect(validator.check("POST", "/m/ab_zzzzzzzz", 429, "text/html", "<!doctype html>").errors).toEqual([]);
  });

  it("generates parameters from the zod schemas, with their bounds", () => {
    const parameters = document.paths["/api/registry/search"]?.get?.parameters as Record<string, unknown>[];
    const byName = new Map(parameters.map((parameter) => [parameter.name, parameter]));
    expect(byName.get("q")).toMatchObject({ in: "query", required: true, schema: { type: "string", maxLength: 200 } });
    expect(byName.get("limit")).toMatchObject({
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 50 },
    });
    expect(byName.get("tags")).toMatchObject({
      style: "form",
      explode: false,
      schema: { type: "array", maxItems: 10 },
    });
    expect(byName.get("open_at")).toMatchObject({ required: false, schema: { type: "string", format: "date-time" } });
    expect(byName.get("open_now")).toMatchObject({ required: false, schema: { type: "boolean" } });
    const resolve = document.paths["/api/registry/resolve/{ab_id}"]?.get?.parameters as Record<string, unknown>[];
    expect(resolve[0]).toMatchObject({ name: "ab_id", in: "path", required: true });
  });

  it("maps a concrete request to its operation", () => {
    expect(matchOperation("GET", "/api/registry/resolve/ab_12345678")?.operationId).toBe("resolveMerchant");
    expect(matchOperation("POST", "/api/mcp")?.operationId).toBe("mcp");
    expect(matchOperation("GET", "/nowhere")).toBeUndefined();
  });

  it("passes the Redocly linter with no error, offline", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-openapi-"));
    try {
      const file = path.join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(document, null, 2));
      const cli = path.join(root, "node_modules/@redocly/cli/bin/cli.js");
      const { stdout } = await promisify(execFile)(process.execPath, [cli, "lint", file, "--format=json"], {
        cwd: dir,
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: "off",
          REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
          REDOCLY_SUPPRESS_NOTIFICATIONS: "true",
          NO_COLOR: "1",
          CI: "true",
        },
      }).catch((failure: { stdout?: string; stderr?: string }) => {
        // A lint failure exits non-zero: its report is still on stdout.
        if (failure.stdout) return { stdout: failure.stdout };
        throw new Error(`redocly did not run: ${failure.stderr ?? String(failure)}`);
      });
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const errors = report.problems.filter((problem) => problem.severity === "error");
      expect(
        errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
      ).toEqual([]);
      // Known warnings only: open documents have no 4xx answer, the withdrawn route no 2xx.
      const unexpected = report.problems.filter(
        (problem) =>
          problem.severity !== "error" &&
          !["operation-4xx-response", "operation-2xx-response"].includes(problem.ruleId),
      );
      expect(unexpected.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
