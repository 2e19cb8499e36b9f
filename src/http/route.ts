import type { APIContext, APIRoute } from "astro";
import type { z } from "zod";
import { type App, getApp } from "../app.ts";
import { ServiceError, validationError } from "../errors/service-error.ts";
import { addDiscoveryLinks, discoveryLinks } from "../openapi/link-header.ts";
import type { RequestContext } from "./envelope.ts";
import { type Caller, guardRequest, type Operation } from "./guard.ts";
import { renderError } from "./respond.ts";

export interface RouteContext {
  app: App;
  caller: Caller;
  request: Request;
  url: URL;
  params: Record<string, string | undefined>;
  context: RequestContext;
}

export type RouteHandler = (route: RouteContext) => Response | Promise<Response>;

/**
 * Wraps an endpoint: builds the request context, runs the handler, renders any failure in the
 * envelope. Every route goes through here so no fault escapes as a bare 500.
 */
export function route(operation: Operation, handler: RouteHandler): APIRoute {
  return async (astro: APIContext) => {
    const app = getApp();
    const url = new URL(astro.request.url);
    const context = requestContext(app, url, astro.locals);
    let guardHeaders: Record<string, string> = {};
    const links = discoveryLinks(app.config.baseUrl, url.pathname, astro.params);
    try {
      const guard = await guardRequest(app, astro.request, operation, clientAddressOf(astro));
      guardHeaders = guard.headers;
      const response = await handler({
        caller: guard.caller,
        app,
        request: astro.request,
        url,
        params: astro.params,
        context,
      });
      return addDiscoveryLinks(withHeaders(response, guardHeaders), links);
    } catch (failure) {
      return addDiscoveryLinks(withHeaders(renderError(context, failure), guardHeaders), links);
    }
  };
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

function clientAddressOf(astro: APIContext): string {
  try {
    return astro.clientAddress;
  } catch {
    return "unknown";
  }
}

/** For the `ALL` export of an endpoint: any method it does not implement. */
export function methodNotAllowed(allowed: string[]): APIRoute {
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : [])];
  return route("open", ({ request }) => {
    throw new ServiceError("METHOD_NOT_ALLOWED", `Method ${request.method} is not allowed; use ${allow.join(", ")}`, {
      allow,
    });
  });
}

/** The request's id comes from the server (jobs/serve.ts, as locals); a fresh one otherwise (tests rendering routes directly). */
export function requestContext(app: App, url: URL, locals: unknown): RequestContext {
  const requestId =
    typeof locals === "object" && locals !== null && "requestId" in locals && typeof locals.requestId === "string"
      ? locals.requestId
      : crypto.randomUUID();
  return {
    baseUrl: app.config.baseUrl,
    requestId,
    selfUrl: `${app.config.baseUrl}${url.pathname}${redactSecrets(url)}`,
    now: app.now(),
  };
}

/** Query parameters that carry a secret (an API key, a tracking token): never echoed in `_links.self`. */
const SECRET_PARAMETERS = ["token"];

function redactSecrets(url: URL): string {
  if (!SECRET_PARAMETERS.some((name) => url.searchParams.has(name))) return url.search;
  const params = new URLSearchParams(url.search);
  for (const name of SECRET_PARAMETERS) if (params.has(name)) params.set(name, "REDACTED");
  return `?${params.toString()}`;
}

/** Parses query parameters with a zod schema; a repeated parameter is refused rather than guessed. */
export function parseQuery<Schema extends z.ZodType>(schema: Schema, params: URLSearchParams): z.output<Schema> {
  const values: Record<string, string> = {};
  const repeated: string[] = [];
  for (const [key, value] of params) {
    if (key in values) repeated.push(key);
    values[key] = value;
  }
  if (repeated.length > 0) {
    throw validationError(repeated.map((key) => ({ path: key, message: "must be given once" })));
  }
  return parseInput(schema, values);
}

export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(zodIssues(parsed.error));
  return parsed.data;
}

export function zodIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}

const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON body with a size cap, refusing wrong content types and malformed JSON in the envelope. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw validationError(
      [{ path: "", message: "Content-Type must be application/json" }],
      "Content-Type must be application/json",
    );
  }
  const length = request.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > MAX_BODY_BYTES) throw new ServiceError("PAYLOAD_TOO_LARGE");
  // HTTP framing holds a body to its declared length, so a declared body within the cap is read
  // whole at once; a chunked one is counted as it arrives.
  const text = length !== null && Number.isInteger(declared) ? await readDeclared(request) : await readCapped(request);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw validationError([{ path: "", message: "body is not valid JSON" }], "Malformed JSON body");
  }
}

async function readDeclared(request: Request): Promise<string> {
  return request.text().catch(() => {
    // The client went away mid-body: nobody reads the answer, and it is no server fault.
    throw validationError(
      [{ path: "", message: "the request body was not received whole" }],
      "Incomplete request body",
    );
  });
}

async function readCapped(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client went away mid-body: nobody reads the answer, and it is no server fault.
      throw validationError(
        [{ path: "", message: "the request body was not received whole" }],
        "Incomplete request body",
      );
    });
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ServiceError("PAYLOAD_TOO_LARGE");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
