import { randomUUID } from "node:crypto";
import { ServiceError, type ValidationIssue, validationError } from "../../errors/service-error.ts";
import { logger } from "../../logging.ts";
import type { Action, MerchantState } from "../../schemas/envelope.ts";
import type { LeadRequest } from "../../schemas/leads.ts";
import { canonicalJson, sha256Hex } from "../canonical-json.ts";
import { contactBlockedBecause } from "../capabilities.ts";
import { validateSectorMetadata } from "../lead-contract.ts";
import { callerScope, DEDUP_WINDOW_MS, type LeadCaller, normalizeEmail } from "./duplicate-rule.ts";
import { leadActions } from "./lead-actions.ts";
import { IDEMPOTENCY_WINDOW_MS, type LeadDeps, MAX_FOLLOW_UPS_PER_LEAD } from "./lead-deps.ts";
import { loadLeadTarget } from "./load-lead-target.ts";
import { leadChannelOf } from "./page-form-token.ts";
import { resolveBrick } from "./resolve-brick.ts";

export interface CreateLeadOptions {
  /** Who sends the lead: duplicates and Idempotency-Key answers are per caller. */
  caller: LeadCaller;
  /**
   * The form token the request carried, if any: the token of the merchant's page makes the lead
   * `page` (typed by the person in the page's form), anything else `api` (page-form-token.ts).
   */
  formToken?: string | null | undefined;
  /** The Idempotency-Key given with the request, if any. */
  idempotencyKey: string | null;
}

export interface LeadReceipt {
  /** 201 for a new lead; 200 when an existing lead is returned (duplicate, or replay of a duplicate). */
  status: 201 | 200;
  deduplicated: boolean;
  /** True when the answer repeats an earlier one for the same Idempotency-Key. */
  replayed: boolean;
  leadId: string;
  trackingToken: string;
  /** `received` on creation. */
  trackingStatus: string;
  abId: string;
  state: MerchantState;
  actions: Action[];
}

/**
 * POST /api/contact/brick and the MCP lead tools: checks the merchant can be contacted and the
 * sector fields fit its lead contract, then records the lead and its outbox row in one
 * transaction, applying the duplicate rule (duplicate-rule.ts: same merchant, email, lead type
 * and caller within 24 hours; a new message on a duplicate goes to the merchant as a follow-up)
 * and the Idempotency-Key.
 */
export async function createLead(
  deps: LeadDeps,
  request: LeadRequest,
  options: CreateLeadOptions,
): Promise<LeadReceipt> {
  const target = await loadLeadTarget(deps, request.ab_id, { withProducts: request.brick_id !== undefined });
  const { assessment } = target;
  const { state } = assessment.capabilities;
  if (!state.can_contact) {
    const reasons = contactBlockedBecause(state);
    throw new ServiceError(
      "CONTACT_DISABLED",
      `Merchant ${request.ab_id} cannot be contacted right now (${reasons.join(", ")}); see error.blocked_because`,
      { blockedBecause: reasons, abId: request.ab_id },
    );
  }

  const issues: ValidationIssue[] = [];
  let brickId: string | null = null;
  if (request.brick_id !== undefined) {
    const brick = resolveBrick(target.products, request.ab_id, request.brick_id);
    if (brick.ok) brickId = brick.product.brickId;
    else issues.push({ path: "brick_id", message: brick.message });
  }
  const metadata = validateSectorMetadata(target.merchant.sector, request.metadata);
  if (!metadata.ok) issues.push(...metadata.issues);
  if (issues.length > 0) throw validationError(issues);

  const now = deps.now();
  const createdAt = now.toISOString();
  const leadId = randomUUID();
  const intentData = compact(request.intent_data);
  const sectorValues = metadata.ok && Object.keys(metadata.value).length > 0 ? metadata.value : null;
  const scope = callerScope(options.caller);
  const agentId = options.caller.agentId;
  const outcome = await deps.leads.insertLead({
    lead: {
      leadId,
      abId: request.ab_id,
      brickId,
      intent: request.intent ?? null,
      leadType: request.lead_type,
      contactName: request.contact_name,
      contactEmail: request.contact_email,
      contactPhone: request.contact_phone ?? null,
      message: request.message ?? null,
      aiContext: request.ai_context ?? null,
      intentData,
      metadata: sectorValues,
      agentId,
      channel: leadChannelOf(deps.pageFormTokens, options.formToken, request.ab_id),
      createdAt,
    },
    emailNormalized: normalizeEmail(request.contact_email),
    callerScope: scope,
    windowEndsAt: new Date(now.getTime() + DEDUP_WINDOW_MS).toISOString(),
    outboxMessageId: randomUUID(),
    followUp: { messageId: randomUUID(), outboxMessageId: randomUUID(), maxMessages: MAX_FOLLOW_UPS_PER_LEAD },
    idempotency: options.idempotencyKey
      ? {
          scope: `lead:${scope}`,
          key: options.idempotencyKey,
          requestHash: leadRequestHash(request),
          forgetBefore: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
        }
      : null,
  });

  if (outcome.kind === "idempotency_conflict") {
    throw new ServiceError(
      "CONFLICT",
      "This Idempotency-Key was already used with a different request body; send a new key for a new lead",
    );
  }
  if (outcome.kind === "follow_up_limit") {
    throw new ServiceError(
      "CONFLICT",
      `You sent this lead less than 24 hours ago and it already carries ${MAX_FOLLOW_UPS_PER_LEAD} follow-up messages, the most it accepts: this message was not sent; wait for the merchant's answer`,
    );
  }
  if (outcome.kind === "created") {
    deps.notifyOutbox();
    logger.info("lead accepted", { lead_id: outcome.leadId, ab_id: request.ab_id, agent_id: agentId });
  } else if (outcome.kind === "duplicate" && outcome.followUpId !== null) {
    deps.notifyOutbox();
    logger.info("lead duplicate with a new message, sent as a follow-up", {
      lead_id: outcome.leadId,
      message_id: outcome.followUpId,
      ab_id: request.ab_id,
      agent_id: agentId,
    });
  } else {
    logger.debug("lead answered with an existing lead", {
      lead_id: outcome.leadId,
      ab_id: request.ab_id,
      outcome: outcome.kind,
    });
  }

  const created = outcome.kind === "created" || (outcome.kind === "replayed" && outcome.originalKind === "created");
  const existing = created ? null : await deps.leads.findSummary(outcome.leadId);
  return {
    status: created ? 201 : 200,
    deduplicated: !created,
    replayed: outcome.kind === "replayed",
    leadId: outcome.leadId,
    trackingToken: deps.trackingTokens.issue(outcome.leadId),
    // A creation (or its replay) answers as it did the first time; a duplicate tells where the lead is now.
    trackingStatus: created ? "received" : (existing?.trackingStatus ?? "received"),
    abId: request.ab_id,
    state,
    actions: leadActions(deps.baseUrl, outcome.leadId, request.ab_id),
  };
}

/** Fingerprint of a validated request: key order and absent-versus-null do not change it. */
export function leadRequestHash(request: LeadRequest): string {
  return sha256Hex(canonicalJson(request));
}

function compact(intentData: LeadRequest["intent_data"]): Record<string, string> | null {
  if (!intentData) return null;
  const entries = Object.entries(intentData).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}
