const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The id a request is known by in logs, error envelopes and the X-Request-Id header: the caller's
 * own when it sent a usable one (a proxy's trace id), a fresh UUID otherwise.
 */
export function requestIdOf(incoming: string | string[] | undefined | null): string {
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}
