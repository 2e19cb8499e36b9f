import type { App } from "../../app.ts";
import type { LeadRepository } from "../../store/lead-repository.ts";
import { resolveDeps } from "../registry/registry-deps.ts";
import type { ResolveDeps } from "../registry/resolve-merchant.ts";
import type { RevisionCache } from "../revision-cache.ts";
import type { AssessedLeadTarget } from "./load-lead-target.ts";
import type { TrackingTokens } from "./tracking-token.ts";

/** What the lead functions need; REST routes and MCP tools build it with `leadDeps(app)`. */
export interface LeadDeps extends ResolveDeps {
  leads: LeadRepository;
  trackingTokens: TrackingTokens;
  /** Assessed lead targets, valid for one store revision. */
  leadTargets: RevisionCache<AssessedLeadTarget>;
  /** Called after a commit that wrote outbox rows: wakes the in-process outbox worker at once. */
  notifyOutbox: () => void;
}

export function leadDeps(app: App): LeadDeps {
  return {
    ...resolveDeps(app),
    leads: app.leads,
    trackingTokens: app.trackingTokens,
    leadTargets: app.leadTargets,
    notifyOutbox: app.notifyOutbox,
  };
}

/** Lead follow-up limits. */
export const MAX_FOLLOW_UPS_PER_LEAD = 20;
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
