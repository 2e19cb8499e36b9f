import type { MerchantRegistryView } from "../merchants/merchant-registry.ts";
import type { SpaceNotice } from "./space-store.ts";

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
  /** Confirmed, the change waits for this notice to the address in force to be sent (space-notices.ts). */
  waitingNoticeId: string | null;
}

/** A request as the transaction that confirms it, or applies it, reads it. */
export interface ConfirmationInTransaction {
  confirmation: LeadEmailConfirmation;
  /** Whether the claim that asked (`requestedBy`, `merchant:<claimId>`) is live, read in the transaction. */
  claimLive: boolean;
}

/** What confirming decides: its answer, and the notice the change waits for (null: nothing waits). */
export interface ConfirmationDecision<T> {
  result: T;
  waitFor: SpaceNotice | null;
}

/** A confirmed change as the settling of the notice it waited for reads it. */
export interface WaitingChange extends ConfirmationInTransaction {
  /** The address the notice told, in force when the change was confirmed. */
  toldAddress: string;
}

export interface LeadEmailConfirmationStore {
  /**
   * Records a request and the outbox row of its email in one transaction; the listing's earlier
   * requests still waiting for their link are withdrawn (only the latest link works, even when two
   * requests of one listing run at once).
   */
  request(
    confirmation: Omit<LeadEmailConfirmation, "sentAt" | "confirmedAt" | "withdrawnAt" | "waitingNoticeId">,
    outboxMessageId: string,
  ): Promise<void>;
  find(confirmationId: string): Promise<LeadEmailConfirmation | null>;
  /** A request with its listing's trade name, for its email. */
  findForDelivery(confirmationId: string): Promise<(LeadEmailConfirmation & { businessName: string }) | null>;
  findByTokenHash(tokenHash: string): Promise<LeadEmailConfirmation | null>;
  /** The listing's latest request still waiting for its link, if any. */
  pendingOf(abId: string, now: string): Promise<LeadEmailConfirmation | null>;
  /** The listing's confirmed change still waiting for its notice to be sent, if any. */
  waitingOf(abId: string): Promise<LeadEmailConfirmation | null>;
  /**
   * Confirms a request in one transaction: the request and its claim are read there (locked), and
   * `decide` runs over them and the request's merchant (as a registry batch sees it). When `decide`
   * returns, the request is marked confirmed, the listing's other changes still waiting for their
   * notice are withdrawn (the latest confirmed change wins), and the notice the change waits for,
   * if any, is written (with its outbox rows) and recorded on the request. Nothing is written when
   * `decide` throws (a refusal); `decide` gets null for a request gone meanwhile.
   */
  confirm<T>(
    confirmationId: string,
    at: string,
    decide: (found: ConfirmationInTransaction | null, registry: MerchantRegistryView) => ConfirmationDecision<T>,
  ): Promise<T>;
}
