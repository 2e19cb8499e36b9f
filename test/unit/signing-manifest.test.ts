import { createPublicKey, verify as nodeVerify } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { canonicalJson } from "../../src/domain/canonical-json.ts";
import type { MerchantProfile, Signal } from "../../src/domain/merchant.ts";
import { assembleDecisionCard } from "../../src/domain/registry/decision-card.ts";
import { setLogLevel } from "../../src/logging.ts";
import { buildPublishedDecisionCard } from "../../src/publish/decision-card.ts";
import { snapshotIssuer } from "../../src/publish/snapshot.ts";
import { manifestSchema } from "../../src/schemas/signing.ts";
import { decodeCompactJws } from "../../src/signing/jws.ts";
import { createKeyStore, type KeyStore } from "../../src/signing/key-store.ts";
import {
  buildManifest,
  issueManifest,
  MANIFEST_TYP,
  manifestCacheControl,
  manifestMaxAgeSeconds,
  newNonce,
} from "../../src/signing/manifest.ts";

import { view as publishView, tourismProfile } from "./publish-fixtures.ts";

const BASE = "https://abeille.example";
const AB_ID = "ab_k3m9x2qa";
const NOW = new Date("2026-11-01T10:00:00.250Z");

function signal(key: string, overrides: Partial<Signal> = {}): Signal {
  return {
    key,
    status: "verified",
    proofStatus: "official_source_verified",
    source: "official_api",
    sourceUrl: null,
    value: true,
    verifiedAt: "2026-09-01T08:00:00.000Z",
    recordedAt: "2026-09-01T08:00:00.000Z",
    expiresAt: null,
    ...overrides,
  };
}

function profile(): MerchantProfile {
  return {
    merchant: {
      abId: AB_ID,
      siret: "73282932000074",
      legalName: "BOULANGERIE DU PORT SARL",
      businessName: "Boulangerie du Port",
      slug: "boulangerie-du-port-la-rochelle",
      nafCode: "10.71C",
      nafCode2025: null,
      sector: "alimentation",
      status: "ACTIVE",
      rcs: null,
      vatIntracom: null,
      street: "3 quai Duperré",
      postalCode: "17000",
      city: "La Rochelle",
      phone: "+33 5 46 00 00 00",
      email: "contact@boulangerie-du-port.example",
      website: "https://boulangerie-du-port.example",
      description: "Boulangerie artisanale sur le vieux port.",
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      brandUpdatedAt: null,
      hours: { lundi: "07:00-19:00" },
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones: ["17"],
      areasDeclaredAt: null,
      deliveryEnabled: false,
      deliveryRadiusKm: null,
      languages: ["fr"],
      foundedOn: "2012-04-01",
      domainAgeYears: 8,
      listingRating: 4.7,
      listingReviewCount: 212,
      listingPhotosCount: 9,
      terrainPhotos: [],
      sameAs: [],
      paymentSetup: false,
      closure: null,
      createdAt: "2025-01-10T10:00:00.000Z",
      updatedAt: "2026-10-02T10:00:00.000Z",
    },
    territorialProof: null,
    products: [],
    signals: [
      signal("siret_verified"),
      signal("bodacc_clean"),
      signal("alimconfiance_score", { value: 4 }),
      signal("listing_verified", { source: "platform_observed", proofStatus: "machine_consistent" }),
    ],
    clusters: [],
  };
}

let dataDir: string;
let keys: KeyStore;
beforeAll(() => {
  setLogLevel("warn");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-manifest-"));
  keys = createKeyStore({ dataDir }, { now: () => NOW, reloadIntervalMs: 0 });
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function issue(kind: "live" | "snapshot" = "live", now = NOW) {
  const merchant = profile();
  const assessment = assessMerchant(merchant.merchant, merchant.signals, { orderRailEnabled: false, now });
  return issueManifest({ profile: merchant, assessment, baseUrl: BASE, now, kind, signer: keys });
}

describe("buildManifest", () => {
  it("carries the identity, dates, nonce and every signable part of the decision card", () => {
    const merchant = profile();
    const assessment = assessMerchant(merchant.merchant, merchant.signals, { orderRailEnabled: false, now: NOW });
    const card = assembleDecisionCard(merchant, assessment, { baseUrl: BASE, orderRailEnabled: false, now: NOW });
    const manifest = buildManifest({ profile: merchant, assessment, baseUrl: BASE, now: NOW, kind: "live" });
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(manifest).toMatchObject({
      version: "abeille-manifest/v1",
      iss: BASE,
      sub: AB_ID,
      ab_id: AB_ID,
      siret: "73282932000074",
      kind: "live",
      issued_at: "2026-11-01T10:00:00.000Z",
      expires_at: "2026-11-01T11:00:00.000Z",
      iat: Date.parse("2026-11-01T10:00:00.000Z") / 1000,
      exp: Date.parse("2026-11-01T11:00:00.000Z") / 1000,
      content_hash: card.decision_card.content_hash,
    });
    for (const part of ["identity", "trust", "verification_capsule", "knowledge_capsule", "brand_capsule"] as const) {
      expect(manifest[part]).toEqual(card.decision_card[part]);
    }
    expect(manifest.provenance).toEqual({
      ...card.decision_card.provenance,
      manifest_generated_at: manifest.issued_at,
    });
    expect(manifest.provenance.signable_fields).toEqual([
      "identity",
      "trust",
      "verification_capsule",
      "knowledge_capsule",
      "brand_capsule",
      "provenance",
    ]);
    expect(manifest.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("expires live manifests after one hour and snapshots after 86400 seconds", () => {
    const merchant = profile();
    const assessment = assessMerchant(merchant.merchant, merchant.signals, { orderRailEnabled: false, now: NOW });
    const live = buildManifest({ profile: merchant, assessment, baseUrl: BASE, now: NOW, kind: "live" });
    const snapshot = buildManifest({ profile: merchant, assessment, baseUrl: BASE, now: NOW, kind: "snapshot" });
    expect(Date.parse(live.expires_at) - Date.parse(live.issued_at)).toBe(3600_000);
    expect(Date.parse(snapshot.expires_at) - Date.parse(snapshot.issued_at)).toBe(86_400_000);
    expect(snapshot.kind).toBe("snapshot");
  });

  it("draws a new nonce on every call", () => {
    const nonces = new Set(Array.from({ length: 50 }, () => issue().manifest.nonce));
    expect(nonces.size).toBe(50);
  });

  it("never hands out the same nonce twice, across the random pool's refills (256 nonces a draw)", () => {
    const nonces = Array.from({ length: 1_000 }, () => newNonce());
    expect(new Set(nonces).size).toBe(1_000);
    expect(nonces.every((nonce) => /^[A-Za-z0-9_-]{22}$/.test(nonce))).toBe(true);
  });
});

describe("issueManifest", () => {
  it("produces a compact JWS that jose verifies against the key set, whose payload is the manifest", async () => {
    const issued = issue();
    expect(issued.alg).toBe("EdDSA");
    expect(decodeProtectedHeader(issued.jws)).toEqual({ alg: "EdDSA", kid: issued.kid, typ: MANIFEST_TYP });
    const { payload } = await compactVerify(issued.jws, createLocalJWKSet(keys.jwks()), { algorithms: ["EdDSA"] });
    const text = new TextDecoder().decode(payload);
    expect(text).toBe(canonicalJson(issued.manifest));
    expect(issued.payloadText).toBe(text);
    expect(JSON.parse(text)).toEqual(issued.manifest);
  });

  it("prints the published snapshot's manifest byte for byte as its JWS payload", async () => {
    const now = new Date("2026-05-18T10:00:00.000Z");
    const merchantView = publishView(tourismProfile(), { now });
    const card = buildPublishedDecisionCard(merchantView);
    const issued = snapshotIssuer(keys)(merchantView, card, now);
    const body = issued.document.body.toString("utf8");
    const data = (JSON.parse(body) as { data: { jws: string; manifest: unknown } }).data;
    const { payload } = await compactVerify(data.jws, createLocalJWKSet(keys.jwks()), { algorithms: ["EdDSA"] });
    const payloadText = new TextDecoder().decode(payload);
    expect(body.startsWith(`{"success":true,"data":{"manifest":${payloadText},"jws":"${data.jws}",`)).toBe(true);
    expect(payloadText).toBe(canonicalJson(data.manifest));
    // Cut from the published card: the capsules are the card's, the hash is the card's.
    expect(data.manifest).toMatchObject({
      content_hash: card.decision_card.content_hash,
      identity: card.decision_card.identity,
      verification_capsule: card.decision_card.verification_capsule,
    });
  });

  it("verifies with node:crypto from the published JWK alone", () => {
    const issued = issue("snapshot");
    const jwk = keys.jwks().keys.find((key) => key.kid === issued.kid);
    if (!jwk) throw new Error("the signing key is not in the key set");
    const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
    const { signingInput, signature } = decodeCompactJws(issued.jws);
    expect(nodeVerify(null, signingInput, publicKey, signature)).toBe(true);
  });

  it("is rejected by jose once a single claim of the payload is changed", async () => {
    const issued = issue();
    const [header, , signature] = issued.jws.split(".");
    const tampered = { ...issued.manifest, trust: { ...issued.manifest.trust, score: 100 } };
    const forged = `${header}.${Buffer.from(canonicalJson(tampered)).toString("base64url")}.${signature}`;
    await expect(compactVerify(forged, createLocalJWKSet(keys.jwks()), { algorithms: ["EdDSA"] })).rejects.toThrow(
      /signature verification failed/,
    );
    const { signingInput, signature: raw } = decodeCompactJws(forged);
    const jwk = keys.jwks().keys[0];
    if (!jwk) throw new Error("empty key set");
    const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
    expect(nodeVerify(null, signingInput, publicKey, raw)).toBe(false);
  });
});

describe("manifest cache lifetime", () => {
  it("caps max-age at 300 seconds and never lets it pass the expiry", () => {
    const expires = "2026-11-01T11:00:00.000Z";
    expect(manifestMaxAgeSeconds(expires, new Date("2026-11-01T10:00:00.000Z"))).toBe(300);
    expect(manifestMaxAgeSeconds(expires, new Date("2026-11-01T10:58:00.000Z"))).toBe(120);
    expect(manifestMaxAgeSeconds(expires, new Date("2026-11-01T10:59:59.500Z"))).toBe(0);
    expect(manifestCacheControl(expires, new Date("2026-11-01T10:58:00.000Z"))).toBe("public, max-age=120");
    expect(manifestCacheControl(expires, new Date("2026-11-01T12:00:00.000Z"))).toBe("no-store");
  });
});
