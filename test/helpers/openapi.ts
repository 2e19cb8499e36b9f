/**
 * Validates real HTTP answers against the served OpenAPI document with ajv (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1), and records which operation/status pairs the suite exercised.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonObject } from "./test-server.ts";

// ajv-formats is CommonJS: its default export arrives as the module namespace under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const DOC_ID = "https://abeille.test/openapi.json";

export interface ResponseCheck {
  operation: string;
  status: string;
  errors: string[];
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof child === "string" && child.startsWith("#/") ? `${DOC_ID}${child}` : rewriteRefs(child);
  }
  return out;
}

export function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

export class OpenApiValidator {
  private readonly ajv = newAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp }[];
  /** `METHOD path status` of every answer checked. */
  readonly seen = new Set<string>();

  readonly document: JsonObject;

  constructor(document: JsonObject) {
    this.document = document;
    this.ajv.addSchema({ $id: DOC_ID, components: rewriteRefs(document.components) });
    this.templates = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
  }

  /** The documented path of a request path; a literal path wins over a template, as the router routes (/pro/code before /pro/{ab_id}). */
  operationPath(pathname: string): string | undefined {
    if (this.document.paths[pathname] !== undefined) return pathname;
    return this.templates.find((template) => template.pattern.test(pathname))?.path;
  }

  /** Checks one answer: the status is documented for the operation, and the body matches its schema. */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): ResponseCheck {
    const pathname = new URL(url, "http://x").pathname;
    const path = this.operationPath(pathname);
    const operation = `${method.toUpperCase()} ${path ?? pathname}`;
    const result: ResponseCheck = { operation, status: String(status), errors: [] };
    if (!path) {
      result.errors.push(`no documented path matches ${pathname}`);
      return result;
    }
    const entry = this.document.paths[path]?.[method.toLowerCase()];
    if (!entry) {
      result.errors.push(`${operation} is not documented`);
      return result;
    }
    this.seen.add(`${operation} ${status}`);
    const response = entry.responses?.[String(status)];
    if (!response) {
      result.errors.push(`${operation} does not document status ${status}`);
      return result;
    }
    const content = response.content as Record<string, { schema: unknown }> | undefined;
    if (!content) {
      if (body !== null && body !== undefined && body !== "")
        result.errors.push(`${operation} ${status} documents no body`);
      return result;
    }
    const essence = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const media = content[essence];
    if (!media) {
      result.errors.push(
        `${operation} ${status}: content type ${essence} not documented (${Object.keys(content).join(", ")})`,
      );
      return result;
    }
    const key = `${operation} ${status} ${essence}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(media.schema) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      result.errors.push(
        ...(validate.errors ?? [])
          .slice(0, 8)
          .map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`),
      );
    }
    return result;
  }

  /** Every `METHOD path status` the document declares. */
  declared(): string[] {
    const all: string[] = [];
    for (const [path, methods] of Object.entries(this.document.paths as Record<string, JsonObject>)) {
      for (const [method, entry] of Object.entries(methods)) {
        for (const status of Object.keys(entry.responses ?? {})) all.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    return all;
  }
}

/** Fetches, parses by content type and checks an answer in one step. */
export async function fetchAndCheck(
  validator: OpenApiValidator,
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: JsonObject | string | null; check: ResponseCheck }> {
  const response = await fetch(`${baseUrl}${pathAndQuery}`, { ...init, method });
  const contentType = response.headers.get("content-type");
  const text = await response.text();
  let body: JsonObject | string | null = text === "" ? null : text;
  if (text !== "" && /json/.test(contentType ?? "")) body = JSON.parse(text) as JsonObject;
  const check = validator.check(method, pathAndQuery, response.status, contentType, body);
  return { status: response.status, headers: response.headers, body, check };
}
