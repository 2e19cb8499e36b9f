import type { RateLimitDecision } from "./rate-limiter.ts";

/**
 * The budgets the guard applies and how they are announced: the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers, structured-field form):
 *   RateLimit-Policy: "hourly";q=600;w=3600
 *   RateLimit: "hourly";r=599;t=6
 * `r` is what is left, `t` the seconds until the whole quota is back. A refusal (429) also
 * carries Retry-After: the seconds until the next request is allowed.
 */
export const HOURLY_WINDOW_SECONDS = 3600;

/** The registration budget's window (AGENT_REGISTRATIONS_PER_ADDRESS_DAILY): keys are not minted in bulk. */
export const DAILY_WINDOW_SECONDS = 86_400;

export interface AppliedPolicy {
  name: string;
  limit: number;
  windowSeconds: number;
  decision: RateLimitDecision;
}

export function rateLimitHeaders(policies: readonly AppliedPolicy[]): Record<string, string> {
  if (policies.length === 0) return {};
  return {
    "RateLimit-Policy": policies.map((p) => `"${p.name}";q=${p.limit};w=${p.windowSeconds}`).join(", "),
    RateLimit: policies.map((p) => `"${p.name}";r=${p.decision.remaining};t=${p.decision.resetSeconds}`).join(", "),
  };
}
