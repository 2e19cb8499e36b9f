import type { Assessment } from "../assess-merchant.ts";
import type { LeadTarget } from "../registry/merchant-store.ts";
import type { ResolveDeps } from "../registry/resolve-merchant.ts";
import type { RevisionCache } from "../revision-cache.ts";
import type { LeadRepository } from "./lead-store.ts";
import type { PageFormTokens } from "./page-form-token.ts";
import type { TrackingTokens } from "./tracking-token.ts";

/** The merchant a lead goes to, with its assessment (loadLeadTarget). */
export type AssessedLeadTarget = LeadTarget & { assessment: Assessment };

/** What the lead functions need (built by `leadDeps` in src/wiring.ts). */
export interface LeadDeps extends ResolveDeps {
  leads: LeadRepository;
  trackingTokens: TrackingTokens;
  /** The form tokens of the merchants' pages: what makes a lead `page` rather than `api`. */
  pageFormTokens: PageFormTokens;
  /** Assessed lead targets, valid for one store revision. */
  leadTargets: RevisionCache<AssessedLeadTarget>;
  /** Called after a commit that wrote outbox rows: wakes the in-process outbox worker at once. */
  notifyOutbox: () => void;
}

/** Lead follow-up limits. */
export const MAX_FOLLOW_UPS_PER_LEAD = 20;
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
