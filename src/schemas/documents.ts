import { z } from "zod";
import { abIdSchema, uuidSchema } from "./common.ts";
import { clusterNodeSchema as decisionCardClusterNodeSchema, leadContractFieldSchema } from "./decision-card.ts";
import { merchantStatusSchema } from "./envelope.ts";
import { merchantSourceSchema, trustBreakdownSchema, trustLevelSchema } from "./registry.ts";

/*
 * The merchant documents of src/publish/: the AI digest (`data` of GET /api/merchants/{ab_id}/ai-digest),
 * the Q&A cluster list and one cluster. Types are inferred from these schemas; tests check the
 * renderers' output against them.
 */

export const AI_DIGEST_VERSION = "abeille-ai-digest/v1";

const timestamp = z.iso.datetime({ offset: true });
const leadTypeSchema = z.enum(["estimation", "contact", "rdv", "quote"]);

export const clusterParamsSchema = z.object({
  cluster_id: uuidSchema.meta({ description: "The Q&A cluster's id (a UUID), from the merchant's cluster list" }),
});

const digestJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("trade"),
    job: z.string(),
    keywords: z.array(z.string()),
    lead_type: leadTypeSchema,
  }),
  z.object({
    kind: z.literal("product"),
    job: z.string(),
    description_short: z.string(),
    price: z
      .string()
      .meta({ description: "As a French reader would read it: 120,00 €, à partir de 45,00 €, sur devis" }),
    price_cents: z.number().int().nullable(),
    currency: z.string(),
    pricing_model: z.string(),
    product_id: uuidSchema,
    brick_id: z.string(),
    tags: z.array(z.string()),
    lead_type: leadTypeSchema,
  }),
]);

export const aiDigestSchema = z
  .object({
    version: z.literal(AI_DIGEST_VERSION),
    ab_id: abIdSchema,
    generated_at: timestamp.meta({ description: "When the content last changed (source update or calendar instant)" }),
    identity: z.object({
      name: z.string(),
      legal_name: z.string(),
      trade: z.string(),
      schema_org_type: z.string(),
      sector: z.string(),
      sector_label: z.string(),
      siret: z.string().regex(/^\d{14}$/),
      siren: z.string().regex(/^\d{9}$/),
      naf_code: z.string(),
      address: z.string(),
      postal_code: z.string(),
      city: z.string(),
      latitude: z.number().nullable(),
      longitude: z.number().nullable(),
      phone: z.string().nullable(),
      email: z
        .string()
        .nullable()
        .meta({ description: "Only a role mailbox on the merchant's own domain; null otherwise" }),
      website: z.string().nullable(),
      merchant_status: merchantStatusSchema,
      languages: z.array(z.string()),
      zones: z.array(z.string()),
      founded_on: z.string(),
      years_in_business: z.number().int().min(0),
      description: z.string().nullable(),
      description_status: z.enum(["merchant_reviewed", "pending_merchant_review", "none"]),
    }),
    jobs_to_be_done: z.array(digestJobSchema),
    trust: z.object({
      score: z.number().int().min(0).max(100),
      level: trustLevelSchema,
      breakdown: trustBreakdownSchema,
      reasons: z.array(z.string()),
      verified_evidence_count: z.number().int().min(0),
      official_source_count: z.number().int().min(0),
      can_contact: z.boolean(),
      can_order: z.boolean(),
      blocked_because: z.array(z.string()),
    }),
    credentials: z
      .array(
        z.object({
          key: z.string(),
          label: z.string(),
          proof_status: z.enum(["official_source_verified", "machine_consistent", "merchant_declared"]),
          component: z.enum(["experience", "expertise", "authority", "trust"]),
          points: z.number().int().min(0),
          verified_at: z.string().nullable(),
          expires_at: z.string().nullable(),
          evidence_url: z.url().nullable(),
        }),
      )
      .meta({ description: "Verified, unexpired signals: what the trust score rests on" }),
    sources: z.array(merchantSourceSchema).meta({
      description:
        "The official sources that speak for the merchant (merchant.sources, as resolve and the decision card give them)",
    }),
    other_signals: z.array(z.object({ key: z.string(), status: z.enum(["unverified", "failed", "expired"]) })),
    citable_snippets: z.array(z.object({ text: z.string(), url: z.url() })),
    contact: z.object({
      can_contact: z.boolean(),
      blocked_because: z.array(z.string()),
      endpoint: z.url(),
      method: z.literal("POST"),
      content_type: z.literal("application/json"),
      required_fields: z.array(z.string()),
      optional_fields: z.array(z.string()),
      lead_types: z.array(leadTypeSchema),
      sector_fields: z.array(leadContractFieldSchema),
      sector_fields_path: z.literal("metadata"),
      example_payload: z.record(z.string(), z.unknown()),
    }),
    links: z.object({
      microsite: z.url(),
      ai_md: z.url(),
      jsonld: z.url(),
      decision_card: z.url(),
      clusters: z.url(),
      resolve: z.url(),
      manifest: z.url(),
      snapshot_manifest: z.url(),
      jwks: z.url(),
    }),
  })
  .meta({ id: "AiDigest" });
export type AiDigest = z.infer<typeof aiDigestSchema>;

export const clusterSummarySchema = z
  .object({
    cluster_id: uuidSchema,
    label: z.string(),
    type: z.string(),
    scope: z.enum(["merchant", "brick"]),
    brick_id: z.string().nullable(),
    node_count: z.number().int().min(0),
    url: z.url(),
  })
  .meta({ id: "ClusterSummary" });

export const clusterListSchema = z
  .object({
    ab_id: abIdSchema,
    clusters: z.array(clusterSummarySchema),
  })
  .meta({ id: "ClusterList" });
export type ClusterList = z.infer<typeof clusterListSchema>;

/** A Q&A node of the cluster documents: the decision card's node and its confidence. */
export const clusterNodeSchema = decisionCardClusterNodeSchema
  .extend({ confidence: z.enum(["declared", "observed", "verified"]) })
  .meta({ id: "ClusterNode" });

export const clusterVerificationSchema = z
  .object({
    status: z.enum(["human_verified", "partially_human_verified", "unverified", "empty"]),
    node_count: z.number().int().min(0),
    by_verification_level: z.record(z.string(), z.number().int().min(0)),
    by_fact_level: z.record(z.string(), z.number().int().min(0)),
    by_confidence: z.object({
      verified: z.number().int().min(0),
      observed: z.number().int().min(0),
      declared: z.number().int().min(0),
    }),
    human_verified_count: z.number().int().min(0).meta({
      description: "Answers a reviewer verified (human_verified); the merchant's own readings are not counted here",
    }),
    merchant_reviewed_count: z.number().int().min(0).meta({
      description: "Answers the merchant read and vouched for or corrected (merchant_reviewed): the merchant's word",
    }),
    edited_by_merchant_count: z.number().int().min(0),
    grounded_count: z.number().int().min(0),
    drift_count: z.number().int().min(0),
    last_human_verified_at: z.string().nullable(),
  })
  .meta({ id: "ClusterVerification" });

export const clusterDocumentSchema = z
  .object({
    cluster_id: uuidSchema,
    ab_id: abIdSchema,
    label: z.string(),
    type: z.string(),
    scope: z.enum(["merchant", "brick"]),
    brick_id: z.string().nullable(),
    updated_at: z.string(),
    node_count: z.number().int().min(0),
    nodes: z.array(clusterNodeSchema),
    verification: clusterVerificationSchema,
  })
  .meta({ id: "ClusterDocument" });
export type ClusterDocument = z.infer<typeof clusterDocumentSchema>;
