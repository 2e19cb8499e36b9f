import { describe, expect, it } from "vitest";
import { toolDescriptors } from "../../src/mcp/registry.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
import type { JsonSchema, JsonValue } from "../../src/openapi/json-schema.ts";

/*
 * Every limit the server enforces is readable before calling it: each input an agent can send
 * (OpenAPI parameters and request bodies, MCP tool arguments) is bounded in its schema (strings by
 * length, pattern, format or enum; numbers by minimum and maximum; arrays by maxItems) and
 * described. The schemas are generated from the zod schemas the routes validate with.
 */

const doc = openApiDocument("http://abeille.test");
const components = doc.components.schemas;

function isObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deref(schema: JsonSchema, defs: Record<string, JsonSchema> = components): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const target = defs[ref.split("/").at(-1) ?? ""];
  return target
    ? { ...deref(target, defs), ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")) }
    : schema;
}

/** An anchored pattern without an unbounded repetition (escaped characters aside). */
function boundedPattern(pattern: string): boolean {
  const plain = pattern.replace(/\\./g, "x");
  return plain.startsWith("^") && plain.endsWith("$") && !/[*+]|\{\d+,\}/.test(plain);
}

/**
 * Path parameters no route refuses: any value gets the 404 page (/m/{ab_id}) or 410 (the retired
 * attestation), so no limit is enforced there to show.
 */
const ANSWERED_WHATEVER = ["GET /m/{ab_id} ab_id", "GET /api/trust/attestation/{ab_id} ab_id"];

/** What is unbounded in an input schema, by path. */
function unbounded(schema: JsonSchema, at: string, found: string[]): void {
  const resolved = deref(schema);
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = resolved[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isObject(branch)) unbounded(branch, at, found);
  }
  if ("enum" in resolved || "const" in resolved) return;
  const type = resolved.type;
  if (type === "string") {
    const bounded =
      typeof resolved.maxLength === "number" ||
      ["uuid", "date-time", "date"].includes(String(resolved.format)) ||
      (typeof resolved.pattern === "string" && boundedPattern(resolved.pattern));
    if (!bounded) found.push(`${at}: string without maxLength`);
  } else if (type === "integer" || type === "number") {
    if (typeof resolved.minimum !== "number" && typeof resolved.exclusiveMinimum !== "number")
      found.push(`${at}: no minimum`);
    if (typeof resolved.maximum !== "number") found.push(`${at}: no maximum`);
  } else if (type === "array") {
    if (typeof resolved.maxItems !== "number") found.push(`${at}: array without maxItems`);
    if (isObject(resolved.items)) unbounded(resolved.items, `${at}[]`, found);
  } else if (type === "object" && isObject(resolved.properties)) {
    for (const [name, property] of Object.entries(resolved.properties)) {
      if (isObject(property)) unbounded(property, `${at}.${name}`, found);
    }
  }
}

/** Members of an input object schema without a description, by path. */
function undescribed(schema: JsonSchema, at: string, found: string[], defs?: Record<string, JsonSchema>): void {
  const resolved = deref(schema, defs);
  if (!isObject(resolved.properties)) return;
  for (const [name, property] of Object.entries(resolved.properties)) {
    if (!isObject(property)) continue;
    const member = deref(property, defs);
    if (typeof property.description !== "string" && typeof member.description !== "string") found.push(`${at}.${name}`);
  }
}

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation })),
);

describe("the OpenAPI document", () => {
  it("describes every parameter and every request body member", () => {
    const missing: string[] = [];
    let parameters = 0;
    for (const { label, operation } of operations) {
      for (const parameter of (operation.parameters ?? []) as JsonSchema[]) {
        parameters += 1;
        if (typeof parameter.description !== "string") missing.push(`${label} ${String(parameter.name)}`);
      }
      const body = (operation.requestBody as JsonSchema | undefined)?.content as JsonSchema | undefined;
      const schema = (
        (body?.["application/json"] ?? body?.["application/x-www-form-urlencoded"]) as JsonSchema | undefined
      )?.schema;
      if (isObject(schema)) undescribed(schema, label, missing);
    }
    expect(missing).toEqual([]);
    // 37 before the merchant space; its door (6), the sign-in link's jeton (1), the listing pages (5), the leads' pages (7),
    // the sign-in's assurance level (niveau, 1), the search's place and opening (near, open_now, open_at, at: 4),
    // the front door's « Ouvert maintenant » box (ouvert, 1).
    expect(parameters).toBe(62);
  });

  it("bounds every string, number and array an agent sends", () => {
    const found: string[] = [];
    for (const { label, operation } of operations) {
      for (const parameter of (operation.parameters ?? []) as JsonSchema[]) {
        const at = `${label} ${String(parameter.name)}`;
        if (isObject(parameter.schema) && !ANSWERED_WHATEVER.includes(at)) unbounded(parameter.schema, at, found);
      }
      const body = (operation.requestBody as JsonSchema | undefined)?.content as JsonSchema | undefined;
      const schema = (
        (body?.["application/json"] ?? body?.["application/x-www-form-urlencoded"]) as JsonSchema | undefined
      )?.schema;
      // The JSON-RPC bodies of /api/mcp and /api/a2a are bounded per tool or skill: their
      // arguments are the tools' schemas (checked below), the envelope only routes them.
      const jsonRpc = label.endsWith("/api/mcp") || label.endsWith("/api/a2a");
      if (isObject(schema) && !jsonRpc) unbounded(schema, label, found);
    }
    expect(found).toEqual([]);
  });

  it("shows the lead's contact_name limit the server enforces, with its description", () => {
    const lead = deref(components.LeadRequest as JsonSchema);
    const name = (lead.properties as JsonSchema).contact_name as JsonSchema;
    expect(name).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });
    expect(name.description).toBe("The name of the person to contact (the person, not the agent)");
    const email = (lead.properties as JsonSchema).contact_email as JsonSchema;
    expect(email).toMatchObject({ type: "string", format: "email", maxLength: 254 });
  });
});

describe("the MCP tool input schemas", () => {
  it("bound every argument", () => {
    const found: string[] = [];
    for (const tool of toolDescriptors()) unbounded(tool.inputSchema, tool.name, found);
    expect(found).toEqual([]);
  });

  it("describe every argument", () => {
    const missing: string[] = [];
    for (const tool of toolDescriptors()) undescribed(tool.inputSchema, tool.name, missing, {});
    expect(missing).toEqual([]);
  });

  it("carry the same limits and descriptions as the REST body for submit_lead", () => {
    const tool = toolDescriptors().find((candidate) => candidate.name === "submit_lead");
    const properties = tool?.inputSchema.properties as JsonSchema | undefined;
    expect(properties?.contact_name).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 100,
      description: "The name of the person to contact (the person, not the agent)",
    });
  });
});
