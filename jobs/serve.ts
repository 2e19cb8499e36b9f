/**
 * Our HTTP server for the route files of src/pages (Astro's file conventions, src/http/router.ts)
 * and the build's few static files (jobs/static-files.ts); Astro builds the assets and runs
 * `astro dev`, but serves nothing here. We own listening, shutdown and the published-artifact
 * fast path: requests for a merchant's published documents are answered from DATA_DIR/publish
 * when the files are fresh (src/publish/fast-path.ts), before any route runs.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { getApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { createKillSwitch } from "../src/domain/access/kill-switch.ts";
import { ServiceError, validationError } from "../src/errors/service-error.ts";
import { writeAnswer } from "../src/http/conventions.ts";
import { isApiPath, malformedTarget, pageMethodNotAllowed, unknownApiPath } from "../src/http/edge.ts";
import { createForwardedSchemeCheck } from "../src/http/forwarded-scheme.ts";
import { requestIdOf } from "../src/http/request-id.ts";
import { renderError } from "../src/http/respond.ts";
import { type Endpoint, requestContext } from "../src/http/route.ts";
import { nodeRouteRequest } from "../src/http/route-request.ts";
import { loadRouter } from "../src/http/router.ts";
import { logger } from "../src/logging.ts";
import { createPublishedFastPath, type PublishedFastPath } from "../src/publish/fast-path.ts";
import { pageNotFound } from "../src/publish/http.ts";
import { publishKeyOf } from "../src/publish/serve-index.ts";
import { loadPublishSettings } from "../src/publish/settings.ts";
import { openDatabase } from "../src/store/db.ts";
import { createPublishSource } from "../src/store/publish-source.ts";
import { createSettingsRepository } from "../src/store/settings-repository.ts";
import { loadStaticFiles } from "./static-files.ts";

type NodeHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;
export const serverEntry = fileURLToPath(new URL("../dist/server/entry.mjs", import.meta.url));
const clientDir = fileURLToPath(new URL("../dist/client", import.meta.url));
const pagesDir = fileURLToPath(new URL("../src/pages", import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  /** Null when the fast path is off (PUBLISH_FAST_PATH=false). */
  fastPath: PublishedFastPath | null;
  close(): Promise<void>;
}

/** How often the fast path's kill switch is read again (its cache holds a read for 1 s). */
const KILL_SWITCH_REFRESH_MS = 400;

/**
 * The fast path has its own connection to check each merchant's source stamp and the operators'
 * kill switch (while agent access is suspended, every document route answers the guard's 503).
 */
function publishedFastPath(): { fastPath: PublishedFastPath; stop: () => void } | null {
  const config = loadConfig();
  const settings = loadPublishSettings(config);
  if (!settings.fastPath) return null;
  // On SQLite a small connection of its own; on PostgreSQL the app's pool and revision watch.
  const db = config.postgres
    ? null
    : openDatabase(config.databaseFile, { small: true, checkpoints: config.walCheckpoints });
  const killSwitch = createKillSwitch({
    environmentSuspended: config.agentAccessSuspended,
    settings: db ? createSettingsRepository(db) : getApp().settings,
  });
  // The fast path cannot wait for the settings' read: one is kept fresh (well within the switch's
  // one-second cache), so it answers from a read as recent as the route's guard would use; when
  // none is fresh (a read failed or is slow), the route's guard answers instead.
  const keepFresh = () =>
    void killSwitch
      .refresh()
      .catch((error: unknown) =>
        logger.warn("kill switch read failed", { error: error instanceof Error ? error.message : String(error) }),
      );
  keepFresh();
  const refresh = setInterval(keepFresh, KILL_SWITCH_REFRESH_MS);
  refresh.unref();
  const fastPath = createPublishedFastPath({
    publishDir: settings.publishDir,
    store: db ? createPublishSource(db) : getApp().publishSource,
    publishKey: publishKeyOf(config),
    // Not known this second (no fresh read): the route's guard, which waits for the read, answers.
    isSuspended: () => killSwitch.knownSuspended() !== false,
    baseUrl: config.baseUrl,
  });
  return {
    fastPath,
    stop: () => {
      clearInterval(refresh);
      db?.$client.close();
    },
  };
}

export async function startServer(options: { port: number; host: string }): Promise<RunningServer> {
  if (!existsSync(serverEntry)) {
    throw new Error(`No server build at ${serverEntry}; run \`npm run build\` first`);
  }
  const staticFiles = loadStaticFiles(clientDir);
  const router = await loadRouter(pagesDir);
  const config = loadConfig();
  const origin = new URL(config.baseUrl).origin;
  const entry: { handler: NodeHandler } = {
    handler: (request, response) => {
      const method = request.method ?? "GET";
      if (method === "OPTIONS" && request.url === "*") {
        // The server's own capabilities (RFC 9110 9.3.7): what any of its resources may accept.
        response.writeHead(204, { allow: "GET, HEAD, POST, OPTIONS", "x-request-id": request.headers["x-request-id"] });
        response.end();
        return;
      }
      const url = requestUrl(request.url, origin);
      const run = (endpoint: Endpoint, params: Record<string, string | undefined> = {}) =>
        serveEndpoint(endpoint, params, origin, url ?? new URL("/", origin), request, response);
      if (!url || !isDecodable(request.url)) return run(malformedTarget);
      if (staticFiles(request, response)) return;
      const matched = router.match(method, url.pathname);
      if (matched) return run(matched.endpoint, matched.params);
      if (isApiPath(url.pathname)) return run(unknownApiPath);
      if (method !== "GET" && method !== "HEAD") return run(pageMethodNotAllowed);
      // Any other page: the French 404, from the renderer src/pages/404.astro uses under
      // `astro dev`. It was the last answer Astro's handler gave here: its bundle is no longer
      // loaded by the server (about 20 MB and 150 ms at start).
      return run(pageNotFound);
    },
  };
  const published = publishedFastPath();
  const handler: NodeHandler = published
    ? (request, response) => {
        // A fault in the fast path never takes a request down: the route renders the answer instead.
        const fallBack = (error: unknown) => {
          logger.warn("published fast path failed", { error: error instanceof Error ? error.message : String(error) });
          if (!response.headersSent) entry.handler(request, response);
        };
        let handled: boolean | Promise<boolean>;
        try {
          handled = published.fastPath.handle(request, response);
        } catch (error) {
          fallBack(error);
          return;
        }
        if (handled === false) entry.handler(request, response);
        else if (handled !== true) {
          handled.then((done) => {
            if (!done) entry.handler(request, response);
          }, fallBack);
        }
      }
    : entry.handler;
  // The first X-Forwarded-For entry is whatever the caller wrote: read as the client address, it
  // would give anyone a fresh anonymous rate-limit budget. Drop the header unless proxies are trusted
  // (TRUST_PROXY hops; the guard then reads the right-most trusted entry itself).
  const checkForwardedScheme = createForwardedSchemeCheck(config, (message, fields) => logger.warn(message, fields));
  const server = http.createServer((request, response) => {
    checkForwardedScheme(request.headers);
    if (config.trustProxyHops === 0) delete request.headers["x-forwarded-for"];
    // Every answer carries the request's id, whoever writes it (static files, the published fast
    // path, routes): it is fixed here, on the request, once; writeAnswer puts it on the answer.
    request.headers["x-request-id"] = requestIdOf(request.headers["x-request-id"]);
    handler(request, response);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => answerUnparsable(error, socket, config.baseUrl));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    fastPath: published?.fastPath ?? null,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          published?.stop();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/**
 * Runs an endpoint straight from the node request: the same code Astro would run, without its
 * per-request pipeline.
 */
function serveEndpoint(
  endpoint: Endpoint,
  params: Record<string, string | undefined>,
  origin: string,
  url: URL,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): void {
  endpoint
    .handle({
      request: nodeRouteRequest(request, `${origin}${url.pathname}${url.search}`),
      url,
      params,
      requestId: request.headers["x-request-id"] as string,
      clientAddress: request.socket.remoteAddress ?? "unknown",
    })
    .then(
      (answer) => writeAnswer(request, response, answer),
      (error: unknown) => {
        // Routes render their own faults; this is a fault in rendering one.
        logger.error("endpoint fault", { error: error instanceof Error ? error.message : String(error) });
        if (!response.headersSent) {
          response.writeHead(500, {
            "content-type": "application/json; charset=utf-8",
            "x-request-id": request.headers["x-request-id"],
          });
          response.end(
            JSON.stringify({
              success: false,
              data: null,
              error: { code: "INTERNAL_ERROR", message: "Unexpected fault" },
            }),
          );
        } else response.destroy();
      },
    );
}

/**
 * A request Node's HTTP parser refuses (a method it does not know, such as TRACK; broken framing)
 * never reaches a route: it still gets the envelope, then the connection closes.
 */
function answerUnparsable(error: NodeJS.ErrnoException, socket: Duplex, baseUrl: string): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const unknownMethod = error.code === "HPE_INVALID_METHOD";
  const context = requestContext(getApp(), new URL(baseUrl), undefined);
  const failure = unknownMethod
    ? new ServiceError("METHOD_NOT_ALLOWED", "This server answers GET, HEAD, POST and OPTIONS", {
        allow: ["GET", "HEAD", "POST", "OPTIONS"],
      })
    : validationError([{ path: "", message: "the request is not valid HTTP/1.1" }], "Malformed HTTP request");
  const answer = renderError(context, failure);
  const body = Buffer.from(String(answer.body));
  const status = unknownMethod ? "405 Method Not Allowed" : "400 Bad Request";
  const headers = Object.entries({ ...answer.headers, "content-length": String(body.length), connection: "close" })
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${headers}\r\n\r\n`), body]));
}

/**
 * The request's URL on our origin. An origin-form target is a path even when it starts with `//`
 * (`///?` is the path `///`, not a URL with an empty host); an absolute-form one keeps its path and
 * query. Null when it is neither.
 */
function requestUrl(target: string | undefined, origin: string): URL | null {
  const raw = target ?? "/";
  try {
    return raw.startsWith("/") ? new URL(`${origin}${raw}`) : new URL(raw, origin);
  } catch {
    return null;
  }
}

function isDecodable(url: string | undefined): boolean {
  try {
    decodeURI(url ?? "/");
    return true;
  } catch {
    return false;
  }
}
