import { randomUUID } from "node:crypto";
import { ServiceError, validationError } from "../../errors/service-error.ts";
import type { ConvertSessionBody, OpenSessionBody } from "../../schemas/attribution.ts";
import type { MerchantRepository } from "../registry/merchant-store.ts";
import type { AttributionRepository, AttributionSession } from "./attribution-store.ts";
import { assessEvidence, type Campaign, campaignFromUrl, type EvidenceLevel } from "./evidence.ts";

/** An attribution session can be converted for 30 days. */
export const ATTRIBUTION_TTL_MS = 30 * 24 * 3600 * 1000;

export interface AttributionDeps {
  attribution: AttributionRepository;
  merchants: Pick<MerchantRepository, "findMerchants">;
  now: () => Date;
}

export interface SessionCaller {
  agentId: string | null;
}

export interface OpenedSession {
  session_id: string;
  evidence_level: EvidenceLevel;
  evidence: EvidenceLevel[];
  user_agent_family: string | null;
  ab_id: string | null;
  agent_id: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * Opens a session on the strongest evidence present. The raw User-Agent is not stored (only
 * the AI-agent family it names), and the referrer is kept as origin and path only: query
 * strings and fragments can carry personal data.
 */
export async function openSession(
  deps: AttributionDeps,
  input: OpenSessionBody,
  caller: SessionCaller,
  userAgentHeader: string | null,
): Promise<OpenedSession> {
  if (input.ab_id) {
    const [merchant] = await deps.merchants.findMerchants([input.ab_id]);
    if (!merchant || merchant.status === "ARCHIVED") {
      throw new ServiceError("MERCHANT_NOT_FOUND", `No active merchant has ab_id ${input.ab_id}`, {
        abId: input.ab_id,
      });
    }
  }
  const campaign: Campaign = {
    ...campaignFromUrl(input.landing_url),
    ...definedOnly({
      source: input.utm_source ?? input.campaign?.source,
      medium: input.utm_medium ?? input.campaign?.medium,
      campaign: input.utm_campaign ?? input.campaign?.name,
      term: input.utm_term ?? input.campaign?.term,
      content: input.utm_content ?? input.campaign?.content,
    }),
  };
  const referrer = input.referrer ? referrerOriginAndPath(input.referrer) : null;
  const evidence = assessEvidence({ userAgent: input.user_agent ?? userAgentHeader, referrer, campaign });
  if (!evidence.level) {
    throw validationError(
      [
        {
          path: "",
          message:
            "no attribution evidence: send referrer, utm_* fields (or a campaign object, or a landing_url with utm_* parameters), or call with a known AI-agent User-Agent",
        },
      ],
      "No attribution evidence: send a referrer, campaign parameters (utm_*) or a known AI-agent User-Agent",
    );
  }
  const now = deps.now();
  const session: AttributionSession = {
    sessionId: randomUUID(),
    agentId: caller.agentId,
    abId: input.ab_id ?? null,
    evidenceLevel: evidence.level,
    referrer,
    campaign: Object.keys(campaign).length > 0 ? (campaign as Record<string, string>) : null,
    userAgentFamily: evidence.userAgentFamily,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ATTRIBUTION_TTL_MS).toISOString(),
    convertedAt: null,
    leadId: null,
    orderId: null,
  };
  await deps.attribution.insert(session);
  return {
    session_id: session.sessionId,
    evidence_level: evidence.level,
    evidence: evidence.levels,
    user_agent_family: session.userAgentFamily,
    ab_id: session.abId,
    agent_id: session.agentId,
    created_at: session.createdAt,
    expires_at: session.expiresAt,
  };
}

export interface Conversion {
  session_id: string;
  converted_at: string;
  conversion: "lead" | "order";
  lead_id: string | null;
  order_id: string | null;
  evidence_level: EvidenceLevel;
  ab_id: string | null;
  agent_id: string | null;
}

/**
 * Marks a session converted by one lead or one order. Unknown session: 404 NOT_FOUND. Already
 * converted: 409 CONFLICT (session_already_converted). Expired: 409 CONFLICT (session_expired;
 * the session still exists, its state forbids the change). A session opened with an agent's key
 * is converted with that key only (403 otherwise). A lead or order that is unknown, not the
 * caller's, or for another merchant than the session's: 404 NOT_FOUND, one message for all. The
 * same lead may convert several sessions (multi-touch); a session converts once.
 */
export async function convertSession(
  deps: AttributionDeps,
  input: ConvertSessionBody,
  caller: SessionCaller,
): Promise<Conversion> {
  const session = await deps.attribution.findById(input.session_id);
  if (!session) throw new ServiceError("NOT_FOUND", `No attribution session ${input.session_id}`);
  // A session an agent opened is converted by that agent alone: an anonymous caller or another
  // agent cannot credit it (nor learn anything about the leads it tries).
  if (session.agentId && session.agentId !== caller.agentId) {
    throw new ServiceError(
      "FORBIDDEN",
      caller.agentId
        ? "This attribution session was opened by another agent"
        : "This attribution session was opened by an agent; convert it with that agent's API key",
    );
  }
  const now = deps.now().toISOString();
  assertOpen(session, now);
  const leadId = input.lead_id ?? null;
  const orderId = input.order_id ?? null;
  const target = leadId ? await deps.attribution.leadOwner(leadId) : await deps.attribution.orderOwner(orderId ?? "");
  // Unknown, sent by another agent, or for another merchant than the session's: one answer that
  // says none of these, so a guessed id reveals neither its existence nor its merchant.
  const usable =
    target !== null &&
    target.agentId === (caller.agentId ?? null) &&
    (session.abId === null || session.abId === target.abId);
  if (!usable) {
    throw new ServiceError(
      "NOT_FOUND",
      leadId
        ? `No lead ${leadId} this session can be converted with (a lead of the session's merchant, sent by this caller)`
        : `No order ${orderId} this session can be converted with (an order of the session's merchant, placed by this caller)`,
    );
  }
  if (!(await deps.attribution.convert(session.sessionId, { leadId, orderId, at: now }))) {
    // Converted (or expired) between the read and the conditional update: say which.
    assertOpen((await deps.attribution.findById(session.sessionId)) ?? session, now);
    throw new ServiceError("CONFLICT", "The attribution session could not be converted", {
      blockedBecause: ["session_already_converted"],
    });
  }
  return {
    session_id: session.sessionId,
    converted_at: now,
    conversion: leadId ? "lead" : "order",
    lead_id: leadId,
    order_id: orderId,
    evidence_level: session.evidenceLevel as EvidenceLevel,
    ab_id: session.abId ?? target.abId,
    agent_id: session.agentId,
  };
}

function assertOpen(session: AttributionSession, now: string): void {
  if (session.convertedAt) {
    throw new ServiceError("CONFLICT", `The attribution session was already converted at ${session.convertedAt}`, {
      blockedBecause: ["session_already_converted"],
    });
  }
  if (session.expiresAt <= now) {
    throw new ServiceError("CONFLICT", `The attribution session expired at ${session.expiresAt}`, {
      blockedBecause: ["session_expired"],
    });
  }
}

function definedOnly(values: Campaign): Campaign {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Campaign;
}

/** A referrer as origin and path: query and fragment dropped (they may carry personal data). */
export function referrerOriginAndPath(referrer: string): string | null {
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol}//${url.host}`;
    return `${url.origin}${url.pathname}`;
  } catch {
    return null;
  }
}
