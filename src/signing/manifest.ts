/**
 * The verification manifest: the signable parts of a merchant's decision card with an issue date,
 * an expiry and a nonce, signed as a compact JWS (DESIGN.md, "Trust and signing"). The signature
 * attests the integrity of what the registry published at `issued_at`, not the truth of each claim.
 *
 * `buildManifest` is pure (everything it needs is passed in); `issueManifest` adds the signature.
 * The route and the refresh job both call `issueManifest`, so a live answer and a snapshot file
 * differ only by kind, dates and nonce.
 */
import { randomBytes } from "node:crypto";
import type { Assessment } from "../domain/assess-merchant.ts";
import { canonicalJsonWith } from "../domain/canonical-json.ts";
import type { MerchantProfile } from "../domain/merchant.ts";
import { assembleDecisionCard, cardTexts } from "../domain/registry/decision-card.ts";
import type { MerchantRepository } from "../domain/registry/merchant-store.ts";
import { loadMerchant } from "../domain/registry/resolve-merchant.ts";
import { utf8Bytes } from "../domain/utf8.ts";
import { logger } from "../logging.ts";
import type { DecisionCard, DecisionCardDocument } from "../schemas/decision-card.ts";
import type { MerchantState } from "../schemas/envelope.ts";
import type { ManifestKind } from "../schemas/signing.ts";
import { base64url } from "./ed25519.ts";
import type { JwsSigner } from "./key-store.ts";
import { MANIFEST_CACHE_MAX_SECONDS, MANIFEST_LIFETIME_SECONDS } from "./policy.ts";

export const MANIFEST_VERSION = "abeille-manifest/v1";
export const MANIFEST_TYP = "abeille-manifest+jws";
export type { ManifestKind };

export interface Manifest {
  version: typeof MANIFEST_VERSION;
  /** The registry's base URL. */
  iss: string;
  /** The merchant, as in JWT usage (same as ab_id). */
  sub: string;
  ab_id: string;
  siret: string;
  kind: ManifestKind;
  issued_at: string;
  expires_at: string;
  /** issued_at and expires_at as NumericDate, so JWT-aware tools check the expiry themselves. */
  iat: number;
  exp: number;
  /** 128 random bits, base64url: no two manifests are alike, even within one second. */
  nonce: string;
  /** The decision card's content hash: ties the manifest to the card it was cut from. */
  content_hash: string;
  identity: DecisionCard["identity"];
  trust: DecisionCard["trust"];
  verification_capsule: DecisionCard["verification_capsule"];
  knowledge_capsule: DecisionCard["knowledge_capsule"];
  brand_capsule: DecisionCard["brand_capsule"];
  provenance: DecisionCard["provenance"];
}

export interface ManifestInput {
  profile: MerchantProfile;
  assessment: Assessment;
  baseUrl: string;
  /** Issue moment; truncated to the second. */
  now: Date;
  kind: ManifestKind;
  /** The decision card already assembled at `now` from the same profile (the refresh job has it); built otherwise. */
  card?: DecisionCardDocument;
  /** Default: 16 random bytes. Tests pass a fixed one. */
  nonce?: string;
}

export interface IssuedManifest {
  manifest: Manifest;
  /** The JWS payload: the canonical JSON of `manifest`. */
  payloadText: string;
  jws: string;
  kid: string;
  alg: "EdDSA";
}

const NONCE_BYTES = 16;
/**
 * Nonces are cut from random bytes drawn 4 KB at a time: one call into the CSPRNG per 256 nonces
 * instead of one each (the refresh job signs a manifest per merchant; each call cost 5-20 µs).
 * The bytes are the same CSPRNG's, each used once.
 */
let noncePool = Buffer.alloc(0);
let noncePoolOffset = 0;

export function newNonce(): string {
  if (noncePoolOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(256 * NONCE_BYTES);
    noncePoolOffset = 0;
  }
  const nonce = noncePool.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES);
  noncePoolOffset += NONCE_BYTES;
  return base64url(nonce);
}

/** The manifest payload (pure). */
export function buildManifest(input: ManifestInput): Manifest {
  const issuedMs = issueSecond(input.now).getTime();
  const lifetime = MANIFEST_LIFETIME_SECONDS[input.kind];
  const issuedAt = new Date(issuedMs).toISOString();
  const expiresAt = new Date(issuedMs + lifetime * 1000).toISOString();
  const signed = cardOf(input).decision_card;
  const { merchant } = input.profile;
  return {
    version: MANIFEST_VERSION,
    iss: input.baseUrl,
    sub: merchant.abId,
    ab_id: merchant.abId,
    siret: merchant.siret,
    kind: input.kind,
    issued_at: issuedAt,
    expires_at: expiresAt,
    iat: issuedMs / 1000,
    exp: issuedMs / 1000 + lifetime,
    nonce: input.nonce ?? newNonce(),
    content_hash: signed.content_hash,
    identity: signed.identity,
    trust: signed.trust,
    verification_capsule: signed.verification_capsule,
    knowledge_capsule: signed.knowledge_capsule,
    brand_capsule: signed.brand_capsule,
    provenance: { ...signed.provenance, manifest_generated_at: issuedAt },
  };
}

/** The decision card a manifest is cut from: the one given, or assembled at the issue second. */
function cardOf(input: ManifestInput): DecisionCardDocument {
  return (
    input.card ??
    assembleDecisionCard(input.profile, input.assessment, {
      baseUrl: input.baseUrl,
      // Only order_contract depends on the rail, and it is not signed; the assessment already knows.
      orderRailEnabled: !input.assessment.capabilities.state.blocked_because.includes("order_rail_disabled"),
      now: issueSecond(input.now),
    })
  );
}

/** A manifest is issued at a whole second (its dates carry no milliseconds, iat and exp are seconds). */
function issueSecond(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}

/**
 * Builds and signs a manifest. The JWS payload is the canonical JSON of `manifest` (sorted keys,
 * see canonical-json.ts), so `manifest` is exactly the payload decoded and anyone can recompute
 * the bytes from it.
 */
export function issueManifest(input: ManifestInput & { signer: JwsSigner }): IssuedManifest {
  const card = cardOf(input);
  const manifest = buildManifest({ ...input, card });
  // The capsules are the card's own objects: their canonical texts were computed for its hash.
  const payloadText = canonicalJsonWith(
    manifest as unknown as Record<string, unknown>,
    cardTexts(card.decision_card).byObject,
  );
  const signed = input.signer.signJws(utf8Bytes(payloadText), {
    typ: MANIFEST_TYP,
    expiresAt: new Date(manifest.expires_at),
  });
  return { manifest, payloadText, jws: signed.jws, kid: signed.kid, alg: signed.alg };
}

/** What the manifest route and the snapshot file carry as `data`: the manifest, its JWS, key id and algorithm. */
export function manifestAnswer(issued: IssuedManifest): Pick<IssuedManifest, "manifest" | "jws" | "kid" | "alg"> {
  return { manifest: issued.manifest, jws: issued.jws, kid: issued.kid, alg: issued.alg };
}

/** Seconds a cache may keep an answer carrying this manifest: at most 300 and never past expiry. */
export function manifestMaxAgeSeconds(expiresAt: string, now: Date): number {
  const remaining = Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000);
  return Math.max(0, Math.min(MANIFEST_CACHE_MAX_SECONDS, remaining));
}

/** The Cache-Control value for an answer carrying this manifest (route and static files alike). */
export function manifestCacheControl(expiresAt: string, now: Date): string {
  const maxAge = manifestMaxAgeSeconds(expiresAt, now);
  return maxAge > 0 ? `public, max-age=${maxAge}` : "no-store";
}

export interface MerchantManifestDeps {
  merchants: MerchantRepository;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
  signer: JwsSigner;
}

/**
 * A fresh manifest for one listed merchant (404 for unknown and archived ones), with the merchant's
 * `_state`: what `GET /api/registry/verify/{ab_id}` answers.
 */
export async function issueMerchantManifest(
  deps: MerchantManifestDeps,
  abId: string,
  kind: ManifestKind,
): Promise<{ issued: IssuedManifest; state: MerchantState; now: Date }> {
  // One reading of the clock for the assessment, the card and the manifest's dates.
  const now = deps.now();
  const { profile, assessment } = await loadMerchant({ ...deps, now: () => now }, abId);
  const card = assembleDecisionCard(profile, assessment, {
    baseUrl: deps.baseUrl,
    orderRailEnabled: deps.orderRailEnabled,
    now,
  });
  const issued = issueManifest({ profile, assessment, baseUrl: deps.baseUrl, now, kind, card, signer: deps.signer });
  // The generation time is in the manifest (issued_at, provenance.manifest_generated_at) and this trace.
  logger.debug("manifest issued", { ab_id: abId, kid: issued.kid, kind, issued_at: issued.manifest.issued_at });
  return { issued, state: assessment.capabilities.state, now };
}
