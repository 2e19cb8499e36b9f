import { detectAiUserAgent } from "./ai-user-agents.ts";

/**
 * The three evidence levels of an attribution session, strongest first:
 * - bot_user_agent: the visit came from a known AI agent (User-Agent);
 * - campaign: campaign parameters (utm_* or a `campaign` object, also read from landing_url);
 * - referrer: the page the visitor came from.
 */
export const EVIDENCE_LEVELS = ["bot_user_agent", "campaign", "referrer"] as const;
export type EvidenceLevel = (typeof EVIDENCE_LEVELS)[number];

export const CAMPAIGN_FIELDS = ["source", "medium", "campaign", "term", "content"] as const;
export type CampaignField = (typeof CAMPAIGN_FIELDS)[number];
export type Campaign = Partial<Record<CampaignField, string>>;

export interface EvidenceInput {
  userAgent: string | null;
  referrer: string | null;
  campaign: Campaign;
}

export interface Evidence {
  /** The strongest level present, or null when there is none. */
  level: EvidenceLevel | null;
  /** Every level present, strongest first. */
  levels: EvidenceLevel[];
  userAgentFamily: string | null;
}

export function assessEvidence(input: EvidenceInput): Evidence {
  const agent = detectAiUserAgent(input.userAgent);
  const levels: EvidenceLevel[] = [];
  if (agent) levels.push("bot_user_agent");
  if (Object.values(input.campaign).some((value) => value !== undefined && value !== "")) levels.push("campaign");
  if (input.referrer) levels.push("referrer");
  return { level: levels[0] ?? null, levels, userAgentFamily: agent?.family ?? null };
}

/** utm_* parameters of a landing URL, as a campaign. */
export function campaignFromUrl(url: string | null | undefined): Campaign {
  if (!url) return {};
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return {};
  }
  const campaign: Campaign = {};
  for (const field of CAMPAIGN_FIELDS) {
    const value = params.get(`utm_${field}`)?.trim();
    if (value) campaign[field] = value.slice(0, 200);
  }
  return campaign;
}
