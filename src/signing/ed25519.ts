/**
 * Ed25519 primitives over @noble/ed25519: key generation, signing, and the encodings the key set
 * and the legacy public-key route publish (JWK, RFC 7638 thumbprint, SPKI PEM). Private keys are
 * stored as PKCS #8 PEM, which OpenSSL and node:crypto read as they are.
 */
import { createHash } from "node:crypto";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";

// @noble/ed25519 3 signs synchronously only with a SHA-512 wired in.
ed.hashes.sha512 ??= sha512;

export const ED25519_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** DER prefixes of the fixed-size Ed25519 structures (RFC 8410). */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The public members of an Ed25519 key, as RFC 8037 writes them. */
export interface OkpPublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Decodes base64url strictly: only the URL-safe alphabet, no padding, canonical length. */
export function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new Error("not base64url");
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) throw new Error("not canonical base64url");
  return new Uint8Array(bytes);
}

export function generateSecretKey(): Uint8Array {
  return ed.utils.randomSecretKey();
}

export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return ed.getPublicKey(secretKey);
}

export function signBytes(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return ed.sign(message, secretKey);
}

export function verifyBytes(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return ed.verify(signature, message, publicKey);
}

export function publicJwkOf(publicKey: Uint8Array): OkpPublicJwk {
  if (publicKey.length !== ED25519_KEY_BYTES) throw new Error("an Ed25519 public key is 32 bytes");
  return { kty: "OKP", crv: "Ed25519", x: base64url(publicKey) };
}

/**
 * RFC 7638 JWK thumbprint: SHA-256 over the required members of the OKP key (`crv`, `kty`, `x`),
 * in lexicographic order with no whitespace, base64url-encoded. It is the key's `kid`.
 */
export function jwkThumbprint(jwk: OkpPublicJwk): string {
  const canonical = `{"crv":${JSON.stringify(jwk.crv)},"kty":${JSON.stringify(jwk.kty)},"x":${JSON.stringify(jwk.x)}}`;
  return createHash("sha256").update(canonical, "utf8").digest("base64url");
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function pemBody(label: string, text: string): Buffer {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text);
  if (!match?.[1]) throw new Error(`no ${label} PEM block`);
  return Buffer.from(match[1].replace(/\s+/g, ""), "base64");
}

/** SubjectPublicKeyInfo PEM of a raw Ed25519 public key. */
export function spkiPem(publicKey: Uint8Array): string {
  if (publicKey.length !== ED25519_KEY_BYTES) throw new Error("an Ed25519 public key is 32 bytes");
  return pem("PUBLIC KEY", Buffer.concat([SPKI_PREFIX, publicKey]));
}

/** PKCS #8 DER of a raw Ed25519 secret key (the 32-byte seed). */
export function pkcs8Der(secretKey: Uint8Array): Uint8Array {
  if (secretKey.length !== ED25519_KEY_BYTES) throw new Error("an Ed25519 secret key is 32 bytes");
  return new Uint8Array(Buffer.concat([PKCS8_PREFIX, secretKey]));
}

/** PKCS #8 PEM of a raw Ed25519 secret key (the 32-byte seed). */
export function pkcs8Pem(secretKey: Uint8Array): string {
  return pem("PRIVATE KEY", Buffer.from(pkcs8Der(secretKey)));
}

/** The 32-byte seed inside an Ed25519 PKCS #8 PEM (the only form the key store writes). */
export function secretKeyFromPkcs8Pem(text: string): Uint8Array {
  const der = pemBody("PRIVATE KEY", text);
  if (
    der.length !== PKCS8_PREFIX.length + ED25519_KEY_BYTES ||
    !der.subarray(0, PKCS8_PREFIX.length).equals(PKCS8_PREFIX)
  ) {
    throw new Error("not an Ed25519 PKCS #8 private key");
  }
  return new Uint8Array(der.subarray(PKCS8_PREFIX.length));
}
