import { z } from "zod";
import { abIdSchema, described } from "./common.ts";

export const ATTRIBUTION_TEXT_MAX = 200;
export const ATTRIBUTION_URL_MAX = 2048;

const campaignText = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(ATTRIBUTION_TEXT_MAX, `must be at most ${ATTRIBUTION_TEXT_MAX} characters`);
const urlField = z
  .url({ message: "must be an absolute URL" })
  .max(ATTRIBUTION_URL_MAX, `must be at most ${ATTRIBUTION_URL_MAX} characters`);

export const campaignObjectSchema = z
  .object({
    source: campaignText.optional(),
    medium: campaignText.optional(),
    name: campaignText.optional(),
    term: campaignText.optional(),
    content: campaignText.optional(),
  })
  .strict()
  .meta({
    id: "AttributionCampaign",
    description: "Campaign parameters, the utm_* fields as an object (name = utm_campaign)",
  });

/**
 * POST /api/attribution/session. Every field is optional, but at least one piece of evidence is
 * needed: a referrer, campaign parameters (utm_* fields, a `campaign` object, or utm_* in
 * landing_url) or a known AI-agent User-Agent (the request header, or `user_agent` when a
 * server relays a visit).
 */
export const openSessionBodySchema = z
  .object(
    described(
      {
        ab_id: abIdSchema.optional(),
        landing_url: urlField.optional(),
        referrer: urlField.optional(),
        utm_source: campaignText.optional(),
        utm_medium: campaignText.optional(),
        utm_campaign: campaignText.optional(),
        utm_term: campaignText.optional(),
        utm_content: campaignText.optional(),
        campaign: campaignObjectSchema.optional(),
        user_agent: z.string().max(512, "must be at most 512 characters").optional(),
      },
      {
        ab_id: "The merchant the session is about, if one",
        landing_url: "The URL the person landed on (http or https)",
        referrer: "The URL the person came from (http or https)",
        utm_source: "Campaign source (utm_source)",
        utm_medium: "Campaign medium (utm_medium)",
        utm_campaign: "Campaign name (utm_campaign)",
        utm_term: "Campaign term (utm_term)",
        utm_content: "Campaign content (utm_content)",
        campaign: "The utm_* fields as an object (name = utm_campaign); not with utm_* fields",
        user_agent: "The person's browser user agent, if known",
      },
    ),
  )
  .strict()
  .superRefine((body, context) => {
    const utm = [body.utm_source, body.utm_medium, body.utm_campaign, body.utm_term, body.utm_content];
    if (body.campaign && utm.some((value) => value !== undefined)) {
      context.addIssue({
        code: "custom",
        path: ["campaign"],
        message: "send either utm_* fields or a campaign object",
      });
    }
  })
  .meta({ id: "OpenAttributionSessionRequest" });
export type OpenSessionBody = z.output<typeof openSessionBodySchema>;

export const evidenceLevelSchema = z
  .enum(["bot_user_agent", "campaign", "referrer"])
  .meta({ id: "EvidenceLevel", description: "bot_user_agent > campaign > referrer" });

/** 201 answer, in `data`. */
export const attributionSessionSchema = z
  .object({
    session_id: z.uuid(),
    evidence_level: evidenceLevelSchema,
    evidence: z.array(evidenceLevelSchema),
    user_agent_family: z.string().nullable(),
    ab_id: abIdSchema.nullable(),
    agent_id: z.string().nullable(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "AttributionSession" });

/** POST /api/attribution/convert: a session and exactly one of lead_id, order_id. */
export const convertSessionBodySchema = z
  .object(
    described(
      {
        session_id: z.uuid("must be the session_id an attribution session answered"),
        lead_id: z.uuid("must be a lead_id").optional(),
        order_id: z.uuid("must be an order_id").optional(),
      },
      {
        session_id: "The session_id the attribution session answered",
        lead_id: "The lead the session led to (exactly one of lead_id and order_id)",
        order_id: "The order the session led to (exactly one of lead_id and order_id)",
      },
    ),
  )
  .strict()
  .superRefine((body, context) => {
    if ((body.lead_id === undefined) === (body.order_id === undefined)) {
      context.addIssue({ code: "custom", path: [], message: "send exactly one of lead_id and order_id" });
    }
  })
  .meta({ id: "ConvertAttributionSessionRequest" });
export type ConvertSessionBody = z.output<typeof convertSessionBodySchema>;

/** 200 answer, in `data`. */
export const attributionConversionSchema = z
  .object({
    session_id: z.uuid(),
    converted_at: z.iso.datetime(),
    conversion: z.enum(["lead", "order"]),
    lead_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    evidence_level: evidenceLevelSchema,
    ab_id: abIdSchema.nullable(),
    agent_id: z.string().nullable(),
  })
  .meta({ id: "AttributionConversion" });
