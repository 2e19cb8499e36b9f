import { createHash, randomBytes } from "node:crypto";

/**
 * API keys: `abk_` and 40 base62 characters drawn from the system CSPRNG (about 238 bits).
 * Only the SHA-256 of a key and a short display prefix are stored; the key itself is shown once.
 * A fast hash is right here: the key is random, not a password, so it cannot be guessed offline.
 */

export const API_KEY_PREFIX = "abk_";
export const API_KEY_RANDOM_LENGTH = 40;
/** Accepts keys of 32 to 64 random characters (DESIGN.md: "at least 32"); ours have 40. */
const API_KEY_PATTERN = /^abk_[0-9A-Za-z]{32,64}$/;
/** Characters of the key kept for display (`abk_` + 8): enough to tell keys apart, useless to guess. */
export const KEY_DISPLAY_PREFIX_LENGTH = 12;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 characters by rejection sampling (bytes >= 248 are dropped, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length + 16)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function keyDisplayPrefix(key: string): string {
  return key.slice(0, KEY_DISPLAY_PREFIX_LENGTH);
}

export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/**
 * What a request presents: no key, one key, or something unusable (which is 401, never anonymous;
 * `malformed` holds the value when it was sent as a key but is not one).
 */
export type PresentedKey =
  | { kind: "none" }
  | { kind: "key"; key: string }
  | { kind: "invalid"; reason: string; malformed?: string };

/**
 * Reads `Authorization: Bearer <key>` or `X-API-Key: <key>`. Both may be sent only if they agree.
 * Another Authorization scheme, an empty value or a malformed key is "invalid", never "none".
 */
export function presentedKey(headers: Pick<Headers, "get">): PresentedKey {
  const authorization = headers.get("authorization");
  const apiKeyHeader = headers.get("x-api-key");
  if (authorization === null && apiKeyHeader === null) return { kind: "none" };
  let fromAuthorization: string | null = null;
  if (authorization !== null) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization.trim());
    if (!match?.[1]) {
      return { kind: "invalid", reason: "the Authorization header must be `Bearer <api key>`" };
    }
    fromAuthorization = match[1];
  }
  const fromHeader = apiKeyHeader?.trim() ?? null;
  if (fromHeader !== null && fromAuthorization !== null && fromHeader !== fromAuthorization) {
    return { kind: "invalid", reason: "Authorization and X-API-Key carry different keys" };
  }
  const key = fromAuthorization ?? fromHeader ?? "";
  if (!isWellFormedApiKey(key)) {
    return {
      kind: "invalid",
      reason: "the API key is malformed (expected abk_ followed by base62 characters)",
      malformed: key,
    };
  }
  return { kind: "key", key };
}
