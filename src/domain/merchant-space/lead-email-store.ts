/**
 * What the lead email's confirmation needs from storage (implemented by
 * src/store/lead-email-confirmation-repository.ts).
 */
export interface LeadEmailConfirmation {
  confirmationId: string;
  abId: string;
  email: string;
  tokenHash: string;
  requestedBy: string;
  createdAt: string;
  expiresAt: string;
  sentAt: string | null;
  confirmedAt: string | null;
  withdrawnAt: string | null;
}

export interface LeadEmailConfirmationStore {
  /**
   * Records a request and the outbox row of its email in one transaction; the listing's earlier
   * requests still waiting are withdrawn (only the latest link works).
   */
  request(
    confirmation: Omit<LeadEmailConfirmation, "sentAt" | "confirmedAt" | "withdrawnAt">,
    outboxMessageId: string,
  ): Promise<void>;
  find(confirmationId: string): Promise<LeadEmailConfirmation | null>;
  /** A request with its listing's trade name, for its email. */
  findForDelivery(confirmationId: string): Promise<(LeadEmailConfirmation & { businessName: string }) | null>;
  findByTokenHash(tokenHash: string): Promise<LeadEmailConfirmation | null>;
  /** The listing's latest request still waiting for its link, if any. */
  pendingOf(abId: string, now: string): Promise<LeadEmailConfirmation | null>;
  /**
   * Marks a waiting request confirmed and runs `work` (the merchant's new email written) in the
   * same transaction; null, with nothing run, when it was no longer waiting (used, withdrawn).
   * Nothing stays if `work` throws. `work` is synchronous: a transaction never spans an await (on
   * SQLite, one connection serves every request of the thread); it writes through the registry's
   * store, still synchronous.
   */
  confirm<T>(confirmationId: string, at: string, work: () => T): Promise<T | null>;
}
