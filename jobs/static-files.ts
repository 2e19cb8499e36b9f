/**
 * The few static files of the build (dist/client: the microsite's CSS), held in memory. Astro's
 * standalone handler asks the disk (`send`, an async stat) on every request before rendering a
 * route; that round trip through the thread pool left the event loop idle under load, so routes
 * go straight to Astro and only these known paths are served here.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import type http from "node:http";
import path from "node:path";
import { writeAnswer } from "../src/http/conventions.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
  ".webp": "image/webp",
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

export type StaticHandler = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;

export function loadStaticFiles(clientDir: string): StaticHandler {
  const files = new Map<string, StaticFile>();
  const visit = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) {
        visit(full);
        continue;
      }
      const body = readFileSync(full);
      const urlPath = `/${path.relative(clientDir, full).split(path.sep).join("/")}`;
      files.set(urlPath, {
        body,
        type: CONTENT_TYPES[path.extname(name)] ?? "application/octet-stream",
        etag: `"sha256-${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`,
      });
    }
  };
  try {
    visit(clientDir);
  } catch {
    // No client folder: the build has no static file.
  }
  return (request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") return false;
    const file = files.get((request.url ?? "/").split("?")[0] ?? "/");
    if (!file) return false;
    // 304 on If-None-Match, compression and CORS: the server's conventions (src/http/conventions.ts).
    writeAnswer(request, response, {
      status: 200,
      headers: { "content-type": file.type, etag: file.etag, "cache-control": "public, max-age=3600" },
      body: file.body,
    });
    return true;
  };
}
