import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { fixedAnswerWriter, writeAnswer } from "../../src/http/conventions.ts";
import type { Reply } from "../../src/http/reply.ts";

/*
 * How answers reach the socket (src/http/conventions.ts): the request's id on every answer, and a
 * fixed answer (a published file) written exactly as writeAnswer writes it, its finished form kept.
 */

interface Written {
  status: number;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function exchange(
  write: (request: IncomingMessage, response: ServerResponse) => void,
  method: string,
  headers: Record<string, string>,
): Written {
  const request = { method, url: "/doc", headers } as unknown as IncomingMessage;
  let written: Written | null = null;
  const response = {
    writeHead(status: number, sent: Record<string, string>) {
      written = { status, headers: sent, body: undefined };
    },
    end(body?: Buffer) {
      if (written) written.body = body;
    },
  } as unknown as ServerResponse;
  write(request, response);
  if (!written) throw new Error("nothing was written");
  return written;
}

const text = JSON.stringify({
  name: "Boulangerie du Centre",
  products: Array.from({ length: 200 }, (_, i) => `pain ${i}`),
});
const body = Buffer.from(text);
const etag = '"sha256-fixed"';
const document = (): Reply => ({
  status: 200,
  headers: { "content-type": "application/json; charset=utf-8", etag, "cache-control": "public, max-age=300" },
  body,
});

describe("answers written to the socket", () => {
  it("carry the request's id, fixed at the server edge, unless the answer names its own", () => {
    const written = exchange((q, r) => writeAnswer(q, r, document()), "GET", { "x-request-id": "req-1" });
    expect(written.headers["x-request-id"]).toBe("req-1");
    const own = exchange(
      (q, r) => writeAnswer(q, r, { ...document(), headers: { ...document().headers, "x-request-id": "own" } }),
      "GET",
      { "x-request-id": "req-2" },
    );
    expect(own.headers["x-request-id"]).toBe("own");
  });

  it("write a fixed answer as writeAnswer does, for every coding, validator and method", () => {
    const fixed = fixedAnswerWriter(document());
    const variants: [string, Record<string, string>][] = [
      ["GET", {}],
      ["GET", { "accept-encoding": "br, gzip" }],
      ["GET", { "accept-encoding": "gzip" }],
      ["HEAD", { "accept-encoding": "gzip" }],
      ["GET", { "if-none-match": etag }],
      ["GET", { "if-none-match": `W/${etag}`, "accept-encoding": "br" }],
      ["GET", { "if-none-match": '"sha256-older"' }],
    ];
    for (const [method, headers] of variants) {
      const requestHeaders = { ...headers, "x-request-id": `id-${method}` };
      const expected = exchange((q, r) => writeAnswer(q, r, document()), method, requestHeaders);
      for (let round = 0; round < 2; round++) {
        expect(exchange(fixed, method, requestHeaders), `${method} ${JSON.stringify(headers)}`).toEqual(expected);
      }
    }
    const brotli = exchange(fixed, "GET", { "accept-encoding": "br" });
    expect(brotli.headers).toMatchObject({ "content-encoding": "br", etag: `W/${etag}`, vary: "Accept-Encoding" });
    expect(zlib.brotliDecompressSync(brotli.body ?? Buffer.alloc(0)).equals(body)).toBe(true);
    expect(exchange(fixed, "GET", { "if-none-match": etag }).status).toBe(304);
  });

  it("keep a fixed answer's finished form: the same headers again for the same request", () => {
    const fixed = fixedAnswerWriter(document());
    const first = exchange(fixed, "GET", { "accept-encoding": "gzip" });
    const second = exchange(fixed, "GET", { "accept-encoding": "gzip" });
    expect(second.headers).toBe(first.headers);
    expect(second.body).toBe(first.body);
    // Another variant is finished on its own.
    expect(exchange(fixed, "GET", {}).headers).not.toBe(first.headers);
  });
});
