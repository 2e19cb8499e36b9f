/**
 * The lead duplicate rule (DESIGN.md, Leads), in one place. A submission is a duplicate of an
 * earlier lead when it names the same merchant, the same contact email (trimmed, lower-cased) and
 * the same lead type within 24 hours, *from the same caller*: the same agent key, or for an
 * anonymous caller the same client address.
 *
 * Why the caller is part of the key: the duplicate answer hands back the first lead's id and
 * tracking token, the bearer capability over that lead (status, follow-ups with the person's
 * Reply-To). Keyed on the email alone, anyone who knew a person's email could obtain it, or post
 * first so that the person's real request was silently dropped. Another caller therefore always
 * creates a new lead and never learns the first one's identifiers.
 *
 * What a same-caller duplicate does: nothing new when it carries no message or a message the lead
 * already carries (its first message or a follow-up, same text exactly); a different message
 * reaches the merchant as a follow-up on the first lead, through the outbox, like
 * send_lead_message (and within its limit of follow-ups per lead). Either way the answer is 200
 * with the first lead and `deduplicated: true`. Other fields of a duplicate are not forwarded.
 *
 * The store enforces the key as the primary key of lead_dedup_windows, inside the transaction that
 * writes the lead (src/store/lead-repository.ts), so concurrent identical submissions create one
 * lead; Idempotency-Key replays are scoped by the same caller.
 */

export const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Who submits a lead, as the REST route and the MCP tools know the caller. */
export interface LeadCaller {
  /** The registered agent whose key came with the request; null for an anonymous caller. */
  agentId: string | null;
  /** The client address anonymous callers are told apart by (see client-address.ts). */
  clientAddress: string;
}

/** The caller part of the duplicate key, also the scope of Idempotency-Key answers. */
export function callerScope(caller: LeadCaller): string {
  return caller.agentId ? `agent:${caller.agentId}` : `ip:${caller.clientAddress}`;
}

/** The duplicate rule's email key: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
