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
  ): void;
  find(confirmationId: string): LeadEmailConfirmation | null;
  /** A request with its listing's trade name, for its email. */
  findForDelivery(confirmationId: string): (LeadEmailConfirmation & { businessName: string }) | null;
  findByTokenHash(tokenHash: string): LeadEmailConfirmation | null;
  /** The listing's latest request still waiting for its link, if any. */
  pendingOf(abId: string, now: string): LeadEmailConfirmation | null;
  /** Marks a waiting request confirmed; false when it was no longer waiting (used, withdrawn). */
  markConfirmed(confirmationId: string, at: string): boolean;
}
