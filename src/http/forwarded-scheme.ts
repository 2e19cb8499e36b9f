import type { IncomingHttpHeaders } from "node:http";

/**
 * A BASE_URL in http behind a proxy that serves https: the merchant space's cookies then lose
 * `Secure` and the `__Host-` prefix (src/publish/pro/space-http.ts reads the scheme from BASE_URL,
 * never from a request), and ProConnect's redirect URI would be http. The server learns it is
 * behind a proxy two ways: TRUST_PROXY (the operator says so, known at start), and a request's
 * `X-Forwarded-Proto: https` or `Forwarded: proto=https` (what the proxy says, known at the first
 * such request). Either warns once per process, naming the signal and never the request's
 * addresses or anything of a person.
 */
export const HTTP_BASE_URL_BEHIND_HTTPS =
  "BASE_URL is http:// while a proxy in front serves https: set BASE_URL to the public https:// address, or the merchant space's cookies lose Secure and the __Host- prefix and ProConnect's redirect URI is http";

export type ForwardedSchemeSignal = "TRUST_PROXY" | "x-forwarded-proto" | "forwarded";

/** Whether the request's proxy headers say it came in over https (the first hop's word). */
export function forwardedHttps(headers: IncomingHttpHeaders): ForwardedSchemeSignal | null {
  const proto = headers["x-forwarded-proto"];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase();
  if (first === "https") return "x-forwarded-proto";
  const forwarded = headers.forwarded;
  if (typeof forwarded === "string" && /(?:^|[;,\s])proto="?https"?(?:$|[;,\s])/i.test(forwarded)) return "forwarded";
  return null;
}

/**
 * Checks the scheme at start (warns at once when TRUST_PROXY is set beside an http BASE_URL) and
 * answers the check each request runs until it has warned; a no-op for an https BASE_URL.
 */
export function createForwardedSchemeCheck(
  config: { baseUrl: string; trustProxyHops: number },
  warn: (message: string, fields: { signal: ForwardedSchemeSignal }) => void,
): (headers: IncomingHttpHeaders) => void {
  if (!config.baseUrl.startsWith("http://")) return () => {};
  let warned = false;
  if (config.trustProxyHops > 0) {
    warn(HTTP_BASE_URL_BEHIND_HTTPS, { signal: "TRUST_PROXY" });
    warned = true;
  }
  return (headers) => {
    if (warned) return;
    const signal = forwardedHttps(headers);
    if (signal === null) return;
    warned = true;
    warn(HTTP_BASE_URL_BEHIND_HTTPS, { signal });
  };
}
