import { readFileSync } from "node:fs";
import { z } from "zod";
import { canGroundVerifiedAnswer } from "../domain/trust/answer-fact.ts";
import { signalCatalog } from "../domain/trust/signal-catalog.ts";
import { isOneLine, ONE_LINE_MESSAGE } from "./common.ts";
import { httpUrl, oneLine, oneOf, siretSchema, slug, text } from "./merchant-declaration.ts";

/**
 * A platform observation: what Abeille itself saw of a registered merchant at a given moment (its
 * public listing, website, photos taken on site, its payment account's readiness, the evidence
 * checks it ran and the Q&A it wrote), as opposed to what the merchant declares or an official
 * file proves. One schema for `npm run import -- observations` and the demo; the signals an
 * official file proves (SIRENE, BODACC) are refused here: they come in only through their import.
 * Closed lists come from data/observation-vocabulary.json.
 */

const vocabularySchema = z.object({
  format: z.literal(1),
  signal_statuses: z.array(z.string()).min(1),
  signals_from_official_files: z.array(z.string()),
  qa_cluster_types: z.array(z.string()).min(1),
  qa_intents: z.array(z.string()).min(1),
  qa_verification_levels: z.array(z.string()).min(1),
  qa_fact_levels: z.array(z.string()).min(1),
  drift_severities: z.array(z.string()).min(1),
});

export const observationVocabulary = vocabularySchema.parse(
  JSON.parse(readFileSync(new URL("../../data/observation-vocabulary.json", import.meta.url), "utf8")),
);

const instant = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time like 2026-11-01T10:00:00Z" });
const catalogKeys = new Set(signalCatalog.map((definition) => definition.key));

export const observedSignalSchema = z.strictObject({
  key: z
    .string()
    .refine((key) => catalogKeys.has(key), "is not a signal of the catalog (src/domain/trust/signal-catalog.ts)")
    .refine(
      (key) => !observationVocabulary.signals_from_official_files.includes(key),
      "is proved by an official file (npm run import -- sirene | bodacc), not by an observation",
    ),
  status: oneOf(observationVocabulary.signal_statuses),
  value: z.union([z.boolean(), z.number().finite(), z.string().max(200)]).nullable(),
  source_url: httpUrl.nullable().optional(),
  recorded_at: instant,
  verified_at: instant.nullable().optional(),
  expires_at: instant.nullable().optional(),
});

const qaNodeSchema = z
  .strictObject({
    intent: oneOf(observationVocabulary.qa_intents),
    question: oneLine(300),
    answer: text(2_000),
    answer_bluf: oneLine(300),
    /** The one sentence an agent may quote; empty when the answer makes no checkable claim. */
    claim_sentence: z.string().max(300).refine(isOneLine, ONE_LINE_MESSAGE).default(""),
    verification_level: oneOf(observationVocabulary.qa_verification_levels),
    fact_level: oneOf(observationVocabulary.qa_fact_levels),
    /**
     * The signal a `verified` answer rests on (`siret_verified` for "is it registered?"): one an
     * official source proves, and one the merchant has. The answer reads verified only while that
     * signal counts (src/domain/trust/answer-fact.ts).
     */
    fact_signal: z
      .string()
      .refine(canGroundVerifiedAnswer, "is not a signal an official source proves (src/domain/trust/signal-catalog.ts)")
      .nullable()
      .optional(),
    fact_source_url: httpUrl.nullable().optional(),
    edited_by_merchant: z.boolean().default(false),
    drift_severity: oneOf(observationVocabulary.drift_severities).nullable().optional(),
    human_verified_at: instant.nullable().optional(),
  })
  .superRefine((node, context) => {
    // What the merchant wrote is its declaration (src/domain/trust/answer-fact.ts), and a verified
    // answer says which signal proves it: the level alone would never expire.
    if (node.edited_by_merchant && node.fact_level !== "declared") {
      context.addIssue({
        code: "custom",
        path: ["fact_level"],
        message: "must be declared for an answer the merchant edited",
      });
    }
    if (node.fact_level === "verified" && !node.fact_signal) {
      context.addIssue({
        code: "custom",
        path: ["fact_signal"],
        message: "is required for a verified answer: the signal it rests on",
      });
    }
    if (node.fact_level !== "verified" && node.fact_signal) {
      context.addIssue({ code: "custom", path: ["fact_signal"], message: "is given for a verified answer only" });
    }
  });

const qaClusterSchema = z.strictObject({
  label: oneLine(200),
  type: oneOf(observationVocabulary.qa_cluster_types),
  /** About the merchant, or about one of its products (named by its slug). */
  product_slug: slug.nullable().optional(),
  updated_at: instant,
  nodes: z.array(qaNodeSchema).min(1, "a cluster needs at least one question").max(20),
});

export const platformObservationSchema = z.strictObject({
  siret: siretSchema,
  observed_at: instant,
  /** The website's registered domain age, in years (WHOIS). */
  website: z.strictObject({ domain_age_years: z.int().min(0).max(60).nullable() }).optional(),
  /** The merchant's public listing (rating out of 5, review and photo counts). */
  listing: z
    .strictObject({
      rating: z.number().min(1).max(5).nullable(),
      review_count: z.int().min(0).max(1_000_000).nullable(),
      photos_count: z.int().min(0).max(100_000),
    })
    .nullable()
    .optional(),
  /** Photos taken on site by the platform. */
  terrain_photos: z.array(httpUrl).max(50).optional(),
  /** Other pages of the same business (listing, social pages). */
  same_as: z.array(httpUrl).max(20).optional(),
  /** Whether the merchant's payment account can take payments, and its id at the provider. */
  payment: z
    .strictObject({
      ready: z.boolean(),
      account_id: z
        .string()
        .regex(/^acct_[A-Za-z0-9]{6,40}$/, "must be a payment account id like acct_1A2b3C4d5E6f7G8h")
        .nullable(),
    })
    .refine((payment) => !payment.ready || payment.account_id !== null, "a ready payment needs its account_id")
    .optional(),
  /** Evidence checks the platform ran; each replaces the merchant's signal of the same key. */
  signals: z
    .array(observedSignalSchema)
    .max(60)
    .refine((signals) => new Set(signals.map((signal) => signal.key)).size === signals.length, "lists a key twice")
    .optional(),
  /** The merchant's Q&A clusters; given, they replace the whole list. */
  qa_clusters: z.array(qaClusterSchema).max(20).optional(),
});

export type PlatformObservation = z.output<typeof platformObservationSchema>;
export type ObservedSignal = z.output<typeof observedSignalSchema>;
