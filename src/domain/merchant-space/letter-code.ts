import { createHmac, createSecretKey, type KeyObject, randomInt, timingSafeEqual } from "node:crypto";

/**
 * The single-use code a postal letter carries (docs/decisions.md, "Letter codes").
 *
 * Sixteen characters of Crockford's base32 (digits and capitals without I, L, O and U), printed
 * in four groups of four: `7K3M-Q9TX-2HBD-WR5E`. Typed back in any case, with or without spaces
 * or dashes, and with O for 0 and I or L for 1 (Crockford's reading rules), since a person copies
 * it from paper.
 *
 * The first eight characters locate the letter, the last eight are its secret: a wrong secret
 * typed for a known locator counts as a wrong try on that letter (a few lock it), which a code
 * without a locator could not do. Neither half is stored in clear: the store keeps
 * HMAC-SHA256(secret key, context + half), keyed by DATA_DIR/secrets/letter-code.key, so a copy
 * of the database alone neither reveals a code nor lets anyone test guesses offline.
 * 40 bits of locator make a letter impossible to find by guessing (nobody can lock someone
 * else's letter on purpose); 40 bits of secret behind a lock after a few tries make a guess of
 * the secret hopeless.
 */
export const LETTER_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const LETTER_CODE_LENGTH = 16;
const LOCATOR_LENGTH = 8;
const GROUP = 4;

/** The code's two halves, each keyed-hashed: what the store keeps of a code. */
export interface LetterCodeHashes {
  locatorHash: string;
  secretHash: string;
}

export interface LetterCodeKeys {
  hashes(code: NormalizedLetterCode): LetterCodeHashes;
  /** Whether `code`'s secret half is the one whose hash is `secretHash` (constant time). */
  secretMatches(code: NormalizedLetterCode, secretHash: string): boolean;
}

/** A code as typed, reduced to its sixteen canonical characters. */
export type NormalizedLetterCode = string & { readonly normalizedLetterCode: unique symbol };

/** A new random code, in canonical form (`formatLetterCode` groups it for print). */
export function newLetterCode(random: (max: number) => number = randomInt): NormalizedLetterCode {
  let code = "";
  for (let i = 0; i < LETTER_CODE_LENGTH; i++) code += LETTER_CODE_ALPHABET[random(LETTER_CODE_ALPHABET.length)];
  return code as NormalizedLetterCode;
}

/** The code as printed: four groups of four, joined by dashes. */
export function formatLetterCode(code: NormalizedLetterCode): string {
  return (code.match(new RegExp(`.{1,${GROUP}}`, "g")) ?? []).join("-");
}

/**
 * The code a person typed, in canonical form, or null when it cannot be one (wrong length or a
 * character outside the alphabet). Spaces, dashes and dots are ignored; case too; O reads 0, I
 * and L read 1.
 */
export function normalizeLetterCode(typed: string): NormalizedLetterCode | null {
  const code = typed
    .toUpperCase()
    .replace(/[\s.\-‐-―]/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  if (code.length !== LETTER_CODE_LENGTH) return null;
  for (const character of code) if (!LETTER_CODE_ALPHABET.includes(character)) return null;
  return code as NormalizedLetterCode;
}

const LOCATOR_CONTEXT = "abeille-letter-code/v1/locator:";
const SECRET_CONTEXT = "abeille-letter-code/v1/secret:";

export function createLetterCodeKeys(secret: () => Buffer): LetterCodeKeys {
  let key: KeyObject | undefined;
  const mac = (context: string, text: string) => {
    key ??= createSecretKey(secret());
    return createHmac("sha256", key)
      .update(context + text, "utf8")
      .digest("base64url");
  };
  // The secret half's hash also covers the locator: a hash copied onto another letter's row matches nothing.
  const secretHash = (code: NormalizedLetterCode) => mac(SECRET_CONTEXT, code);
  return {
    hashes(code) {
      return { locatorHash: mac(LOCATOR_CONTEXT, code.slice(0, LOCATOR_LENGTH)), secretHash: secretHash(code) };
    },
    secretMatches(code, expected) {
      const given = Buffer.from(secretHash(code), "ascii");
      const stored = Buffer.from(expected, "ascii");
      return given.length === stored.length && timingSafeEqual(given, stored);
    },
  };
}
