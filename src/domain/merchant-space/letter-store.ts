/**
 * What the postal-letter path needs from storage (implemented by src/store/letter-repository.ts).
 * A letter row keeps only keyed hashes of its code (letter-code.ts), never the code.
 */
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
   * Spends a letter and runs `work` (the claim's recording) in the same transaction: the letter
   * is marked used only if it is still unused, unlocked, not superseded and not expired at `at`;
   * null, with nothing run, otherwise (spent meanwhile). Nothing stays if `work` throws. `work` is
   * synchronous: it runs inside the transaction, which never spans an await (on SQLite, one
   * connection serves every request of the thread). It writes through the space's store, still
   * synchronous; once that store is asynchronous, this becomes one store method that spends the
   * letter and records the claim it is given.
   */
  spend<T>(letterId: string, at: string, work: () => T): Promise<T | null>;
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
