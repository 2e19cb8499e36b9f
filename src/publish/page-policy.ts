import { LEAD_FORM_SCRIPT_SOURCE } from "./lead-form-script.ts";

/**
 * What every HTML page of the service may load and who may frame it, sent with each page by the
 * server edge (src/http/conventions.ts). The pages need little: their own stylesheet and favicon,
 * one inline script (the lead form's, allowed by its hash: no other script runs, injected or not),
 * requests to the service itself (the lead endpoint) and forms posted to it. Nothing may frame
 * them (clickjacking of the lead form): `frame-ancestors 'none'`, and X-Frame-Options for
 * browsers that predate it. The JSON-LD block is data, not a script: the policy does not apply.
 */
export const PAGE_CONTENT_SECURITY_POLICY = pageContentSecurityPolicy([]);

/**
 * The policy, with origins a form may lead to besides the service itself: browsers apply
 * `form-action` to the redirects after a post too, and the merchant space's sign-out form ends at
 * ProConnect's end_session_endpoint (src/publish/pro/).
 */
export function pageContentSecurityPolicy(formOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src ${LEAD_FORM_SCRIPT_SOURCE}`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    `form-action ${["'self'", ...formOrigins].join(" ")}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": PAGE_CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
};
