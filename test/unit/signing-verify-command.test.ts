import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assessMerchant } from "../../src/domain/assess-merchant.ts";
import { canonicalJson } from "../../src/domain/canonical-json.ts";
import type { MerchantProfile } from "../../src/domain/merchant.ts";
import { setLogLevel } from "../../src/logging.ts";
import { createKeyStore, type KeyStore } from "../../src/signing/key-store.ts";
import { type IssuedManifest, issueManifest } from "../../src/signing/manifest.ts";

const BASE = "https://abeille.example";

function profile(): MerchantProfile {
  return {
    merchant: {
      abId: "ab_v3r1fy00",
      siret: "73282932000074",
      legalName: "GARAGE CENTRAL SAS",
      businessName: "Garage Central",
      slug: "garage-central-tours",
      nafCode: "45.20A",
      nafCode2025: null,
      sector: "automobile",
      status: "ACTIVE",
      rcs: null,
      vatIntracom: null,
      street: "8 rue Nationale",
      postalCode: "37000",
      city: "Tours",
      phone: null,
      email: "atelier@garage-central.example",
      website: null,
      description: null,
      descriptionLlmUnreviewed: false,
      brandVoice: null,
      brandUpdatedAt: null,
      hours: null,
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones: [],
      areasDeclaredAt: null,
      deliveryEnabled: false,
      deliveryRadiusKm: null,
      languages: ["fr"],
      foundedOn: "2001-01-15",
      domainAgeYears: null,
      listingRating: null,
      listingReviewCount: null,
      listingPhotosCount: 0,
      terrainPhotos: [],
      sameAs: [],
      paymentSetup: false,
      closure: null,
      createdAt: "2025-01-10T10:00:00.000Z",
      updatedAt: "2026-10-02T10:00:00.000Z",
    },
    territorialProof: null,
    products: [],
    signals: [],
    clusters: [],
  };
}

let dir: string;
let keys: KeyStore;

function issue(now: Date, kind: "live" | "snapshot" = "live"): IssuedManifest {
  const merchant = profile();
  const assessment = assessMerchant(merchant.merchant, merchant.signals, { orderRailEnabled: false, now });
  return issueManifest({ profile: merchant, assessment, baseUrl: BASE, now, kind, signer: keys });
}

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["jobs/verify-manifest.ts", ...args],
      { env: { ...process.env, LOG_LEVEL: "silent" } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let jwksFile: string;
beforeAll(() => {
  setLogLevel("warn");
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-verify-"));
  keys = createKeyStore({ dataDir: dir }, { reloadIntervalMs: 0 });
  jwksFile = write("jwks.json", keys.jwks());
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run verify-manifest", () => {
  it("exits 0 on a valid envelope and prints the verdict, kid, ab_id and expiry", async () => {
    const issued = issue(new Date(), "snapshot");
    const file = write("envelope.json", { success: true, data: issued, _meta: {} });
    const { code, stdout } = await run(file, "--jwks", jwksFile);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^VALID/);
    expect(stdout).toContain(issued.kid);
    expect(stdout).toContain("ab_v3r1fy00");
    expect(stdout).toContain(issued.manifest.expires_at);
  }, 30_000);

  it("exits 0 on a bare compact JWS", async () => {
    const { code } = await run(write("bare.jws", `${issue(new Date()).jws}\n`), "--jwks", jwksFile);
    expect(code).toBe(0);
  }, 30_000);

  it("exits 1 when the payload was changed after signing", async () => {
    const issued = issue(new Date());
    const [header, , signature] = issued.jws.split(".");
    const forged = { ...issued.manifest, ab_id: "ab_0therone" };
    const jws = `${header}.${Buffer.from(canonicalJson(forged)).toString("base64url")}.${signature}`;
    const { code, stdout } = await run(write("tampered.jws", jws), "--jwks", jwksFile);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^INVALID: the signature does not verify/);
  }, 30_000);

  it("exits 1 when the envelope's manifest differs from the signed one", async () => {
    const issued = issue(new Date());
    const envelope = { data: { ...issued, manifest: { ...issued.manifest, siret: "00000000000000" } } };
    const { code, stdout } = await run(write("altered.json", envelope), "--jwks", jwksFile);
    expect(code).toBe(1);
    expect(stdout).toMatch(/data\.manifest differs/);
  }, 30_000);

  it("exits 1 on an expired manifest", async () => {
    // Dated two hours ago (the key store still signs with the key active now).
    const issued = issue(new Date(Date.now() - 2 * 3600_000));
    const { code, stdout } = await run(write("expired.json", issued), "--jwks", jwksFile);
    expect(code).toBe(1);
    expect(stdout).toMatch(/expired at/);
  }, 30_000);

  it("exits 1 when the key set lacks the signing key", async () => {
    const other = write("other-jwks.json", { keys: [] });
    const { code, stdout } = await run(write("valid.json", issue(new Date())), "--jwks", other);
    expect(code).toBe(1);
    expect(stdout).toMatch(/no key in the key set/);
  }, 30_000);

  it("exits 2 when a file is given without a key set", async () => {
    const { code, stderr } = await run(write("alone.json", issue(new Date())));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--jwks/);
  }, 30_000);
});
