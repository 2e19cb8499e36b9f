import { randomUUID } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { formatLetterCode, type LetterCodeKeys, newLetterCode, normalizeLetterCode } from "./letter-code.ts";
import type { LetterRecipient, LetterRecipientFilter, LetterRow, LetterStore } from "./letter-store.ts";

/**
 * The postal path into the merchant space (docs/merchant-space.md): an operator prints a batch of
 * letters, each with a single-use code bound to one establishment; the merchant types the code.
 * The periods and the number of tries are recorded in docs/decisions.md ("Letter codes").
 */

/** How long a letter's code works: the post, a merchant away for a few weeks, and some slack. */
export const LETTER_CODE_VALID_DAYS = 60;
/** Wrong tries that lock a letter (the merchant then asks for a new one). */
export const LETTER_CODE_WRONG_TRIES = 5;

export interface LetterDeps {
  letters: LetterStore;
  codeKeys: LetterCodeKeys;
  now: () => Date;
  /** Random source of codes (tests give a seeded one); crypto.randomInt otherwise. */
  random?: (max: number) => number;
}

/** One letter of a printed batch: the only place the code exists in clear. */
export interface PrintedLetter {
  recipient: LetterRecipient;
  /** As printed: `7K3M-Q9TX-2HBD-WR5E`. */
  code: string;
  expiresAt: string;
}

export interface LetterBatch {
  batchId: string;
  createdAt: string;
  letters: PrintedLetter[];
}

/**
 * Draws a code for each recipient, hands the batch to `print` (the PDF), then records it (hashes
 * only); older unused letters of the same establishments stop working. Printed first: a batch
 * that could not be printed is not recorded, and does not supersede the letters already sent.
 * The codes in clear exist only in what `print` gets.
 */
export async function issueLetterBatch(
  deps: LetterDeps,
  filter: LetterRecipientFilter,
  print: (batch: LetterBatch) => Promise<void>,
): Promise<LetterBatch> {
  if (filter.abIds) {
    const unlisted = await deps.letters.unlisted(filter.abIds);
    if (unlisted.length > 0) {
      throw new ServiceError(
        "NOT_FOUND",
        `no letter for ${unlisted.join(", ")}: not a listed establishment (unknown, SUSPENDED or ARCHIVED)`,
      );
    }
  }
  const recipients = await deps.letters.recipients(filter);
  const now = deps.now();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + LETTER_CODE_VALID_DAYS * 86_400_000).toISOString();
  const batchId = randomUUID();
  const drawn = recipients.map((recipient) => {
    const code = newLetterCode(deps.random);
    const row = {
      letterId: randomUUID(),
      abId: recipient.abId,
      batchId,
      createdAt,
      expiresAt,
      ...deps.codeKeys.hashes(code),
    };
    return { recipient, code, row };
  });
  const batch: LetterBatch = {
    batchId,
    createdAt,
    letters: drawn.map(({ recipient, code }) => ({ recipient, code: formatLetterCode(code), expiresAt })),
  };
  await print(batch);
  if (drawn.length > 0)
    await deps.letters.recordBatch(
      drawn.map((letter) => letter.row),
      createdAt,
    );
  return batch;
}

/** Why a typed code opens nothing. */
export type LetterCodeRefusal =
  /** Not sixteen characters of the alphabet: a typing slip, no try counted. */
  | "malformed"
  /** No letter has it, or its secret half is wrong (a try counted on the letter it locates). */
  | "wrong"
  /** This wrong try locked the letter, or it was locked before: a new letter is needed. */
  | "locked"
  | "used"
  | "expired"
  /** A newer letter was sent to the establishment: only its code works. */
  | "superseded";

export type LetterCodeCheck =
  | { ok: true; letter: LetterRow }
  | { ok: false; refusal: LetterCodeRefusal; lockedNow?: LetterRow };

/**
 * Checks a typed code. A locked letter is refused even with its right code; a wrong secret for a
 * letter that can still be used counts a try (the last allowed one locks it: `lockedNow` carries
 * the letter, for the merchant's audit log). A right code says whether it is used, superseded or
 * expired only then, so a locator alone tells nothing about its letter.
 */
export async function checkLetterCode(deps: LetterDeps, typed: string): Promise<LetterCodeCheck> {
  const code = normalizeLetterCode(typed);
  if (code === null) return { ok: false, refusal: "malformed" };
  const { locatorHash } = deps.codeKeys.hashes(code);
  const letter = await deps.letters.findByLocator(locatorHash);
  if (!letter) return { ok: false, refusal: "wrong" };
  if (letter.lockedAt !== null) return { ok: false, refusal: "locked" };
  if (!deps.codeKeys.secretMatches(code, letter.secretHash)) return countWrongTry(deps, letter);
  if (letter.usedAt !== null) return { ok: false, refusal: "used" };
  if (letter.supersededAt !== null) return { ok: false, refusal: "superseded" };
  if (Date.parse(letter.expiresAt) <= deps.now().getTime()) return { ok: false, refusal: "expired" };
  return { ok: true, letter };
}

async function countWrongTry(deps: LetterDeps, letter: LetterRow): Promise<LetterCodeCheck> {
  // A letter no one can use any more is not worth locking: the answer is the same "wrong".
  const usable =
    letter.usedAt === null && letter.supersededAt === null && Date.parse(letter.expiresAt) > deps.now().getTime();
  if (!usable) return { ok: false, refusal: "wrong" };
  const after = await deps.letters.countWrongTry(letter.letterId, deps.now().toISOString(), LETTER_CODE_WRONG_TRIES);
  if (after === null) return { ok: false, refusal: "locked" };
  if (after.lockedAt !== null) return { ok: false, refusal: "locked", lockedNow: after };
  return { ok: false, refusal: "wrong" };
}
