/**
 * What the postal-letter path needs from storage (implemented by src/store/letter-repository.ts).
 * A letter row keeps only keyed hashes of its code (letter-code.ts), never the code.
 */
import type { ClaimEvent, ClaimRecord, SpaceNotice } from "./space-store.ts";

export interface LetterStore {
  /** The listed establishments (not SUSPENDED or ARCHIVED) a batch may go to, with their SIRENE name and address. */
  recipients(filter: LetterRecipientFilter): Promise<LetterRecipient[]>;
  /** Those of `abIds` that are not listed establishments (unknown, SUSPENDED or ARCHIVED). */
  unlisted(abIds: readonly string[]): Promise<string[]>;
  /**
   * Records a batch in one transaction; every older letter of the same establishments that is
   * neither used nor locked is superseded at `at` (only the newest letter's code works).
   */
  recordBatch(letters: readonly NewLetter[], at: string): Promise<void>;
  findByLocator(locatorHash: string): Promise<LetterRow | null>;
  /**
   * Counts a wrong try on an unlocked letter and locks it when the count reaches `lockAfter`,
   * atomically (two wrong tries at once both count); the row after this try, or null when the
   * letter was locked meanwhile (nothing counted).
   */
  countWrongTry(letterId: string, at: string, lockAfter: number): Promise<LetterRow | null>;
  /**
   * Spends a letter and records the claim it gives (and the claim's audit event and notice) in one
   * transaction: the letter is marked used only if it is still unused, unlocked, not superseded
   * and not expired at `at`; null, with nothing written, otherwise (spent meanwhile). The claim is
   * written as the space's store writes one (a live claim of the same person on the listing
   * already there is returned instead). One store method, so the transaction never spans an await
   * of the domain.
   */
  spend(
    letterId: string,
    at: string,
    claim: ClaimRecord,
    event: ClaimEvent,
    notice: SpaceNotice,
  ): Promise<ClaimRecord | null>;
}

export interface LetterRecipientFilter {
  /** Only these establishments (each must be listed); all listed ones when absent. */
  abIds?: readonly string[];
  /** INSEE department code (`75`, `2A`, `971`). */
  department?: string;
  /** Only establishments no one has an active claim on. */
  unclaimed?: boolean;
  limit: number;
}

export interface LetterRecipient {
  abId: string;
  siret: string;
  legalName: string;
  businessName: string;
  street: string;
  postalCode: string;
  city: string;
}

export interface NewLetter {
  letterId: string;
  abId: string;
  batchId: string;
  locatorHash: string;
  secretHash: string;
  createdAt: string;
  expiresAt: string;
}

export interface LetterRow extends NewLetter {
  usedAt: string | null;
  failedAttempts: number;
  lockedAt: string | null;
  supersededAt: string | null;
}
