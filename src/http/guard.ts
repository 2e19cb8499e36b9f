import type { App } from "../app.ts";
import { ServiceError } from "../errors/service-error.ts";

/**
 * What a route is, for access control: the kill switch and rate limits apply per operation.
 * `open` routes (discovery documents, health) keep answering while agent access is suspended.
 */
export type Operation = "search" | "resolve" | "read" | "lead" | "order" | "agent_registration" | "tool" | "open";

export interface Caller {
  /** null for anonymous callers. */
  agentId: string | null;
  level: number | null;
  permissions: string[];
  /** The client address, as the key anonymous limits are counted on. */
  clientAddress: string;
}

export interface GuardResult {
  caller: Caller;
  /** Headers every answer of this request carries (RateLimit fields). */
  headers: Record<string, string>;
}

export const ANONYMOUS_PERMISSIONS = ["registry:read", "leads:write"];

/** Runs before every route: kill switch, API key, rate limit. */
export async function guardRequest(
  app: App,
  _request: Request,
  operation: Operation,
  clientAddress: string,
): Promise<GuardResult> {
  if (operation !== "open" && app.config.agentAccessSuspended) {
    throw new ServiceError("SERVICE_SUSPENDED");
  }
  return {
    caller: { agentId: null, level: null, permissions: ANONYMOUS_PERMISSIONS, clientAddress },
    headers: {},
  };
}
