/**
 * What a route answers: status, headers (lower-case names) and the body's bytes, as plain data.
 * Our server writes it to the socket as it is; only Astro's own pipeline (`astro dev`) needs a
 * web `Response`, made at its edge. Building web Responses and Headers cost more per request
 * than a resolve's domain work (docs/performance.md).
 */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

export function reply(status: number, body: string | Uint8Array | null, headers: Record<string, string> = {}): Reply {
  return { status, headers, body };
}

/** For Astro's pipeline: the same answer as a web Response. */
export function toWebResponse(answer: Reply): Response {
  const body = typeof answer.body === "string" || answer.body === null ? answer.body : new Uint8Array(answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/** A web Response made by a library (the MCP SDK's transport) as a Reply. */
export async function replyFromResponse(response: Response): Promise<Reply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers, body };
}

/** Sets headers the answer does not carry yet. */
export function withDefaultHeaders(answer: Reply, headers: Record<string, string>): Reply {
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && answer.headers[name.toLowerCase()] === undefined)
      answer.headers[name.toLowerCase()] = value;
  }
  return answer;
}
