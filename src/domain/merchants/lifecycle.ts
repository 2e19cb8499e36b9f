import type { MerchantStatus } from "../../schemas/envelope.ts";

/**
 * The merchant lifecycle (docs/merchant-lifecycle.md): which status may follow which, and on what
 * condition. One table, read by every way in (operator commands, imports), so a transition
 * refused here is refused everywhere, with the same reason.
 */

/** Statuses whose merchants are listed: searchable, resolvable, published (a pause is temporary). */
export const LISTED_STATUSES: ReadonlySet<string> = new Set<MerchantStatus>(["ACTIVE", "PROBATION", "PAUSED"]);

export function isListed(status: string): boolean {
  return LISTED_STATUSES.has(status);
}

/**
 * Whether a merchant is a search hit: listed, and in business. A merchant an official source
 * records closed (Merchant.closure: SIRENE, BODACC) stays resolvable, saying so, but is never a
 * hit (docs/decisions.md, "Issue 37: only what is in business").
 */
export function isSearchHit(status: string, closure: unknown): boolean {
  return isListed(status) && (closure === null || closure === undefined);
}

/** What a transition's conditions look at. */
export interface TransitionFacts {
  /** siret_verified is verified and not expired. */
  identityVerified: boolean;
  /** The description is absent, or a person reviewed it since it last changed. */
  descriptionReviewed: boolean;
  reason: string | null;
}

type Condition = (facts: TransitionFacts) => string | null;

const needsReason: Condition = (facts) => (facts.reason ? null : "a reason is required (--reason)");
const readyToBeActive: Condition = (facts) => {
  const missing = [
    facts.identityVerified ? null : "the identity is not verified (siret_verified)",
    facts.descriptionReviewed ? null : "the description is not reviewed (merchants review)",
  ].filter((item): item is string => item !== null);
  return missing.length === 0 ? null : missing.join(" and ");
};

/** from -> to -> the condition to meet (null when none). A pair not in the table is not a transition. */
const TRANSITIONS: Record<MerchantStatus, Partial<Record<MerchantStatus, Condition | null>>> = {
  PROBATION: { ACTIVE: readyToBeActive, SUSPENDED: needsReason, ARCHIVED: needsReason },
  ACTIVE: { PAUSED: null, SUSPENDED: needsReason, ARCHIVED: needsReason },
  PAUSED: { ACTIVE: readyToBeActive, SUSPENDED: needsReason, ARCHIVED: needsReason },
  // Back from a suspension: to probation, or straight to active when it qualifies.
  SUSPENDED: { PROBATION: needsReason, ACTIVE: readyToBeActive, ARCHIVED: needsReason },
  ARCHIVED: {},
};

/**
 * Who asks for a transition: the operator (every transition of the table) or the merchant from its
 * space, who may only pause and resume its own listing (docs/decisions.md): probation ends by the
 * operator's review, suspension and archiving are the operator's, and resuming meets the same
 * conditions as any move to ACTIVE.
 */
export type TransitionRequester = "operator" | "merchant";

const MERCHANT_TRANSITIONS: Partial<Record<MerchantStatus, MerchantStatus[]>> = {
  ACTIVE: ["PAUSED"],
  PAUSED: ["ACTIVE"],
};

/** The statuses the merchant itself may move its listing to from `from` (none in probation). */
export function merchantNextStatuses(from: MerchantStatus): MerchantStatus[] {
  return MERCHANT_TRANSITIONS[from] ?? [];
}

export type TransitionCheck = { allowed: true } | { allowed: false; reason: string };

export function checkTransition(
  from: MerchantStatus,
  to: MerchantStatus,
  facts: TransitionFacts,
  requester: TransitionRequester = "operator",
): TransitionCheck {
  if (from === to) return { allowed: false, reason: `the merchant is already ${to}` };
  if (requester === "merchant" && !merchantNextStatuses(from).includes(to)) {
    return { allowed: false, reason: `${from} -> ${to} is not a change the merchant makes; only the operator does` };
  }
  const targets = TRANSITIONS[from];
  if (!(to in targets)) {
    const possible = Object.keys(targets);
    return {
      allowed: false,
      reason:
        possible.length === 0
          ? `${from} is final: no status follows it`
          : `${from} cannot become ${to}; it can become ${possible.join(", ")}`,
    };
  }
  const unmet = targets[to]?.(facts) ?? null;
  return unmet === null ? { allowed: true } : { allowed: false, reason: `${from} -> ${to}: ${unmet}` };
}

/**
 * Why a merchant in this status cannot be claimed in the merchant space, or null when it can: not
 * while the operators suspend it (their decision stands until they lift it), nor once archived.
 */
export function claimBlockOf(status: string): "suspended" | "archived" | null {
  if (status === "SUSPENDED") return "suspended";
  if (status === "ARCHIVED") return "archived";
  return null;
}

/** The statuses a merchant in `from` may move to (for help texts and docs). */
export function nextStatuses(from: MerchantStatus): MerchantStatus[] {
  return Object.keys(TRANSITIONS[from]) as MerchantStatus[];
}

/**
 * What a change means to a reader of the listed registry (the change feed): a merchant appearing,
 * changing, or disappearing; nothing for changes to a merchant nobody can see.
 */
export function feedChange(
  before: MerchantStatus | null,
  after: MerchantStatus,
): "created" | "updated" | "withdrawn" | null {
  const wasListed = before !== null && isListed(before);
  const isNowListed = isListed(after);
  if (isNowListed) return wasListed ? "updated" : "created";
  return wasListed ? "withdrawn" : null;
}
