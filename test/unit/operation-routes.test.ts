/**
 * One description per operation (src/openapi/operations.ts): the route file at its path serves
 * it with its access rule and schemas, every served route is described, and the MCP tools that
 * do the same thing take the same arguments with the same permission.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { permissionFor } from "../../src/http/guard.ts";
import type { OperationEndpoint } from "../../src/http/route.ts";
import { TOOLS } from "../../src/mcp/registry.ts";
import { rawJsonSchema } from "../../src/openapi/json-schema.ts";
import { OPERATIONS, type OperationSpec, operation } from "../../src/openapi/operations.ts";

const pages = path.resolve(import.meta.dirname, "../../src/pages");

/** `/api/registry/resolve/{ab_id}` is served by `src/pages/api/registry/resolve/[ab_id].ts`. */
function routeFileOf(spec: OperationSpec): string {
  const relative = spec.path.replace(/\{(\w+)\}/g, "[$1]");
  const direct = path.join(pages, `${relative}.ts`);
  return existsSync(direct) ? direct : path.join(pages, relative, "index.ts");
}

function pageFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return pageFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.startsWith("_") ? [full] : [];
  });
}

type Module = Record<string, Partial<OperationEndpoint> | undefined>;

describe("one description per operation", () => {
  it.each(OPERATIONS.map((spec) => [spec.operationId, spec] as const))(
    "%s is served by the route file at its path, from its own description",
    async (_id, spec) => {
      const module = (await import(routeFileOf(spec))) as Module;
      const endpoint = module[spec.method.toUpperCase()];
      expect(endpoint, `${spec.method.toUpperCase()} ${spec.path}`).toBeDefined();
      expect(endpoint?.operation).toBe(spec);
    },
  );

  it("describes every route a page file serves (wrong methods and unknown paths aside)", async () => {
    const undescribed: string[] = [];
    for (const file of pageFiles(pages)) {
      const module = (await import(file)) as Module;
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        const endpoint = module[method];
        if (!endpoint) continue;
        const described = OPERATIONS.includes(endpoint.operation as OperationSpec);
        if (!described && !file.includes("[...path]")) undescribed.push(`${method} ${path.relative(pages, file)}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it("leaves request parsing to the description: no route file parses with a schema of its own", () => {
    const offenders = pageFiles(pages).filter((file) => /\bparse(Input|Query)\(/.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => path.relative(pages, file))).toEqual([]);
  });

  it("gives each MCP tool that mirrors an operation the operation's permission and argument schemas", () => {
    const twins = TOOLS.filter((tool) => tool.twin !== undefined);
    expect(twins.map((tool) => `${tool.name}=${tool.twin}`).sort()).toEqual([
      "check_lead_status=getLeadStatus",
      "contact_service=contactPlatform",
      "resolve_merchant=resolveMerchant",
      "search_merchants=searchRegistry",
      "send_lead_message=sendLeadMessage",
      "submit_lead=createLead",
    ]);
    for (const tool of twins) {
      const spec: OperationSpec = operation(tool.twin as NonNullable<typeof tool.twin>);
      // A tool needs what its operation needs beyond the MCP endpoint's own permission.
      const beyondEndpoint =
        permissionFor(spec.access) === permissionFor("tool") ? undefined : permissionFor(spec.access);
      expect(tool.permission, tool.name).toBe(beyondEndpoint);
      const toolFields = fieldsOf(tool.input);
      const restFields = {
        ...(spec.pathParams ? fieldsOf(spec.pathParams) : {}),
        ...(spec.query ? fieldsOf(spec.query) : {}),
        ...(spec.body ? fieldsOf(spec.body) : {}),
      };
      const shared = Object.keys(toolFields).filter((name) => name in restFields);
      expect(shared.length, `${tool.name} shares no argument with ${spec.operationId}`).toBeGreaterThan(0);
      for (const name of shared) {
        // A query string is text (numbers and lists are parsed from it): its arguments agree by
        // name; path parameters and JSON bodies must take the very same rules.
        if (spec.query && name in fieldsOf(spec.query)) continue;
        expect(withoutDescription(toolFields[name]), `${tool.name}.${name}`).toEqual(
          withoutDescription(restFields[name]),
        );
      }
    }
  });
});

function fieldsOf(schema: Parameters<typeof rawJsonSchema>[0]): Record<string, unknown> {
  type Json = { properties?: Record<string, unknown>; $ref?: string; $defs?: Record<string, Json> };
  const json = rawJsonSchema(schema, "input") as Json;
  // A named schema (registered for the OpenAPI components) comes as a reference to its definition.
  const named = json.$ref?.startsWith("#/$defs/") ? json.$defs?.[json.$ref.slice("#/$defs/".length)] : undefined;
  return (named ?? json).properties ?? {};
}

/** Descriptions are written for their reader (a model, a developer); the rules must be the same. */
function withoutDescription(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescription);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== "description" && key !== "examples")
      .map(([key, value]) => [key, withoutDescription(value)]),
  );
}
