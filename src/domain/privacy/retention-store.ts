/**
 * The storage this part of the domain needs (a port): src/store/retention-repository.ts implements it.
 */

export interface RetentionCounts {
  leads: number;
  leadMessages: number;
  platformContacts: number;
  orders: number;
  dedupWindows: number;
  idempotencyKeys: number;
  /**
   * Merchant-space sessions (with the person's name and email), sign-ins and the letter path's
   * sign-in links (with the address they went to) over before `sessionCutoff`.
   */
  spaceSessions: number;
  /** Lead email confirmation links (the address asked for) expired before `sessionCutoff`, used or not. */
  leadEmailLinks: number;
  /** Notices of claims and lead email changes (the addresses told) written before `sessionCutoff`. */
  spaceNotices: number;
}

export interface RetentionRepository {
  /**
   * Anonymises leads, platform contacts and orders created before `cutoff`, the follow-up messages of
   * anonymised leads (and any message older than `cutoff`), and deletes the lead duplicate windows
   * that are over at `now` and lead Idempotency-Keys recorded before `idempotencyCutoff` (both hold
   * emails or request fingerprints no longer needed).
   */
  anonymizeBefore(input: {
    cutoff: string;
    now: string;
    idempotencyCutoff: string;
    sessionCutoff: string;
    batchSize?: number;
  }): Promise<RetentionCounts>;
}
