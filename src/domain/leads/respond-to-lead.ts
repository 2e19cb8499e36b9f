import { randomUUID } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { logger } from "../../logging.ts";
import type { LeadResponse } from "../../schemas/leads.ts";
import type { RateLimiter } from "../access/rate-limiter.ts";
import type { ClaimedListing } from "../merchant-space/claims.ts";
import type { LeadRepository, MerchantLeadStatus } from "./lead-store.ts";

/** Answers one lead may carry: a conversation goes on by email, the space records the first words. */
export const MAX_ANSWERS_PER_LEAD = 10;
/** Answers one listing may send per hour, whoever of the company writes them: each one emails a person. */
export const LEAD_ANSWERS_PER_LISTING_HOURLY = 30;
const HOUR_SECONDS = 3600;

/** One message for another merchant's lead and a lead that does not exist: nothing to tell apart. */
export const MERCHANT_LEAD_NOT_FOUND_MESSAGE = "This listing has no lead with this id";

/** What a lead's functions need of the listing a claim opens (requireClaimedListing): its id and the audit actor. */
export type ListingAccess = Pick<ClaimedListing, "abId" | "actor">;

export interface RespondDeps {
  leads: LeadRepository;
  limiter: RateLimiter;
  now: () => Date;
  /** Wakes the outbox worker after a commit that wrote an outbox row. */
  notifyOutbox: () => void;
}

export interface LeadResponseResult {
  leadId: string;
  status: MerchantLeadStatus;
  /** The answer recorded and queued for the person's mailbox, if one was given. */
  answerId: string | null;
  answersCount: number;
}

/**
 * What the lead's merchant status becomes. An answer does not reopen a lead the merchant closed
 * (handled or declined stay); closing it, or closing it the other way, is the merchant's last word.
 */
export function nextMerchantStatus(
  current: MerchantLeadStatus | null,
  requested: LeadResponse["outcome"],
): MerchantLeadStatus {
  if (requested === "answered" && (current === "handled" || current === "declined")) return current;
  return requested;
}

/**
 * The merchant answers a lead from its space and/or marks it handled or declined. The answer is
 * kept as a lead message (merchant_to_person) with its outbox row (kind lead_answer: the email to
 * the person) in the same transaction as the status. A lead of another listing is NOT_FOUND; an
 * anonymised lead is CONFLICT (nobody is left to write to); answers are limited per lead and per
 * listing and hour (RATE_LIMITED, only when an answer is sent: closing a lead emails nobody).
 */
export async function respondToLead(
  deps: RespondDeps,
  listing: ListingAccess,
  leadId: string,
  response: LeadResponse,
): Promise<LeadResponseResult> {
  if (response.answer !== undefined) {
    const decision = await deps.limiter.consume(
      `lead-answer:${listing.abId}`,
      LEAD_ANSWERS_PER_LISTING_HOURLY,
      HOUR_SECONDS,
    );
    if (!decision.allowed) {
      throw new ServiceError(
        "RATE_LIMITED",
        `This listing sent ${LEAD_ANSWERS_PER_LISTING_HOURLY} answers within the hour, the most it may; retry in ${decision.retryAfterSeconds} s`,
        { retryAfterSeconds: decision.retryAfterSeconds },
      );
    }
  }
  const answerId = response.answer !== undefined ? randomUUID() : null;
  const outcome = await deps.leads.recordResponse({
    leadId,
    abId: listing.abId,
    at: deps.now().toISOString(),
    actor: listing.actor,
    nextStatus: (current) => nextMerchantStatus(current, response.outcome),
    answer:
      answerId !== null && response.answer !== undefined
        ? {
            messageId: answerId,
            body: response.answer,
            outboxMessageId: randomUUID(),
            maxAnswers: MAX_ANSWERS_PER_LEAD,
          }
        : null,
  });
  switch (outcome.kind) {
    case "not_found":
      throw new ServiceError("NOT_FOUND", MERCHANT_LEAD_NOT_FOUND_MESSAGE);
    case "anonymized":
      throw new ServiceError(
        "CONFLICT",
        "This lead is past its retention period and was anonymised; it cannot be answered",
      );
    case "answer_limit":
      throw new ServiceError(
        "CONFLICT",
        `This lead already carries ${MAX_ANSWERS_PER_LEAD} answers, the most it accepts; go on by email with the person`,
      );
    case "recorded":
      if (answerId !== null) deps.notifyOutbox();
      logger.info("lead response recorded", {
        lead_id: leadId,
        ab_id: listing.abId,
        actor: listing.actor,
        status: outcome.status,
        answered: answerId !== null,
      });
      return { leadId, status: outcome.status, answerId, answersCount: outcome.answersCount };
  }
}
