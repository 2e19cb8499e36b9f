import type { MerchantRegistryView } from "../merchants/merchant-registry.ts";

/**
 * What the lead email's confirmation needs from storage (implemented by
 * src/store/lead-email-confirmation-repository.ts, and on PostgreSQL by
 * src/store/postgres/space-link-repositories.ts).
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
   * Marks a waiting request confirmed and applies what `decide` writes to the registry (over the
   * request's merchant, as a registry batch sees it), in one transaction. Nothing is written when
   * the request was no longer waiting (used, withdrawn: `confirmed` false) or when `decide` throws.
   */
  confirm<T>(
    confirmationId: string,
    at: string,
    decide: (registry: MerchantRegistryView) => T,
  ): Promise<{ confirmed: true; result: T } | { confirmed: false }>;
}
