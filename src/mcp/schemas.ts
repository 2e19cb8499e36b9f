import { z } from "zod";
import { COMPARE_CRITERIA, COMPARE_MAX, COMPARE_MIN } from "../domain/compare/compare-merchants.ts";
import { abIdSchema } from "../schemas/common.ts";
import {
  brickItemSchema,
  decisionCardTrustSchema,
  FRENCH_WEEKDAYS,
  leadContractSchema,
  verificationCapsuleSchema,
} from "../schemas/decision-card.ts";
import { credentialSchema, trustBreakdownSchema, trustLevelSchema } from "../schemas/registry.ts";

/*
 * Payload schemas of the tools that have no REST twin (their answers carry the payload in
 * `data`). The tools with a REST twin reuse the route's own envelope schema.
 */

const weekday = z.enum(FRENCH_WEEKDAYS);
const zonedDateTime = z.iso.datetime({ offset: true });
const dayViewSchema = z.object({
  day: weekday,
  declared: z.string().nullable().meta({ description: "The value the merchant declared, as it stands" }),
  status: z.enum(["open", "closed", "unknown"]),
  periods: z.array(z.object({ opens: z.string(), closes: z.string() })),
});

export const availabilitySchema = z
  .object({
    ab_id: abIdSchema,
    name: z.string(),
    time_zone: z.string().meta({ description: "IANA time zone of the merchant (Europe/Paris by default)" }),
    checked_at: zonedDateTime,
    local_weekday: weekday,
    hours_declared: z.boolean(),
    hours_complete: z.boolean(),
    open_now: z.boolean().nullable().meta({ description: "null when it cannot be told from the declared hours" }),
    current_period: z.object({ opened_at: zonedDateTime, closes_at: zonedDateTime.nullable() }).nullable(),
    next_opening: z.object({ weekday, opens_at: zonedDateTime, closes_at: zonedDateTime }).nullable(),
    today: dayViewSchema,
    today_hours: z.string().nullable().meta({
      description:
        "Today's hours as search results word them (merchant.opening.today): a dated exception or a public holiday counted; null when unknown",
    }),
    week: z.array(dayViewSchema.meta({ description: "The usual week, as declared" })),
    summary: z.string(),
  })
  .meta({ id: "Availability" });

export const trustScoreSchema = z
  .object({
    ab_id: abIdSchema,
    name: z.string(),
    trust: decisionCardTrustSchema,
    contributions: z
      .array(credentialSchema)
      .meta({ description: "Every recorded signal with the component it feeds and the points it brought" }),
    manifest_url: z.url(),
  })
  .meta({ id: "TrustScore" });

const proofCountsSchema = z.object({
  official_source_verified: z.number().int().min(0),
  machine_consistent: z.number().int().min(0),
  merchant_declared: z.number().int().min(0),
});

export const certificationsSchema = z
  .object({
    ab_id: abIdSchema,
    name: z.string(),
    trust_level: trustLevelSchema,
    trust_score: z.number().int().min(0).max(100),
    identity: z.object({
      siret: z.string(),
      siren: z.string(),
      siret_verified: z.boolean(),
      source_url: z.string().nullable(),
    }),
    proof_summary: proofCountsSchema,
    credentials: z.array(
      credentialSchema.extend({
        effective_status: z.enum(["verified", "unverified", "failed", "expired"]),
        expires_at: z.string().nullable(),
        rule: z.string(),
      }),
    ),
    missing_evidence: z.array(z.string()),
    manifest_url: z.url(),
    jwks_url: z.url(),
  })
  .meta({ id: "Certifications" });

export const comparisonSchema = z
  .object({
    point: z.object({ lat: z.number(), lng: z.number() }).nullable(),
    merchants: z
      .array(
        z.object({
          ab_id: abIdSchema,
          name: z.string(),
          city: z.string(),
          sector: z.string(),
          trade: z.string(),
          merchant_status: z.string(),
          trust: z.object({
            score: z.number().int().min(0).max(100),
            trust_level: trustLevelSchema,
            breakdown: trustBreakdownSchema,
          }),
          evidence: proofCountsSchema.extend({
            verified_signals: z.number().int().min(0),
            top_credentials: verificationCapsuleSchema.shape.top_credentials,
          }),
          distance_km: z.number().nullable(),
          rating: z.number().nullable(),
          review_count: z.number().int().nullable(),
          products: z.object({
            count: z.number().int().min(0),
            items: z.array(z.object({ id: z.string(), name: z.string(), price: z.string() })),
          }),
          can_contact: z.boolean(),
          blocked_because: z.array(z.string()),
        }),
      )
      .min(COMPARE_MIN)
      .max(COMPARE_MAX),
    leaders: z
      .object(Object.fromEntries(COMPARE_CRITERIA.map((criterion) => [criterion, z.array(abIdSchema)])))
      .meta({ description: "For each criterion, the ab_ids with the best value (several on a tie)" }),
  })
  .meta({ id: "Comparison" });

export const productDetailsSchema = z
  .object({
    ab_id: abIdSchema,
    name: z.string(),
    products: z.array(
      brickItemSchema.extend({
        description: z.string(),
        price: z
          .string()
          .meta({ description: "A quotable price: 120.00 EUR, from 45.00 EUR, 60.00 EUR/hour or on quote" }),
        questions: z.array(
          z.object({ question: z.string(), answer_bluf: z.string(), intent: z.string(), cite_url: z.url() }),
        ),
      }),
    ),
  })
  .meta({ id: "ProductDetails" });

export const leadFieldsSchema = z
  .object({
    ab_id: abIdSchema,
    name: z.string(),
    can_contact: z.boolean(),
    blocked_because: z.array(z.string()),
    lead_contract: leadContractSchema,
  })
  .meta({ id: "LeadFields" });
