import { z } from "zod";
import { SIGNAL_SOURCES } from "../domain/trust/signal-catalog.ts";
import { abIdSchema, uuidSchema } from "./common.ts";
import { merchantStatusSchema } from "./envelope.ts";
import { merchantClosureSchema, merchantSourceSchema, trustBreakdownSchema, trustLevelSchema } from "./registry.ts";

/*
 * The merchant decision card (spec, "Merchant decision card"), served at
 * GET /api/merchants/{ab_id}/decision-card. Objects are open (unknown keys pass) so the card can
 * grow without breaking readers; the keys below are the ones the service promises.
 */

export const DECISION_CARD_VERSION = "merchant-decision-card/v2";
export const DECISION_CARD_SCHEMA_VERSION = "2.4.1";
export const DECISION_CARD_DOCUMENT_VERSION = "2026-04";
export const SIGNABLE_FIELDS = [
  "identity",
  "trust",
  "verification_capsule",
  "knowledge_capsule",
  "brand_capsule",
  "provenance",
] as const;

const timestamp = z.iso.datetime({ offset: true });
const contentHashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const sourceSchema = z.enum(SIGNAL_SOURCES);
const confidenceSchema = z.enum(["declared", "observed", "verified"]);

export const leadContractFieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(["string", "number", "date", "enum", "boolean", "email", "tel", "text"]),
    required: z.boolean(),
    label: z.string(),
    options: z.array(z.string()).optional(),
    max: z.number().optional().meta({ description: "Characters for strings, largest value for numbers" }),
  })
  .meta({ id: "LeadContractField" });

export const leadContractSchema = z
  .object({
    endpoint: z.url(),
    method: z.literal("POST"),
    policy: z.object({
      all_fields_optional: z.boolean(),
      all_fields_optional_applies_to: z.literal("sector_fields"),
      ai_neutral: z.boolean(),
    }),
    required_target_fields: z.array(z.string()),
    base_fields: z.array(leadContractFieldSchema),
    sector_fields: z.array(leadContractFieldSchema),
    sector_fields_path: z.literal("metadata"),
    example_payload: z.object({
      ab_id: abIdSchema,
      contact_name: z.string(),
      contact_email: z.email(),
      contact_phone: z.string(),
      lead_type: z.enum(["estimation", "contact", "rdv", "quote"]),
      message: z.string(),
      metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    }),
  })
  .meta({ id: "LeadContract" });

export const orderContractSchema = z
  .object({
    endpoint: z.url(),
    method: z.literal("POST"),
    min_trust: z.number().int(),
    required_fields: z.array(z.string()),
    optional_fields: z.array(z.string()),
    fulfillment_types: z.array(z.enum(["pickup", "delivery"])),
    product_ids_from: z.string(),
    readiness_tool: z.string(),
  })
  .meta({ id: "OrderContract" });

export const decisionCardIdentitySchema = z
  .object({
    business_name: z.string(),
    legal_name: z.string(),
    siret: z.string().regex(/^\d{14}$/),
    naf_code: z.string().regex(/^\d{2}\.\d{2}[A-Z]$/),
    /** The NAF 2025 code of the same activity, when SIRENE gives one (its reference nomenclature from 2027). */
    naf_code_2025: z
      .string()
      .regex(/^\d{2}\.\d{2}[A-Z]$/)
      .nullable(),
    legal_identifiers: z.object({
      siret: z.object({ value: z.string(), verified: z.boolean(), source_url: z.url() }),
      siren: z.object({ value: z.string().regex(/^\d{9}$/), derived_from: z.literal("siret") }),
      rcs: z.string().nullable(),
      vat_intracom: z.string().nullable(),
      naf_code: z.object({ value: z.string(), division: z.string().regex(/^\d{2}$/) }),
    }),
    sector: z.string(),
    city: z.string(),
    address: z.string(),
    canonical_slug: z.string(),
    canonical_microsite_url: z.url(),
    microsite_root_url: z.url(),
    ai_md_url: z.url(),
    ai_digest_url: z.url(),
    jsonld_url: z.url(),
    fanout_url: z.url(),
    about_url: z.url(),
    same_as: z.array(z.url()),
  })
  .meta({ id: "DecisionCardIdentity" });

export const decisionCardTrustSchema = z
  .object({
    trust_level: trustLevelSchema,
    merchant_status: merchantStatusSchema,
    probation: z.boolean(),
    closure: merchantClosureSchema,
    score: z.number().int().min(0).max(100),
    breakdown: trustBreakdownSchema,
    reasons: z.array(z.string()),
    thresholds: z.object({
      basic: z.number().int(),
      order: z.number().int(),
      merchant_ready: z.number().int(),
      marketplace: z.number().int(),
      iax: z.number().int(),
    }),
  })
  .meta({ id: "DecisionCardTrust" });

export const decisionCardActionabilitySchema = z
  .object({
    can_contact: z.boolean(),
    can_order: z.boolean(),
    can_verify: z.boolean(),
    can_view_brand: z.boolean(),
    active_plugins: z.array(z.string()),
    next_best_action: z
      .object({
        code: z.string(),
        title: z.string(),
        impact: z.string(),
        unblock_score_delta: z.number().nullable(),
      })
      .nullable(),
    blocked_actions: z.array(z.string()),
    blocked_because: z.array(z.string()),
  })
  .meta({ id: "DecisionCardActionability" });

export const brandCapsuleSchema = z
  .object({
    tone: z.string(),
    values: z.array(z.string()),
    do: z.array(z.string()),
    dont: z.array(z.string()),
    consumer_surface: z.string(),
  })
  .meta({ id: "BrandCapsule" });

export const verificationCapsuleSchema = z
  .object({
    manifest_url: z.url(),
    jwks_url: z.url(),
    top_credentials: z
      .array(
        z.object({
          signal: z.string(),
          label: z.string(),
          status: z.literal("verified"),
          proof_status: z.enum(["official_source_verified", "machine_consistent"]),
          verified_at: timestamp,
          evidence_url: z.url(),
        }),
      )
      .max(5),
    evidence_endpoints: z.array(z.url()),
    next_refresh_at: timestamp.nullable(),
  })
  .meta({ id: "VerificationCapsule" });

export const knowledgeCapsuleSchema = z
  .object({
    top_questions: z
      .array(
        z.object({
          question: z.string(),
          answer_bluf: z.string(),
          confidence: confidenceSchema,
          source_url: z.url(),
        }),
      )
      .max(5),
    cluster_summary: z.array(
      z.object({
        cluster_id: uuidSchema,
        label: z.string(),
        scope: z.enum(["merchant", "brick"]),
        node_count: z.number().int().min(0),
      }),
    ),
  })
  .meta({ id: "KnowledgeCapsule" });

export const provenanceSchema = z
  .object({
    source_updated_at: timestamp,
    brand_updated_at: timestamp.nullable(),
    manifest_generated_at: timestamp,
    signable_fields: z.array(z.enum(SIGNABLE_FIELDS)),
  })
  .meta({ id: "Provenance" });

export const brickItemSchema = z
  .object({
    brick_id: z.string(),
    product_id: uuidSchema,
    brick_type: z.string(),
    name: z.string(),
    description_short: z.string().max(160),
    price_cents: z.number().int().nullable(),
    currency: z.string(),
    pricing_model: z.string(),
    inventory_status: z.string(),
    image_url: z.string().nullable(),
    external_url: z.string().nullable(),
    tags: z.array(z.string()),
    is_locked: z.boolean(),
  })
  .meta({ id: "BrickItem" });

export const FRENCH_WEEKDAYS = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"] as const;

export const merchantSignalsSchema = z
  .object({
    listing_rating: z.number().nullable(),
    listing_review_count: z.number().int().nullable(),
    listing_photos_count: z.number().int(),
    hours: z.partialRecord(z.enum(FRENCH_WEEKDAYS), z.string()).nullable(),
    zones: z.array(z.string()),
    areas_declared_at: z.string().nullable(),
    delivery_enabled: z.boolean(),
    delivery_radius_km: z.number().nullable(),
    available_languages: z.array(z.string()),
    years_in_business: z.number().int().min(0),
    domain_age_years: z.number().nullable(),
    description: z.string().nullable().meta({
      description: "The merchant's description; null while a generated description awaits the merchant's review",
    }),
    terrain_photos: z.array(z.string()),
  })
  .meta({ id: "MerchantSignals" });

export const territorialProofSchema = z
  .object({
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    insee_code: z.string().nullable(),
    postal_code: z.string().nullable(),
    city_normalized: z.string().nullable(),
    geocoding_source: z.string().nullable(),
    geocoding_score: z.number().nullable(),
    verified: z.boolean(),
    verified_at: z.string().nullable(),
    population: z.number().int().nullable(),
    department_code: z.string().nullable(),
    region_code: z.string().nullable(),
    epci_code: z.string().nullable(),
  })
  .meta({ id: "TerritorialProof" });

/** What the card says of the merchant beside its identity: the official sources that speak for it. */
export const decisionCardMerchantSchema = z
  .object({ sources: z.array(merchantSourceSchema) })
  .meta({ id: "DecisionCardMerchant" });

export const decisionCardSchema = z
  .object({
    version: z.literal(DECISION_CARD_VERSION),
    schema_version: z.literal(DECISION_CARD_SCHEMA_VERSION),
    ab_id: abIdSchema,
    generated_at: timestamp,
    content_hash: contentHashSchema.meta({
      description:
        "SHA-256 of the RFC 8785 canonical JSON of decision_card without generated_at, content_hash and provenance.manifest_generated_at",
    }),
    identity: decisionCardIdentitySchema,
    merchant: decisionCardMerchantSchema,
    trust: decisionCardTrustSchema,
    actionability: decisionCardActionabilitySchema,
    lead_contract: leadContractSchema,
    order_contract: orderContractSchema.nullable(),
    brand_capsule: brandCapsuleSchema.nullable(),
    verification_capsule: verificationCapsuleSchema,
    knowledge_capsule: knowledgeCapsuleSchema,
    plugin_capabilities: z.array(z.string()),
    provenance: provenanceSchema,
    bricks_inventory: z.array(brickItemSchema),
    merchant_signals: merchantSignalsSchema,
    territorial_proof: territorialProofSchema,
    _links: z.object({
      self: z.url(),
      resolve: z.url(),
      jsonld: z.url(),
      ai_md: z.url(),
      manifest: z.url(),
    }),
  })
  .meta({ id: "DecisionCardCore" });

export const abBrandVoiceSchema = z
  .object({
    slogan: z.string(),
    slogan_en: z.string(),
    posture: z.string(),
    positioning_short: z.string(),
    mission: z.string(),
    consumer_surface: z.literal("ai_digest"),
    do: z.array(z.string()),
    dont: z.array(z.string()),
  })
  .meta({ id: "AbBrandVoice" });

export const decisionCardCredentialSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    verified_at: timestamp.nullable(),
    recorded_at: timestamp,
    expires_at: timestamp.nullable().meta({
      description: "Until when the check holds; afterwards it counts for nothing until checked again (null: no end)",
    }),
    source: sourceSchema,
    status: z.enum(["verified", "unverified", "failed", "expired"]),
    proof_status: z.string(),
    evidence_url: z.url().nullable(),
  })
  .meta({ id: "DecisionCardCredential" });

/** A Q&A node as the decision card's knowledge capsule lists it (documents.ts adds `confidence`). */
export const clusterNodeSchema = z
  .object({
    id: uuidSchema,
    intent: z.string(),
    question: z.string(),
    answer: z.string(),
    answer_hash: z.string().regex(/^[0-9a-f]{64}$/),
    verification_level: z.string(),
    edited_by_merchant: z.boolean(),
    drift_severity: z.string().nullable(),
    human_verified_at: z.string().nullable(),
    answer_bluf: z.string(),
    claim_sentence: z.string(),
    word_count: z.number().int().min(0),
    cite_url: z.url(),
    grounding: z.object({
      grounded: z.boolean(),
      evidence: z.string().nullable(),
      grounding_stats: z.null(),
    }),
    verification: z.object({
      fact_level: z.string().meta({
        description:
          "How far the answer's facts are backed now: verified (while the official signal it rests on counts), observed, or declared (the merchant's word, and every answer the merchant edited)",
      }),
      fact_source_url: z.string().nullable(),
      human_reviewed_at: z.string().nullable(),
      edited_by_merchant: z.boolean(),
      rests_on: z
        .object({
          signal: z.string(),
          status: z.enum(["verified", "unverified", "failed", "expired", "absent"]),
          expires_at: timestamp.nullable(),
        })
        .nullable()
        .meta({
          description:
            "The signal a verified answer rests on and what it says now; the answer reads declared once it no longer counts (absent: the merchant has no such signal). Null: the answer rests on no signal",
        }),
    }),
  })
  .meta({ id: "DecisionCardClusterNode" });

export const merchantClusterSchema = z
  .object({
    id: uuidSchema,
    label: z.string(),
    type: z.string(),
    scope: z.enum(["merchant", "brick"]),
    brick_id: z.string().nullable(),
    node_count: z.number().int().min(0),
    nodes: z.array(clusterNodeSchema),
  })
  .meta({ id: "MerchantCluster" });

export const decisionCardDocumentSchema = z
  .object({
    decision_card: decisionCardSchema,
    ab_brand_voice: abBrandVoiceSchema,
    merchant_brand_voice: z.object({ consumer_surface: z.string(), is_published: z.boolean() }),
    ab_id: abIdSchema,
    version: z.literal(DECISION_CARD_DOCUMENT_VERSION),
    identity: decisionCardIdentitySchema,
    merchant: decisionCardMerchantSchema,
    trust: decisionCardTrustSchema,
    actionability: decisionCardActionabilitySchema,
    lead_contract: leadContractSchema,
    order_contract: orderContractSchema.nullable(),
    credentials: z.array(decisionCardCredentialSchema),
    reviewers: z.array(z.object({ kind: z.string(), name: z.string(), reviewed_at: timestamp })),
    merchant_clusters: z.array(merchantClusterSchema),
  })
  .meta({ id: "DecisionCard" });

export type DecisionCardDocument = z.infer<typeof decisionCardDocumentSchema>;
export type DecisionCard = z.infer<typeof decisionCardSchema>;
export type DecisionCardIdentity = z.infer<typeof decisionCardIdentitySchema>;
export type DecisionCardTrust = z.infer<typeof decisionCardTrustSchema>;
export type DecisionCardActionability = z.infer<typeof decisionCardActionabilitySchema>;
export type OrderContract = z.infer<typeof orderContractSchema>;
export type DecisionCardCredential = z.infer<typeof decisionCardCredentialSchema>;
export type MerchantCluster = z.infer<typeof merchantClusterSchema>;
export type BrickItem = z.infer<typeof brickItemSchema>;
export type AbBrandVoice = z.infer<typeof abBrandVoiceSchema>;
