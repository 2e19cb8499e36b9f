import type { APIContext, APIRoute } from "astro";
import type { z } from "zod";
import { type App, getApp } from "../app.ts";
import { ServiceError, validationError } from "../errors/service-error.ts";
import { addDiscoveryLinks, discoveryLinks } from "../openapi/link-header.ts";
import type { OperationSpec } from "../openapi/operations.ts";
import { parseInput, zodIssues } from "../schemas/parse.ts";
import type { RequestContext } from "./envelope.ts";
import { type Caller, guardRequest, type Operation } from "./guard.ts";
import { type Reply, toWebResponse, withDefaultHeaders } from "./reply.ts";
import { renderError } from "./respond.ts";
import { type RouteRequest, webRouteRequest } from "./route-request.ts";

export interface RouteContext {
  app: App;
  caller: Caller;
  request: RouteRequest;
  url: URL;
  params: Record<string, string | undefined>;
  context: RequestContext;
}

export type RouteHandler = (route: RouteContext) => Reply | Promise<Reply>;

/** One request as a server hands it to an endpoint. */
export interface RouteInput {
  request: RouteRequest;
  url: URL;
  params: Record<string, string | undefined>;
  /** Fixed at the server edge (jobs/serve.ts); a fresh one when absent. */
  requestId: string | undefined;
  clientAddress: string;
}

/**
 * An endpoint module's export: Astro calls it as an APIRoute (`astro dev`); our server calls
 * `handle` directly with the node request, without Astro's per-request pipeline
 * (docs/performance.md). Both run the same code.
 */
export type Endpoint = APIRoute & { handle(input: RouteInput): Promise<Reply> };

export function endpointOf(handle: (input: RouteInput) => Promise<Reply>): Endpoint {
  const astroRoute: APIRoute = async (astro: APIContext) =>
    toWebResponse(
      await handle({
        request: webRouteRequest(astro.request),
        url: new URL(astro.request.url),
        params: astro.params,
        requestId: requestIdOf(astro.locals),
        clientAddress: clientAddressOf(astro),
      }),
    );
  return Object.assign(astroRoute, { handle });
}

type RouteOptions = {
  renderFailure?: (context: RequestContext, failure: unknown) => Reply;
  /** How many calls the request counts for on the rate limits (a JSON-RPC batch: one per request in it); 1 when absent. */
  cost?: (request: RouteRequest) => number;
};
type ParsedBy<Schema> = Schema extends z.ZodType ? z.output<Schema> : never;

/** What a described operation's handler gets: the request, parsed by the operation's own schemas. */
export interface OperationContext<Spec extends OperationSpec> extends RouteContext {
  operation: Spec;
  /** The path parameters, parsed by the description's schema (VALIDATION_ERROR otherwise). */
  pathParams(): ParsedBy<Spec["pathParams"]>;
  /** The query parameters, parsed by the description's schema; a repeated parameter is refused. */
  query(): ParsedBy<Spec["query"]>;
  /** The body (size-capped; JSON, or an HTML form's fields when `bodyType` is "form"), parsed by the description's schema. */
  body(): Promise<ParsedBy<Spec["body"]>>;
}

export type OperationEndpoint<Spec extends OperationSpec = OperationSpec> = Endpoint & { operation: Spec };

/**
 * The route of a described operation (src/openapi/operations.ts): the access rule and the request
 * schemas come from the description, so a route cannot serve something other than what the
 * OpenAPI document and the MCP tools say (test/unit/operation-routes.test.ts).
 */
export function route<Spec extends OperationSpec>(
  operation: Spec,
  handler: (route: OperationContext<Spec>) => Reply | Promise<Reply>,
  options: RouteOptions = {},
): OperationEndpoint<Spec> {
  const described = (schema: z.ZodType | undefined, part: string): z.ZodType => {
    if (!schema) throw new Error(`operation ${operation.operationId} describes no ${part}`);
    return schema;
  };
  const endpoint = guardedRoute(
    operation.access,
    (context) =>
      handler({
        ...context,
        operation,
        pathParams: () => parseInput(described(operation.pathParams, "path parameters"), context.params),
        query: () => parseQuery(described(operation.query, "query"), context.url.searchParams),
        body: async () =>
          parseInput(
            described(operation.body, "body"),
            operation.bodyType === "form" ? await readFormBody(context.request) : await readJsonBody(context.request),
          ),
      } as OperationContext<Spec>),
    options,
  );
  return Object.assign(endpoint, { operation });
}

/**
 * Wraps an endpoint: builds the request context, runs the guard and the handler, renders any
 * failure in the envelope (or, for people's pages, as `renderFailure` says: a French page).
 * Every route goes through here so no fault escapes as a bare 500. Described operations use
 * `route`; this is for what no description names (unknown paths, wrong methods).
 */
export function guardedRoute(operation: Operation, handler: RouteHandler, options: RouteOptions = {}): Endpoint {
  const renderFailure = options.renderFailure ?? renderError;
  return endpointOf(async ({ request, url, params, requestId, clientAddress }) => {
    const app = getApp();
    const context = requestContext(app, url, requestId);
    let guardHeaders: Record<string, string> = {};
    const links = discoveryLinks(app.config.baseUrl, url.pathname, params);
    try {
      const guard = await guardRequest(app, request, operation, clientAddress, options.cost?.(request) ?? 1);
      guardHeaders = guard.headers;
      const answer = await handler({ caller: guard.caller, app, request, url, params, context });
      return addDiscoveryLinks(withDefaultHeaders(answer, guardHeaders), links);
    } catch (failure) {
      return addDiscoveryLinks(withDefaultHeaders(renderFailure(context, failure), guardHeaders), links);
    }
  });
}

function clientAddressOf(astro: APIContext): string {
  try {
    return astro.clientAddress;
  } catch {
    return "unknown";
  }
}

function requestIdOf(locals: unknown): string | undefined {
  return typeof locals === "object" && locals !== null && "requestId" in locals && typeof locals.requestId === "string"
    ? locals.requestId
    : undefined;
}

/** For the `ALL` export of an endpoint: any method it does not implement. */
export function methodNotAllowed(allowed: string[]): Endpoint {
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : [])];
  return guardedRoute("open", ({ request }) => {
    throw new ServiceError("METHOD_NOT_ALLOWED", `Method ${request.method} is not allowed; use ${allow.join(", ")}`, {
      allow,
    });
  });
}

/** The request's id comes from the server edge (jobs/serve.ts); a fresh one otherwise. */
export function requestContext(app: App, url: URL, requestId: string | undefined): RequestContext {
  return {
    baseUrl: app.config.baseUrl,
    requestId: requestId ?? crypto.randomUUID(),
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

// One home for turning zod's verdict into VALIDATION_ERROR (the domain parses declarations too).
export { parseInput, zodIssues };

const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON body with a size cap, refusing wrong content types and malformed JSON in the envelope. */
export async function readJsonBody(request: RouteRequest): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw validationError(
      [{ path: "", message: "Content-Type must be application/json" }],
      "Content-Type must be application/json",
    );
  }
  const text = await request.readBody(MAX_BODY_BYTES);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw validationError([{ path: "", message: "body is not valid JSON" }], "Malformed JSON body");
  }
}

/**
 * Reads an HTML form's body (application/x-www-form-urlencoded) with the same size cap, as field
 * name -> value; a field given twice is refused rather than guessed. Browsers send a textarea's
 * line breaks as CRLF (the HTML form encoding): they become LF here, as JSON bodies write them, so
 * what a person typed reads the same in the store, the API and the emails whichever door it came by.
 */
export async function readFormBody(request: RouteRequest): Promise<Record<string, string>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw validationError(
      [{ path: "", message: "Content-Type must be application/x-www-form-urlencoded" }],
      "Content-Type must be application/x-www-form-urlencoded",
    );
  }
  const fields = new Map<string, string>();
  const repeated: string[] = [];
  for (const [name, value] of new URLSearchParams(await request.readBody(MAX_BODY_BYTES))) {
    if (fields.has(name)) repeated.push(name);
    fields.set(name, value.replace(/\r\n?/g, "\n"));
  }
  if (repeated.length > 0) {
    throw validationError(repeated.map((name) => ({ path: name, message: "must be given once" })));
  }
  return Object.fromEntries(fields);
}
