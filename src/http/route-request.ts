import type { IncomingMessage } from "node:http";
import { ServiceError, validationError } from "../errors/service-error.ts";

/** The request headers a route reads, whichever server delivered the request. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * A request as routes see it: from our own server (a node:http request, read without building a
 * web Request) or from Astro's pipeline (a web Request, under `astro dev`).
 */
export interface RouteRequest {
  readonly method: string;
  /** Absolute URL as the client sent it (host from the request). */
  readonly url: string;
  readonly headers: HeaderSource;
  /**
   * The body as text, at most `maxBytes`: a larger one is 413 PAYLOAD_TOO_LARGE (refused from its
   * declared length before reading, else as soon as it passes the cap); a body cut off by a
   * departing client is a validation error, not a server fault.
   */
  readBody(maxBytes: number): Promise<string>;
  /** The same request as a web Request, body unread (the MCP SDK's transport takes one). */
  toWebRequest(): Request;
}

const incomplete = () =>
  validationError([{ path: "", message: "the request body was not received whole" }], "Incomplete request body");

function declaredTooLarge(headers: HeaderSource, maxBytes: number): void {
  if (Number(headers.get("content-length") ?? "0") > maxBytes) throw new ServiceError("PAYLOAD_TOO_LARGE");
}

export function webRouteRequest(request: Request): RouteRequest {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    async readBody(maxBytes) {
      declaredTooLarge(request.headers, maxBytes);
      if (!request.body) return "";
      const reader = request.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read().catch(() => {
          throw incomplete();
        });
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new ServiceError("PAYLOAD_TOO_LARGE");
        }
        chunks.push(value);
      }
      return Buffer.concat(chunks).toString("utf8");
    },
    toWebRequest: () => request,
  };
}

/** `url`: the request's absolute URL, on our origin (whatever host or absolute form the client sent). */
export function nodeRouteRequest(request: IncomingMessage, url: string): RouteRequest {
  const raw = request.headers;
  const headers: HeaderSource = {
    get(name) {
      const value = raw[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
  return {
    method: request.method ?? "GET",
    url,
    headers,
    readBody(maxBytes) {
      declaredTooLarge(headers, maxBytes);
      return new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const onData = (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > maxBytes) {
            cleanup();
            request.resume();
            reject(new ServiceError("PAYLOAD_TOO_LARGE"));
            return;
          }
          chunks.push(chunk);
        };
        const onEnd = () => {
          cleanup();
          resolve(
            chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8"),
          );
        };
        const onAbort = () => {
          cleanup();
          reject(incomplete());
        };
        const cleanup = () => {
          request.off("data", onData);
          request.off("end", onEnd);
          request.off("aborted", onAbort);
          request.off("error", onAbort);
        };
        if (request.complete && request.readableEnded) return resolve("");
        request.on("data", onData);
        request.once("end", onEnd);
        request.once("aborted", onAbort);
        request.once("error", onAbort);
      });
    },
    toWebRequest() {
      const webHeaders = new Headers();
      for (const [name, value] of Object.entries(raw)) {
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const item of value) webHeaders.append(name, item);
        else webHeaders.set(name, value);
      }
      const method = request.method ?? "GET";
      const hasBody = method !== "GET" && method !== "HEAD";
      return new Request(url, {
        method,
        headers: webHeaders,
        ...(hasBody ? { body: bodyStream(request), duplex: "half" } : {}),
      });
    },
  };
}

/**
 * The node request's body as a web stream, for a library that reads web Requests (the MCP SDK).
 * Not `Readable.toWeb`: when its reader cancels (a body over the cap), data already on its way
 * still reached the closed stream and threw "Controller is already closed" as an uncaught
 * exception, which ends the server process. Here a chunk after cancel is dropped, and the rest
 * of the body is read and discarded so the connection can answer.
 */
function bodyStream(request: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        request.on("data", (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          // Backpressure: a reader that does not read does not make the body pile up in memory.
          if ((controller.desiredSize ?? 0) <= 0) request.pause();
        });
        request.once("end", () => {
          if (done) return;
          done = true;
          controller.close();
        });
        const fail = () => {
          if (done) return;
          done = true;
          controller.error(new Error("the request body was not received whole"));
        };
        request.once("aborted", fail);
        request.once("error", fail);
      },
      pull() {
        if (!done) request.resume();
      },
      cancel() {
        done = true;
        request.resume();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}
