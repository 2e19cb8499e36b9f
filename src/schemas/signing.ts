import { z } from "zod";
import { EVIDENCE_SIGNALS, SIGNAL_SOURCES } from "../domain/trust/signal-catalog.ts";
import { abIdSchema, queryBoolean } from "./common.ts";

/*
 * Signing keys, the public key set, the verification manifest and evidence pages: the on-disk key
 * index (parsed on every read, so a hand-edited file fails loudly), request parameters and the
 * response payloads.
 */

const base64url43 = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be 43 base64url characters (32 bytes)");
/** A key id: the RFC 7638 thumbprint, 43 base64url characters (so it may start with `-`). */
export const kidSchema = base64url43;
const timestamp = z.iso.datetime({ offset: true });

// --- the key index (DATA_DIR/keys/index.json): public metadata only, never a private part

export const keyRecordSchema = z.strictObject({
  kid: base64url43,
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: base64url43,
  created_at: timestamp,
  /** The key is published from creation and signs from this moment. */
  activates_at: timestamp,
  /** From this moment the key signs no more (set by `retire`, or by `rotate` at its successor's activation). */
  retired_at: timestamp.nullable(),
  /** The key whose activation retires this one (set by `rotate`; a retired successor cancels it). */
  superseded_by: base64url43.nullable(),
  /**
   * Upper bound of `expires_at` over every manifest this key signed, written before it signs
   * (see key-store.ts): the key stays in the key set until then.
   */
  not_after: timestamp.nullable(),
});
export type KeyRecord = z.infer<typeof keyRecordSchema>;

export const keyIndexSchema = z.strictObject({
  version: z.literal(1),
  keys: z.array(keyRecordSchema),
});
export type KeyIndex = z.infer<typeof keyIndexSchema>;

// --- the public key set (RFC 7517) and the legacy single key

export const publicJwkSchema = z
  .strictObject({
    kty: z.literal("OKP"),
    crv: z.literal("Ed25519"),
    x: base64url43,
    kid: base64url43,
    use: z.literal("sig"),
    alg: z.literal("EdDSA"),
  })
  .meta({ id: "PublicJwk", description: "An Ed25519 public key (RFC 8037); kid is its RFC 7638 thumbprint" });
export type PublicJwk = z.infer<typeof publicJwkSchema>;

export const jwksSchema = z
  .strictObject({ keys: z.array(publicJwkSchema) })
  .meta({ id: "Jwks", description: "RFC 7517 key set: every key that may have signed an unexpired manifest" });
export type Jwks = z.infer<typeof jwksSchema>;

export const publicKeyDataSchema = z
  .object({
    kid: base64url43,
    alg: z.literal("EdDSA"),
    jwk: publicJwkSchema,
    pem: z.string().meta({ description: "SubjectPublicKeyInfo PEM" }),
  })
  .meta({ id: "PublicKey" });
export type PublicKeyData = z.infer<typeof publicKeyDataSchema>;

// --- the verification manifest

export const MANIFEST_KINDS = ["live", "snapshot"] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

export const manifestQuerySchema = z.object({
  snapshot: queryBoolean.meta({
    description: "true or 1: a snapshot manifest valid 24 hours (cacheable) instead of one signed for this call",
  }),
});

export const manifestSchema = z
  .looseObject({
    version: z.literal("abeille-manifest/v1"),
    iss: z.string(),
    sub: abIdSchema,
    ab_id: abIdSchema,
    siret: z.string().regex(/^\d{14}$/),
    kind: z.enum(MANIFEST_KINDS),
    issued_at: timestamp,
    expires_at: timestamp,
    iat: z.number().int(),
    exp: z.number().int(),
    nonce: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
    content_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    identity: z.looseObject({}),
    trust: z.looseObject({}),
    verification_capsule: z.looseObject({}),
    knowledge_capsule: z.looseObject({}),
    brand_capsule: z.looseObject({}).nullable(),
    provenance: z.looseObject({}),
  })
  .meta({ id: "VerificationManifest", description: "The JWS payload, decoded" });

export const manifestDataSchema = z
  .object({
    manifest: manifestSchema,
    jws: z.string().meta({ description: "Compact JWS (RFC 7515), EdDSA, header typ abeille-manifest+jws" }),
    kid: base64url43,
    alg: z.literal("EdDSA"),
  })
  .meta({ id: "SignedManifest" });

// --- evidence pages

export const evidenceSignalSchema = z.enum(EVIDENCE_SIGNALS);

/**
 * The evidence page's path: any signal name parses (an unknown one answers 404 NOT_FOUND naming
 * the valid ones, as an unknown path does), and the document still lists them as its enum.
 */
export const evidenceParamsSchema = z.object({
  signal: z.string().meta({ enum: [...EVIDENCE_SIGNALS], description: "One of the evidence signals" }),
  ab_id: abIdSchema.meta({ description: "The merchant whose evidence to show" }),
});

export const EVIDENCE_STATUSES = ["verified", "unverified", "failed", "expired", "not_applicable"] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

export const evidenceDataSchema = z
  .object({
    signal: evidenceSignalSchema,
    label: z.string(),
    ab_id: abIdSchema,
    status: z.enum(EVIDENCE_STATUSES),
    proof_status: z.enum(["official_source_verified", "machine_consistent", "merchant_declared"]).nullable(),
    source: z.enum(SIGNAL_SOURCES),
    source_url: z.string().nullable(),
    verified_at: timestamp.nullable(),
    recorded_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    value: z.union([z.number(), z.string(), z.boolean()]).nullable(),
    value_withheld: z.boolean().meta({ description: "true when the value is personal data and not shown" }),
    notice: z
      .object({
        id: z.string().meta({ description: "The notice's identifier in its source (BODACC: A202600521234)" }),
        published_on: z.string().meta({ description: "Publication date (YYYY-MM-DD)" }),
        kind: z
          .string()
          .meta({ description: "collective (insolvency proceeding), radiation (deregistration) or sale" }),
        label: z.string().meta({ description: "The notice's official wording" }),
        decided_on: z.string().nullable().meta({ description: "Date of the judgment or act announced (YYYY-MM-DD)" }),
        court: z.string().nullable(),
        url: z.string().nullable(),
      })
      .nullable()
      .meta({ description: "The official notice the status rests on (a BODACC announcement for bodacc_clean)" }),
    applies_to: z.array(z.string()).nullable().meta({ description: "Sector families; null for every sector" }),
    contribution: z.object({
      component: z.enum(["experience", "expertise", "authority", "trust"]),
      rule: z.string(),
      points: z.number().int().meta({ description: "Points the rule gives, before the component cap" }),
      counted: z.number().int().meta({ description: "Points added to the component after the cap of 25" }),
    }),
    explanation: z.string(),
  })
  .meta({ id: "SignalEvidence" });
export type EvidenceData = z.infer<typeof evidenceDataSchema>;
