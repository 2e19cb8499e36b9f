import { generateKeyPairSync } from "node:crypto";
import { CompactSign, compactVerify } from "jose";
import { describe, expect, it } from "vitest";
import { documentForm, packedForm } from "../../src/publish/snapshot-packing.ts";

/** A snapshot envelope as snapshot.ts prints it: the manifest's JSON, then the JWS whose payload it is. */
async function signedEnvelope(): Promise<{ body: Buffer; publicKey: CryptoKey | import("node:crypto").KeyObject }> {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const manifestText = JSON.stringify({
    ab_id: "ab_12345678",
    business_name: "Boulangerie du Marché — pain & viennoiseries",
    content_hash: "sha256:3b0d74255b3ea3b198504d039ccac8e2151ceb284eb45bcb1fdbd8f7b1e9bc95",
    expires_at: "2026-12-08T20:34:13.000Z",
    kind: "snapshot",
    nonce: "q4sV0wq9a7oPz1",
  });
  const jws = await new CompactSign(new TextEncoder().encode(manifestText))
    .setProtectedHeader({ alg: "EdDSA", kid: "key-1", typ: "abeille-manifest+jws" })
    .sign(privateKey);
  const body = Buffer.from(
    `{"success":true,"data":{"manifest":${manifestText},"jws":"${jws}","kid":"key-1","alg":"EdDSA"},"_links":{"self":"https://abeille.example/api/registry/verify/ab_12345678?snapshot=1"}}`,
  );
  return { body, publicKey };
}

describe("snapshot manifests packed without their JWS payload", () => {
  it("stores the envelope without the payload and gives back the same bytes, which jose verifies", async () => {
    const { body, publicKey } = await signedEnvelope();
    const packed = packedForm(body);
    const payloadLength = (JSON.parse(body.toString("utf8")).data.jws as string).split(".")[1]?.length ?? 0;
    expect(packed.length).toBe(body.length - payloadLength + 13);
    const back = documentForm(packed);
    expect(back.equals(body)).toBe(true);
    const verified = await compactVerify(JSON.parse(back.toString("utf8")).data.jws, publicKey);
    expect(new TextDecoder().decode(verified.payload)).toContain('"ab_id":"ab_12345678"');
  });

  it("leaves any other document as it is", async () => {
    const { body } = await signedEnvelope();
    const jsonld = Buffer.from('{"@context":"https://schema.org","name":"Boulangerie"}');
    expect(packedForm(jsonld)).toBe(jsonld);
    expect(documentForm(jsonld)).toBe(jsonld);
    // A JWS whose payload is not the manifest printed before it: stored whole.
    const tampered = Buffer.from(body.toString("utf8").replace('"kind":"snapshot"', '"kind":"snapshoT"'));
    expect(packedForm(tampered).equals(tampered)).toBe(true);
    const markdown = Buffer.from('# Boulangerie\n\n"jws":"a.b.c"\n');
    expect(packedForm(markdown).equals(markdown)).toBe(true);
  });
});
