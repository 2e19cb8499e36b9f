/**
 * A GET to an official register's API as the registry makes it: paced (src/official/request-pacer.ts:
 * every caller of one client shares the pacer), each attempt within a timeout (the body included),
 * the answer read up to a bound, and what is worth another try tried again: a timeout or a network
 * failure and a 5xx after a backoff that doubles, a 429 after its Retry-After (held by the pacer
 * for every request of the client). Any other status is answered as it came, with its body, for
 * the client to read (a 404 is an empty day for API Sirene, a refusal for others). What cannot be
 * answered throws an OfficialRegistryError naming the address and the attempts made. Shared by the
 * API Recherche d'entreprises client and the API Sirene client.
 */
import { OfficialRegistryError } from "../domain/merchants/official-registry-lookup.ts";
import type { RequestPacer } from "./request-pacer.ts";

export interface PacedGetOptions {
  pacer: RequestPacer;
  /** Per attempt: the answer, body included, must arrive within it. */
  timeoutMs: number;
  /** Sent with every request (User-Agent, an API key, Accept). */
  headers: Record<string, string>;
  /** Attempts in all for one request (timeouts, 5xx, unreachable, 429). */
  maxAttempts: number;
  /** Wait before the 2nd attempt after a timeout or a 5xx, doubled each time. */
  backoffMs: number;
  /** A 429 asking to wait longer than this fails the request instead. */
  maxRetryAfterMs: number;
  /** Without a Retry-After header, a 429 waits this long. */
  defaultRetryAfterMs: number;
  /** The largest answer read, in bytes once decoded: a larger one fails the request, unread. */
  maxAnswerBytes: number;
  /** What an answer of this API normally weighs, said when one is too large ("an answer for one SIRET is a few kilobytes"). */
  expectedSize: string;
  sleep: (ms: number) => Promise<void>;
}

/** An answer that is neither retried nor failed: its status and its body. */
export interface PacedAnswer {
  status: number;
  body: string;
}

export function createPacedGet(options: PacedGetOptions): (url: string) => Promise<PacedAnswer> {
  const maxAttempts = Math.max(1, options.maxAttempts);
  return async function get(url: string): Promise<PacedAnswer> {
    for (let attempt = 1; ; attempt += 1) {
      await options.pacer.acquire();
      let response: Response;
      let body: string | null;
      try {
        response = await fetch(url, { headers: options.headers, signal: AbortSignal.timeout(options.timeoutMs) });
        body = await boundedText(response, options.maxAnswerBytes);
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        if (attempt >= maxAttempts) {
          throw timedOut
            ? new OfficialRegistryError(
                "timeout",
                url,
                `${url}: no answer within ${options.timeoutMs} ms (${attempt} attempts)`,
              )
            : new OfficialRegistryError("unavailable", url, `${url}: ${reasonOf(error)} (${attempt} attempts)`);
        }
        await options.sleep(options.backoffMs * 2 ** (attempt - 1));
        continue;
      }
      if (body === null) {
        throw new OfficialRegistryError(
          "invalid_answer",
          url,
          `${url}: answered ${response.status} with more than ${options.maxAnswerBytes} bytes (${options.expectedSize})`,
        );
      }
      if (response.status === 429) {
        const retryAfter = response.headers.get("retry-after");
        const waitMs = retryAfterMs(retryAfter, Date.now()) ?? options.defaultRetryAfterMs;
        if (waitMs > options.maxRetryAfterMs || attempt >= maxAttempts) {
          throw new OfficialRegistryError(
            "rate_limited",
            url,
            `${url}: 429 Too Many Requests, Retry-After ${retryAfter ?? "absent"} (${attempt} attempts)`,
          );
        }
        // Every request of this client waits, not only this one.
        options.pacer.holdFor(waitMs);
        continue;
      }
      if (response.status >= 500) {
        if (attempt >= maxAttempts) {
          throw new OfficialRegistryError(
            "unavailable",
            url,
            `${url}: answered ${response.status} (${attempt} attempts)`,
          );
        }
        await options.sleep(options.backoffMs * 2 ** (attempt - 1));
        continue;
      }
      return { status: response.status, body };
    }
  };
}

/**
 * The answer's body as text, or null when it is larger than `maxBytes` (said by Content-Length, or
 * met while reading): the reading stops there and the connection is released.
 */
async function boundedText(response: Response, maxBytes: number): Promise<string | null> {
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Retry-After as the milliseconds to wait: delta-seconds or an HTTP date (RFC 9110, 10.2.3); null if unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
