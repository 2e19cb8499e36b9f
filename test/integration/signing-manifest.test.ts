import { execFile } from "node:child_process";
import { createPublicKey, verify as nodeVerify } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { compactVerify, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 80 });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

async function keySet(): Promise<JsonObject> {
  const { status, body } = await server.getJson("/.well-known/ab-public-keys.json");
  expect(status).toBe(200);
  return body;
}

async function manifest(abId: string, query = ""): Promise<{ status: number; headers: Headers; body: JsonObject }> {
  return server.getJson(`/api/registry/verify/${abId}${query}`);
}

function runNode(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent" } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("GET /api/registry/verify/{ab_id}", () => {
  it("answers a signed manifest in the envelope, verified by jose against the served key set", async () => {
    const abId = first("active_contactable");
    const { status, headers, body } = await manifest(abId);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expectMeta(body);
    const { manifest: signed, jws, kid, alg } = body.data;
    expect(alg).toBe("EdDSA");
    expect(decodeProtectedHeader(jws)).toEqual({ alg: "EdDSA", kid, typ: "abeille-manifest+jws" });
    const { payload } = await compactVerify(jws, createLocalJWKSet((await keySet()) as never), {
      algorithms: ["EdDSA"],
    });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(signed);
    expect(signed).toMatchObject({ ab_id: abId, sub: abId, iss: TEST_BASE_URL, kind: "live" });
    expect(signed.siret).toMatch(/^\d{14}$/);
    expect(signed.provenance.signable_fields).toEqual([
      "identity",
      "trust",
      "verification_capsule",
      "knowledge_capsule",
      "brand_capsule",
      "provenance",
    ]);
    for (const part of signed.provenance.signable_fields) expect(part in signed).toBe(true);
    expect(signed.provenance.manifest_generated_at).toBe(signed.issued_at);
    expect(Math.abs(Date.parse(signed.issued_at) - Date.now())).toBeLessThan(60_000);
    expect(body._state.trust_score).toBe(signed.trust.score);
    expect(body._links.jwks).toBe(`${TEST_BASE_URL}/.well-known/ab-public-keys.json`);
    const rels = body._actions.map((item: JsonObject) => item.rel);
    expect(rels).toEqual(expect.arrayContaining(["jwks", "evidence", "decision_card", "snapshot"]));
    expect(headers.get("cache-control")).toBe("public, max-age=300");
    expect(headers.get("last-modified")).toBe(new Date(signed.issued_at).toUTCString());
  });

  it("checks out with jose's remote key set and JWT rules (exp in the future, typ)", async () => {
    const { body } = await manifest(first("active_contactable"));
    const remote = createRemoteJWKSet(new URL(`${server.url}/.well-known/ab-public-keys.json`));
    const { payload } = await jwtVerify(body.data.jws, remote, { typ: "abeille-manifest+jws", algorithms: ["EdDSA"] });
    expect(payload.exp).toBe(Date.parse(body.data.manifest.expires_at) / 1000);
  });

  it("verifies with node:crypto from the published JWK, and a tampered payload does not", async () => {
    const { body } = await manifest(first("active_contactable"));
    const jwk = (await keySet()).keys.find((key: JsonObject) => key.kid === body.data.kid);
    const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
    const [header, payload, signature] = body.data.jws.split(".");
    const signatureBytes = Buffer.from(signature, "base64url");
    expect(nodeVerify(null, Buffer.from(`${header}.${payload}`), publicKey, signatureBytes)).toBe(true);
    const forged = Buffer.from(
      JSON.stringify({ ...body.data.manifest, trust: { ...body.data.manifest.trust, score: 100 } }),
    ).toString("base64url");
    expect(nodeVerify(null, Buffer.from(`${header}.${forged}`), publicKey, signatureBytes)).toBe(false);
    await expect(
      compactVerify(`${header}.${forged}.${signature}`, createLocalJWKSet((await keySet()) as never)),
    ).rejects.toThrow();
  });

  it("expires live manifests after an hour and snapshot=1 manifests after 86400 s, caching never past expiry", async () => {
    const abId = first("active_contactable");
    const live = await manifest(abId);
    const snapshot = await manifest(abId, "?snapshot=1");
    expect(snapshot.status).toBe(200);
    const lifetime = ({ manifest: signed }: JsonObject) =>
      (Date.parse(signed.expires_at) - Date.parse(signed.issued_at)) / 1000;
    expect(lifetime(live.body.data)).toBe(3600);
    expect(lifetime(snapshot.body.data)).toBe(86_400);
    expect(snapshot.body.data.manifest.kind).toBe("snapshot");
    expect(snapshot.body._links.canonical).toBe(`${TEST_BASE_URL}/api/registry/verify/${abId}?snapshot=1`);
    for (const answer of [live, snapshot]) {
      const maxAge = Number(/^public, max-age=(\d+)$/.exec(answer.headers.get("cache-control") ?? "")?.[1]);
      expect(maxAge).toBeLessThanOrEqual(300);
      expect(Date.now() + maxAge * 1000).toBeLessThanOrEqual(Date.parse(answer.body.data.manifest.expires_at));
    }
    expect((await manifest(abId, "?snapshot=0")).body.data.manifest.kind).toBe("live");
    expectErrorEnvelope((await manifest(abId, "?snapshot=maybe")).body, "VALIDATION_ERROR");
  });

  it("signs a fresh manifest with a new nonce on every call", async () => {
    const abId = first("active_contactable");
    const answers = await Promise.all([manifest(abId), manifest(abId), manifest(abId)]);
    const nonces = new Set(answers.map(({ body }) => body.data.manifest.nonce));
    expect(nonces.size).toBe(3);
    expect(new Set(answers.map(({ body }) => body.data.jws)).size).toBe(3);
  });

  it("signs the manifest of a paused merchant, whose status it states", async () => {
    const { status, body } = await manifest(first("paused"));
    expect(status).toBe(200);
    expect(body.data.manifest.trust.merchant_status).toBe("PAUSED");
  });

  it("answers 404 for unknown, suspended and archived merchants (live and snapshot) and 400 for a malformed id", async () => {
    for (const abId of ["ab_zzzzzzzz", first("suspended"), first("archived")]) {
      for (const query of ["", "?snapshot=1"]) {
        const refused = await manifest(abId, query);
        expect({ abId, query, status: refused.status }).toEqual({ abId, query, status: 404 });
        expectErrorEnvelope(refused.body, "MERCHANT_NOT_FOUND");
      }
    }
    const malformed = await manifest("AB_123");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    const post = await server.getJson(`/api/registry/verify/${first("active_contactable")}`, { method: "POST" });
    expect(post.status).toBe(405);
  });
});

describe("public keys", () => {
  it("serves the key set as RFC 7517 public keys with a short cache", async () => {
    const response = await server.get("/.well-known/ab-public-keys.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/jwk-set\+json/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    const text = await response.text();
    const body = JSON.parse(text) as JsonObject;
    expect(Object.keys(body)).toEqual(["keys"]);
    expect(body.keys.length).toBeGreaterThan(0);
    for (const key of body.keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", use: "sig", alg: "EdDSA" });
    }
    expect(text).not.toMatch(/"d"\s*:/);
    expect(text).not.toContain("PRIVATE");
    const post = await server.getJson("/.well-known/ab-public-keys.json", { method: "POST" });
    expect(post.status).toBe(405);
    expectErrorEnvelope(post.body, "METHOD_NOT_ALLOWED");
  });

  it("answers the active key as JWK and PEM on the legacy route, with no private part", async () => {
    const response = await server.get("/api/trust/public-key");
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toMatch(/"d"\s*:/);
    expect(text).not.toContain("PRIVATE");
    const body = JSON.parse(text) as JsonObject;
    expectMeta(body);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    const { kid, alg, jwk, pem } = body.data;
    expect(alg).toBe("EdDSA");
    expect(jwk.kid).toBe(kid);
    expect(createPublicKey(pem).export({ format: "jwk" })).toMatchObject({ kty: "OKP", crv: "Ed25519", x: jwk.x });
    const { body: signed } = await manifest(first("active_contactable"));
    expect(signed.data.kid).toBe(kid);
    expect(body._links.jwks).toBe(`${TEST_BASE_URL}/.well-known/ab-public-keys.json`);
  });

  it("keeps the private key files at mode 0600 under DATA_DIR/keys", () => {
    const dir = path.join(server.dataDir, "keys");
    const privateFiles = readdirSync(dir).filter((name) => name.endsWith(".private.pem"));
    expect(privateFiles.length).toBeGreaterThan(0);
    for (const name of privateFiles) expect(statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
  });

  it("answers 410 on the retired attestation route, pointing to the manifest and the key set", async () => {
    const abId = first("active_contactable");
    const { status, body } = await server.getJson(`/api/trust/attestation/${abId}`);
    expect(status).toBe(410);
    expectErrorEnvelope(body, "TRUST_ATTESTATION_WITHDRAWN");
    const hrefs = body._actions.map((item: JsonObject) => item.href);
    expect(hrefs).toContain(`${TEST_BASE_URL}/api/registry/verify/${abId}`);
    expect(hrefs).toContain(`${TEST_BASE_URL}/.well-known/ab-public-keys.json`);
    const malformed = await server.getJson("/api/trust/attestation/not-an-id");
    expect(malformed.status).toBe(410);
    expect(JSON.stringify(malformed.body._actions)).not.toContain("not-an-id");
  });
});

describe("key rotation under the running server", () => {
  it("verifies with npm run verify-manifest before and after a rotation, old manifests included", async () => {
    const abId = first("active_contactable");
    const url = `${server.url}/api/registry/verify/${abId}`;
    const before = await manifest(abId);
    const oldKid = before.body.data.kid;
    const check = await runNode(["jobs/verify-manifest.ts", url]);
    expect(check.stdout).toMatch(/^VALID/);
    expect(check.code).toBe(0);

    // Published first, signing later: the server lists the next key without signing with it.
    const delayed = await runNode(["jobs/keys.ts", "rotate", "--activate-after", "1h"]);
    expect(delayed.code).toBe(0);
    const pendingKid = /created (\S+):/.exec(delayed.stdout)?.[1];
    const withPending = await waitFor(keySet, (set) => set.keys.some((key: JsonObject) => key.kid === pendingKid));
    expect(withPending.keys.map((key: JsonObject) => key.kid)).toEqual([oldKid, pendingKid]);
    expect((await manifest(abId)).body.data.kid).toBe(oldKid);

    // At once: the next manifests carry the new kid; the old key stays published for what it signed.
    const now = await runNode(["jobs/keys.ts", "rotate", "--activate-after", "0"]);
    expect(now.code).toBe(0);
    const newKid = /created (\S+):/.exec(now.stdout)?.[1];
    const after = await waitFor(
      () => manifest(abId),
      (answer) => answer.body.data.kid === newKid,
    );
    expect(after.body.data.kid).toBe(newKid);
    const set = await keySet();
    const kids = set.keys.map((key: JsonObject) => key.kid);
    expect(kids[0]).toBe(newKid);
    expect(kids).toContain(oldKid);
    expect(kids).not.toContain(pendingKid);
    await compactVerify(before.body.data.jws, createLocalJWKSet(set as never));
    await compactVerify(after.body.data.jws, createLocalJWKSet(set as never));
    expect((await server.getJson("/api/trust/public-key")).body.data.kid).toBe(newKid);

    const recheck = await runNode(["jobs/verify-manifest.ts", url]);
    expect(recheck.code).toBe(0);
    expect(recheck.stdout).toContain(newKid);
  }, 60_000);
});
