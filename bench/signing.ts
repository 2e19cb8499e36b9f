/**
 * Manifests signed per second: @noble/ed25519 (what the service uses) against node:crypto
 * (OpenSSL) on the same key and the same signing input, in the same run, plus the whole
 * `issueManifest` path (card assembly, canonical JSON, JWS) with each signer.
 *
 *   node bench/signing.ts [--seconds 2]
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { assessMerchant } from "../src/domain/assess-merchant.ts";
import type { MerchantProfile, Signal } from "../src/domain/merchant.ts";
import { setLogLevel } from "../src/logging.ts";
import { secretKeyFromPkcs8Pem, signBytes, verifyBytes } from "../src/signing/ed25519.ts";
import { decodeCompactJws } from "../src/signing/jws.ts";
import { createKeyStore, type JwsSigner } from "../src/signing/key-store.ts";
import { issueManifest } from "../src/signing/manifest.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "2" } } });
const seconds = Number(values.seconds);
setLogLevel("warn");

const NOW = new Date();
const signal = (key: string, source: Signal["source"], value: Signal["value"] = true): Signal => ({
  key,
  status: "verified",
  proofStatus: source === "official_api" ? "official_source_verified" : "machine_consistent",
  source,
  sourceUrl: null,
  value,
  verifiedAt: "2026-09-01T08:00:00.000Z",
  recordedAt: "2026-09-01T08:00:00.000Z",
  expiresAt: null,
});

const profile: MerchantProfile = {
  merchant: {
    abId: "ab_b3nchm4k",
    siret: "73282932000074",
    legalName: "BOULANGERIE DU PORT SARL",
    businessName: "Boulangerie du Port",
    slug: "boulangerie-du-port-la-rochelle",
    nafCode: "10.71C",
    nafCode2025: null,
    sector: "alimentation",
    status: "ACTIVE",
    rcs: "RCS La Rochelle 732 829 320",
    vatIntracom: "FR44732829320",
    street: "3 quai Duperré",
    postalCode: "17000",
    city: "La Rochelle",
    phone: "+33 5 46 00 00 00",
    email: "contact@boulangerie-du-port.example",
    website: "https://boulangerie-du-port.example",
    description: "Boulangerie artisanale sur le vieux port : pains au levain, viennoiseries et pâtisseries maison.",
    descriptionLlmUnreviewed: false,
    brandVoice: null,
    brandUpdatedAt: null,
    hours: { lundi: "07:00-19:00", mardi: "07:00-19:00", dimanche: "fermé" },
    hoursExceptions: [],
    timezone: "Europe/Paris",
    zones: ["17"],
    areasDeclaredAt: null,
    deliveryEnabled: false,
    deliveryRadiusKm: null,
    languages: ["fr", "en"],
    foundedOn: "2012-04-01",
    domainAgeYears: 8,
    listingRating: 4.7,
    listingReviewCount: 212,
    listingPhotosCount: 9,
    terrainPhotos: [],
    sameAs: ["https://annuaire-entreprises.data.gouv.fr/entreprise/732829320"],
    paymentSetup: false,
    closure: null,
    createdAt: "2025-01-10T10:00:00.000Z",
    updatedAt: "2026-10-02T10:00:00.000Z",
  },
  territorialProof: null,
  products: [],
  signals: [
    signal("siret_verified", "official_api"),
    signal("bodacc_clean", "official_api"),
    signal("rne_verified", "official_api"),
    signal("company_age_years", "official_api", 14),
    signal("alimconfiance_score", "official_api", 4),
    signal("listing_verified", "platform_observed"),
    signal("listing_rating", "platform_observed", 4.7),
    signal("website_present", "platform_observed"),
    signal("contact_email_verified", "platform_observed"),
  ],
  clusters: [],
};

/** Runs `work` for about `seconds`, returns operations per second. */
function rate(work: () => unknown): number {
  for (let warm = 0; warm < 200; warm++) work();
  let count = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    for (let batch = 0; batch < 50; batch++) work();
    count += 50;
  }
  return Math.round((count / (performance.now() - started)) * 1000);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-bench-signing-"));
try {
  const keys = createKeyStore({ dataDir });
  const { kid } = keys.activeKey();
  const privatePem = readFileSync(path.join(dataDir, "keys", `${kid}.private.pem`), "utf8");
  const nodeKey = createPrivateKey(privatePem);
  const nodePublic = createPublicKey(nodeKey);
  const secret = secretKeyFromPkcs8Pem(privatePem);
  const publicKey = new Uint8Array(Buffer.from(keys.activeKey().jwk.x, "base64url"));

  const assessment = assessMerchant(profile.merchant, profile.signals, { orderRailEnabled: false, now: NOW });
  const sample = issueManifest({
    profile,
    assessment,
    baseUrl: "https://abeille.example",
    now: NOW,
    kind: "live",
    signer: keys,
  });
  const { signingInput } = decodeCompactJws(sample.jws);
  const input = Buffer.from(signingInput);
  const nobleSignature = signBytes(signingInput, secret);
  const nodeSignature = nodeSign(null, input, nodeKey);
  if (!Buffer.from(nobleSignature).equals(nodeSignature)) throw new Error("noble and node:crypto signatures differ");

  // The same key through the key store, signing with node:crypto instead of noble.
  const nodeSigner: JwsSigner = createKeyStore({ dataDir }, { backend: "node" });
  const issueWith = (signer: JwsSigner) => () =>
    issueManifest({ profile, assessment, baseUrl: "https://abeille.example", now: NOW, kind: "live", signer });

  const rows: [string, number, number][] = [
    [
      "sign (signing input only)",
      rate(() => signBytes(signingInput, secret)),
      rate(() => nodeSign(null, input, nodeKey)),
    ],
    [
      "verify",
      rate(() => verifyBytes(nobleSignature, signingInput, publicKey)),
      rate(() => nodeVerify(null, input, nodePublic, nodeSignature)),
    ],
    ["issueManifest (card + JSON + JWS)", rate(issueWith(keys)), rate(issueWith(nodeSigner))],
  ];

  const width = Math.max(...rows.map(([label]) => label.length));
  const out = [
    `Ed25519 manifests, payload ${signingInput.length} bytes of signing input, ${seconds}s per figure, Node ${process.version}`,
    `${"operation".padEnd(width)}  ${"noble/s".padStart(9)}  ${"node:crypto/s".padStart(13)}  ratio`,
    ...rows.map(
      ([label, noble, node]) =>
        `${label.padEnd(width)}  ${String(noble).padStart(9)}  ${String(node).padStart(13)}  ${(node / noble).toFixed(1)}x`,
    ),
  ];
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
