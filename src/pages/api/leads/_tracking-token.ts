import { validationError } from "../../../errors/service-error.ts";
import type { RouteRequest } from "../../../http/route-request.ts";
import { TRACKING_TOKEN_MAX } from "../../../schemas/leads.ts";

/**
 * The tracking token of a lead request: the X-Tracking-Token header (preferred: it stays out of
 * URLs and logs), else `?token=` on GET or `tracking_token` in a POST body. Given twice with two
 * values, the request is refused rather than guessed.
 */
export function trackingTokenOf(request: RouteRequest, fallback: string | null | undefined): string {
  const header = request.headers.get("x-tracking-token")?.trim() || null;
  const other = fallback?.trim() || null;
  if (header && other && header !== other) {
    throw validationError([
      { path: "tracking_token", message: "two different tracking tokens were given (header and request)" },
    ]);
  }
  const token = header ?? other;
  if (!token) {
    throw validationError([
      {
        path: "tracking_token",
        message: "is required: send the lead's tracking token in the X-Tracking-Token header",
      },
    ]);
  }
  if (token.length > TRACKING_TOKEN_MAX) {
    throw validationError([{ path: "tracking_token", message: `must be at most ${TRACKING_TOKEN_MAX} characters` }]);
  }
  return token;
}
