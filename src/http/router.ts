import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { corsPreflight } from "./cors.ts";
import type { Endpoint } from "./route.ts";

/**
 * The endpoint files under src/pages, routed by our own server with Astro's conventions: the
 * file's path is the route (`[name]` a parameter, `[...name]` the rest of the path, `index` its
 * folder, files and folders starting with `_` are not routes), static segments win over
 * parameters and parameters over rests, and a method without its own export falls back to
 * `GET` for HEAD, then to `ALL`; OPTIONS without its own export is the CORS preflight of the
 * methods the file exports (every route answers one). `.astro` pages stay with Astro.
 */
type Segment = { kind: "static"; value: string } | { kind: "param"; name: string } | { kind: "rest"; name: string };

interface RouteEntry {
  file: string;
  segments: Segment[];
  module: Record<string, unknown>;
}

export interface RouteMatch {
  endpoint: Endpoint;
  params: Record<string, string | undefined>;
}

export interface Router {
  /** The endpoint for a method and a path (already known to be URI-decodable), or null. */
  match(method: string, pathname: string): RouteMatch | null;
  /** Route patterns in the order they are tried (for tests and operators). */
  readonly patterns: string[];
}

export async function loadRouter(pagesDir: string): Promise<Router> {
  const entries: RouteEntry[] = [];
  for (const file of endpointFiles(pagesDir)) {
    const module = (await import(pathToFileURL(path.join(pagesDir, file)).href)) as Record<string, unknown>;
    entries.push({ file, segments: segmentsOf(file), module });
  }
  entries.sort((a, b) => compareRoutes(a.segments, b.segments));

  return {
    patterns: entries.map((entry) => `/${entry.segments.map(patternOf).join("/")}`),
    match(method, pathname) {
      const parts = splitPath(pathname);
      if (!parts) return null;
      for (const entry of entries) {
        const params = matchSegments(entry.segments, parts);
        if (!params) continue;
        const endpoint = endpointFor(entry.module, method);
        return endpoint ? { endpoint, params } : null;
      }
      return null;
    },
  };
}

function endpointFiles(root: string, prefix = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(root, prefix), { withFileTypes: true })) {
    if (entry.name.startsWith("_")) continue;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...endpointFiles(root, relative));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(relative);
  }
  return files;
}

function segmentsOf(file: string): Segment[] {
  const names = file.replace(/\.ts$/, "").split("/");
  if (names.at(-1) === "index") names.pop();
  return names.map((name): Segment => {
    const rest = /^\[\.\.\.(\w+)\]$/.exec(name);
    if (rest?.[1]) return { kind: "rest", name: rest[1] };
    const param = /^\[(\w+)\]$/.exec(name);
    if (param?.[1]) return { kind: "param", name: param[1] };
    return { kind: "static", value: name };
  });
}

const RANK = { static: 0, param: 1, rest: 2 } as const;

function compareRoutes(a: Segment[], b: Segment[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const left = a[index];
    const right = b[index];
    if (!left || !right) return left ? -1 : 1;
    const byKind = RANK[left.kind] - RANK[right.kind];
    if (byKind !== 0) return byKind;
  }
  return 0;
}

function patternOf(segment: Segment): string {
  return segment.kind === "static"
    ? segment.value
    : segment.kind === "param"
      ? `[${segment.name}]`
      : `[...${segment.name}]`;
}

/** The path's decoded segments, a trailing slash ignored; null when a segment does not decode. */
function splitPath(pathname: string): string[] | null {
  const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  const raw = trimmed === "/" ? [] : trimmed.slice(1).split("/");
  try {
    return raw.map((part) => decodeURIComponent(part));
  } catch {
    return null;
  }
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string | undefined> | null {
  const params: Record<string, string | undefined> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as Segment;
    if (segment.kind === "rest") {
      const remainder = parts.slice(index);
      params[segment.name] = remainder.length > 0 ? remainder.join("/") : undefined;
      return params;
    }
    const part = parts[index];
    if (part === undefined || part === "") return null;
    if (segment.kind === "static") {
      if (part !== segment.value) return null;
    } else {
      params[segment.name] = part;
    }
  }
  return parts.length === segments.length ? params : null;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

function isEndpoint(candidate: unknown): candidate is Endpoint {
  return typeof candidate === "function" && "handle" in candidate;
}

/** The preflight of each route file that exports methods but no OPTIONS of its own. */
const preflights = new WeakMap<Record<string, unknown>, Endpoint | null>();

function preflightOf(module: Record<string, unknown>): Endpoint | null {
  let preflight = preflights.get(module);
  if (preflight === undefined) {
    const methods: string[] = METHODS.filter(
      (name) => isEndpoint(module[name]) || (name === "HEAD" && isEndpoint(module.GET)),
    );
    preflight = methods.length > 0 ? corsPreflight([...methods, "OPTIONS"]) : null;
    preflights.set(module, preflight);
  }
  return preflight;
}

function endpointFor(module: Record<string, unknown>, method: string): Endpoint | null {
  const candidate =
    module[method] ??
    (method === "HEAD" ? module.GET : undefined) ??
    (method === "OPTIONS" ? preflightOf(module) : undefined) ??
    module.ALL;
  return isEndpoint(candidate) ? candidate : null;
}
