/**
 * Compact JWS (RFC 7515) with EdDSA (RFC 8037). Only what the manifest needs: sign with a
 * protected header, and split a compact serialization back into its parts. Verification for
 * third parties is done with a standard JOSE library (see jobs/verify-manifest.ts); the server
 * never needs to verify its own signatures.
 */
import { base64url, fromBase64url } from "./ed25519.ts";

export const JWS_ALG = "EdDSA";

export interface ProtectedHeader {
  alg: typeof JWS_ALG;
  kid: string;
  typ: string;
}

/** `BASE64URL(header) || '.' || BASE64URL(payload)`, the bytes the signature covers. */
export function signingInput(header: ProtectedHeader, payload: Uint8Array): string {
  const encodedHeader = base64url(new TextEncoder().encode(JSON.stringify(header)));
  return `${encodedHeader}.${base64url(payload)}`;
}

/** Builds a compact JWS from a header, a payload and a function that signs the signing input. */
export function compactJws(
  header: ProtectedHeader,
  payload: Uint8Array,
  sign: (input: Uint8Array) => Uint8Array,
): string {
  const input = signingInput(header, payload);
  const signature = sign(new TextEncoder().encode(input));
  return `${input}.${base64url(signature)}`;
}

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Uint8Array;
  signature: Uint8Array;
  /** The exact bytes the signature covers. */
  signingInput: Uint8Array;
}

/** Splits a compact JWS without verifying it (for diagnostics and tests). */
export function decodeCompactJws(jws: string): DecodedJws {
  const parts = jws.split(".");
  if (parts.length !== 3) throw new Error("a compact JWS has three dot-separated parts");
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = JSON.parse(new TextDecoder().decode(fromBase64url(encodedHeader))) as unknown;
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new Error("the JWS header is not a JSON object");
  }
  return {
    header: header as Record<string, unknown>,
    payload: fromBase64url(encodedPayload),
    signature: fromBase64url(encodedSignature),
    signingInput: new TextEncoder().encode(`${encodedHeader}.${encodedPayload}`),
  };
}

/**
 * The detached form of a compact JWS (RFC 7515 appendix F): the payload part left empty. The
 * verifier rebuilds the payload itself (for the AI Catalog, the canonical JSON of the document
 * without its `signature`) and puts its base64url back between the two dots.
 */
export function detachedJws(compact: string): string {
  const parts = compact.split(".");
  if (parts.length !== 3) throw new Error("a compact JWS has three dot-separated parts");
  return `${parts[0]}..${parts[2]}`;
}
