import type { RenderedEmail } from "../domain/leads/email-format.ts";
import type { LeadForDelivery } from "../domain/leads/lead-store.ts";
import { renderFollowUp } from "../domain/leads/render-follow-up.ts";
import { renderLeadAnswer } from "../domain/leads/render-lead-answer.ts";
import { renderLeadNotification } from "../domain/leads/render-lead-notification.ts";
import { leadEmailConfirmationPath, renderLeadEmailConfirmation } from "../domain/merchant-space/lead-email.ts";
import type { LeadEmailConfirmationStore } from "../domain/merchant-space/lead-email-store.ts";
import type { LeadEmailTokens } from "../domain/merchant-space/lead-email-token.ts";
import { leadPath } from "../domain/merchant-space/lead-paths.ts";
import { renderSpaceNotice, type SpaceNoticeStore } from "../domain/merchant-space/space-notices.ts";
import type { OutboxMessage, OutboxRepository, OutboxResult } from "../domain/outbox-store.ts";
import { renderPlatformNotification } from "../domain/platform-contact/render-platform-notification.ts";
import { logger } from "../logging.ts";
import type { LeadRepository } from "../store/lead-repository.ts";
import type { PlatformContactRepository } from "../store/platform-contact-repository.ts";
import { retryDelayMs } from "./backoff.ts";
import type { MailTransport, OutgoingMail } from "./transport.ts";

export interface DispatchDeps {
  outbox: OutboxRepository;
  leads: LeadRepository;
  platformContacts: PlatformContactRepository;
  transport: MailTransport;
  platformTeamEmail: string;
  /** The email of a merchant-space sign-in link (src/domain/merchant-space/sign-in-links.ts), by link id. */
  signInLinkMail?: (linkId: string) => Promise<{ to: string; email: RenderedEmail } | null>;
  /** The merchant space's lead email confirmations: their emails carry a link written again from the id. */
  leadEmailConfirmations: LeadEmailConfirmationStore;
  leadEmailTokens: LeadEmailTokens;
  /** The notices of claims and lead email changes (src/domain/merchant-space/space-notices.ts). */
  spaceNotices: SpaceNoticeStore;
  baseUrl: string;
  now: () => Date;
  /** Rows claimed per batch (default 25). */
  batchSize?: number;
  /** How long a claim holds before another worker may take the row again (default 5 min). */
  leaseMs?: number;
  /**
   * Records each result as soon as its send returns, instead of the batch's in one transaction
   * (PostgreSQL, several machines): a machine that dies mid-batch leaves only the sends in flight
   * at that instant to be sent again by another, each with the same Message-ID.
   */
  settleEach?: boolean;
}

export interface DispatchReport {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
}

const DEFAULT_BATCH = 25;
const DEFAULT_LEASE_MS = 5 * 60_000;

/** A failure no retry can cure: the message fails at once. */
class PermanentFailure extends Error {}

/**
 * Claims one batch of due rows, delivers them concurrently, then records every result in one
 * transaction (one write lock per batch, so a busy worker barely delays lead creation; on
 * PostgreSQL each result as its send returns: `settleEach`).
 */
export async function dispatchDueMessages(deps: DispatchDeps): Promise<DispatchReport> {
  const now = deps.now();
  const claimed = await deps.outbox.claimDue({
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + (deps.leaseMs ?? DEFAULT_LEASE_MS)).toISOString(),
    limit: deps.batchSize ?? DEFAULT_BATCH,
  });
  const delivering = await withBatchLeads(deps, claimed);
  const results = deps.settleEach
    ? await Promise.all(
        claimed.map(async (message) => {
          const result = await deliver(delivering, message);
          await deps.outbox.settle([result]);
          return result;
        }),
      )
    : await Promise.all(claimed.map((message) => deliver(delivering, message)));
  if (!deps.settleEach) await deps.outbox.settle(results);
  const report: DispatchReport = { claimed: claimed.length, sent: 0, retried: 0, failed: 0 };
  for (const result of results) {
    if (result.outcome === "sent") {
      report.sent += 1;
      logger.debug("outbox message delivered", {
        message_id: result.messageId,
        kind: kindOf(claimed, result.messageId),
        attempt: result.attempts,
        transport: deps.transport.kind,
      });
    } else if (result.outcome === "retry") {
      report.retried += 1;
    } else {
      report.failed += 1;
    }
  }
  if (report.claimed > 0) logger.info("outbox batch", { ...report, transport: deps.transport.kind });
  return report;
}

function kindOf(claimed: readonly OutboxMessage[], messageId: string): string {
  return claimed.find((message) => message.messageId === messageId)?.kind ?? "unknown";
}

/**
 * A batch that did not settle within the drain's watchdog. Its rows stay claimed until they settle
 * (a late result is still recorded) or their lease runs out (another drain takes them again).
 */
export class BatchStalled extends Error {
  readonly code = "EBATCHSTALLED";
}

/**
 * Delivers batches until no row is due; returns the totals. With `batchTimeoutMs`, a batch that
 * has not settled by then ends the drain with BatchStalled instead of holding it forever: sends
 * carry their own timeout, this is the backstop for whatever else could wait without end.
 */
export async function drainOutbox(
  deps: DispatchDeps,
  options: { maxBatches?: number; keepGoing?: () => boolean; batchTimeoutMs?: number } = {},
): Promise<DispatchReport> {
  const total: DispatchReport = { claimed: 0, sent: 0, retried: 0, failed: 0 };
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < maxBatches && (options.keepGoing?.() ?? true); batch++) {
    const report = await watched(dispatchDueMessages(deps), options.batchTimeoutMs);
    total.claimed += report.claimed;
    total.sent += report.sent;
    total.retried += report.retried;
    total.failed += report.failed;
    if (report.claimed < (deps.batchSize ?? DEFAULT_BATCH)) break;
  }
  return total;
}

async function watched(batch: Promise<DispatchReport>, timeoutMs: number | undefined): Promise<DispatchReport> {
  if (timeoutMs === undefined) return batch;
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new BatchStalled(`an outbox batch did not settle within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([batch, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

async function deliver(deps: DispatchDeps, message: OutboxMessage): Promise<OutboxResult> {
  const base = { messageId: message.messageId, attempts: message.attempts };
  try {
    await deps.transport.send(await compose(deps, message));
    return { ...base, outcome: "sent", at: deps.now().toISOString() };
  } catch (failure) {
    const error = describeFailure(failure);
    const delay = failure instanceof PermanentFailure ? null : retryDelayMs(message.attempts);
    const now = deps.now();
    const fields = {
      message_id: message.messageId,
      kind: message.kind,
      attempt: message.attempts,
      ...errorCodes(failure),
    };
    if (delay === null) {
      logger.error("outbox message failed for good", fields);
      return { ...base, outcome: "failed", at: now.toISOString(), error };
    }
    const nextAttemptAt = new Date(now.getTime() + delay).toISOString();
    logger.warn("outbox message refused; will retry", { ...fields, next_attempt_at: nextAttemptAt });
    return { ...base, outcome: "retry", nextAttemptAt, error };
  }
}

/**
 * The batch's new-lead notifications read their leads in one read (findManyForDelivery) rather
 * than one each: a round trip per email on PostgreSQL. A lead the read did not find (gone since
 * the claim) is read again by compose, which says why it cannot be sent; a read that fails leaves
 * each email to its own read, whose failure is that email's retry.
 */
async function withBatchLeads(deps: DispatchDeps, claimed: readonly OutboxMessage[]): Promise<DispatchDeps> {
  const leadIds = claimed.filter((message) => message.kind === "lead_notification").map((message) => message.subjectId);
  if (leadIds.length < 2) return deps;
  const found = await deps.leads.findManyForDelivery(leadIds).catch(() => new Map<string, LeadForDelivery>());
  const { leads } = deps;
  return {
    ...deps,
    leads: { ...leads, findForDelivery: async (leadId) => found.get(leadId) ?? (await leads.findForDelivery(leadId)) },
  };
}

/** Renders the email an outbox row announces, from the current state of its subject. */
export async function compose(
  deps: Pick<
    DispatchDeps,
    | "leads"
    | "platformContacts"
    | "platformTeamEmail"
    | "signInLinkMail"
    | "leadEmailConfirmations"
    | "leadEmailTokens"
    | "spaceNotices"
    | "baseUrl"
  >,
  message: OutboxMessage,
): Promise<OutgoingMail> {
  const fileStem = `${compactTimestamp(message.createdAt)}-${message.kind}`;
  switch (message.kind) {
    case "lead_notification": {
      const lead = await deps.leads.findForDelivery(message.subjectId);
      if (!lead) throw new PermanentFailure("the lead no longer exists");
      if (lead.anonymizedAt) throw new PermanentFailure("the lead was anonymised before delivery");
      if (!lead.merchantEmail) throw new PermanentFailure("the merchant has no email address");
      const email = renderLeadNotification(lead, { spaceUrl: `${deps.baseUrl}${leadPath(lead.abId, lead.leadId)}` });
      return {
        outboxId: message.messageId,
        fileStem,
        to: lead.merchantEmail,
        replyTo: { name: lead.contactName, address: lead.contactEmail },
        ...email,
        headers: { "X-Abeille-Lead-Id": lead.leadId },
      };
    }
    case "lead_follow_up": {
      const followUp = await deps.leads.findFollowUpForDelivery(message.subjectId);
      if (!followUp) throw new PermanentFailure("the follow-up message no longer exists");
      if (followUp.anonymizedAt || followUp.lead.anonymizedAt) {
        throw new PermanentFailure("the follow-up message was anonymised before delivery");
      }
      if (!followUp.lead.merchantEmail) throw new PermanentFailure("the merchant has no email address");
      const email = renderFollowUp(followUp);
      return {
        outboxId: message.messageId,
        fileStem,
        to: followUp.lead.merchantEmail,
        replyTo: { name: followUp.lead.contactName, address: followUp.lead.contactEmail },
        ...email,
        headers: { "X-Abeille-Lead-Id": followUp.lead.leadId },
      };
    }
    case "lead_answer": {
      // The merchant's answer from its space goes to the person; their "Reply" reaches the merchant.
      const answer = await deps.leads.findAnswerForDelivery(message.subjectId);
      if (!answer) throw new PermanentFailure("the lead answer no longer exists");
      if (answer.anonymizedAt || answer.lead.anonymizedAt) {
        throw new PermanentFailure("the lead answer was anonymised before delivery");
      }
      const email = renderLeadAnswer(answer);
      return {
        outboxId: message.messageId,
        fileStem,
        to: answer.lead.contactEmail,
        replyTo: answer.lead.merchantEmail
          ? { name: answer.lead.merchantName, address: answer.lead.merchantEmail }
          : undefined,
        ...email,
        headers: { "X-Abeille-Lead-Id": answer.lead.leadId },
      };
    }
    case "platform_contact": {
      const contact = await deps.platformContacts.find(message.subjectId);
      if (!contact) throw new PermanentFailure("the platform contact no longer exists");
      if (contact.anonymizedAt) throw new PermanentFailure("the platform contact was anonymised before delivery");
      const email = renderPlatformNotification(contact);
      return {
        outboxId: message.messageId,
        fileStem,
        to: deps.platformTeamEmail,
        replyTo: { name: contact.name, address: contact.email },
        ...email,
        headers: { "X-Abeille-Contact-Id": contact.contactId },
      };
    }
    case "space_sign_in_link": {
      const mail = await deps.signInLinkMail?.(message.subjectId);
      if (!mail) throw new PermanentFailure("the sign-in link was used or expired before delivery");
      return { outboxId: message.messageId, fileStem, to: mail.to, ...mail.email };
    }
    case "lead_email_confirmation": {
      const confirmation = await deps.leadEmailConfirmations.findForDelivery(message.subjectId);
      if (!confirmation) throw new PermanentFailure("the lead email confirmation no longer exists");
      const token = deps.leadEmailTokens.issue(confirmation.confirmationId);
      const email = renderLeadEmailConfirmation({
        businessName: confirmation.businessName,
        email: confirmation.email,
        link: `${deps.baseUrl}${leadEmailConfirmationPath(confirmation.abId, token)}`,
        expiresAt: confirmation.expiresAt,
      });
      return { outboxId: message.messageId, fileStem, to: confirmation.email, ...email };
    }
    case "space_notice": {
      const notice = await deps.spaceNotices.findForDelivery(message.subjectId);
      if (!notice) throw new PermanentFailure("the notice no longer exists");
      const email = renderSpaceNotice(notice, {
        platformTeamEmail: deps.platformTeamEmail,
        spaceUrl: `${deps.baseUrl}/pro`,
      });
      // A reply reaches the team, who can look into a change nobody expected.
      return {
        outboxId: message.messageId,
        fileStem,
        to: notice.recipient.email,
        replyTo: { name: "Équipe Abeille", address: deps.platformTeamEmail },
        ...email,
      };
    }
    default:
      throw new PermanentFailure(`unknown outbox kind ${String(message.kind)}`);
  }
}

/** 2026-11-22T07:20:58.123Z -> 20261122T072058Z */
function compactTimestamp(iso: string): string {
  return iso.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

interface MailError {
  code?: unknown;
  responseCode?: unknown;
  command?: unknown;
  message?: unknown;
}

const EMAIL = /[^\s<>"'@]+@[^\s<>"'@]+/g;

/** What is stored in outbox.last_error: codes and the server's words with addresses removed. */
export function describeFailure(failure: unknown): string {
  const error = (typeof failure === "object" && failure !== null ? failure : {}) as MailError;
  const parts = [error.code, error.responseCode, error.command].filter(
    (part) => typeof part === "string" || typeof part === "number",
  );
  const text = typeof error.message === "string" ? error.message : String(failure);
  const clean = text.replace(EMAIL, "<address>").replace(/\s+/g, " ").slice(0, 300);
  return parts.length > 0 ? `${parts.join(" ")}: ${clean}` : clean;
}

/** Log fields of a failure: codes only, never the server's text (it may quote an address). */
function errorCodes(failure: unknown): Record<string, unknown> {
  if (failure instanceof PermanentFailure) return { reason: failure.message };
  const error = (typeof failure === "object" && failure !== null ? failure : {}) as MailError;
  return {
    error_code: typeof error.code === "string" ? error.code : null,
    response_code: typeof error.responseCode === "number" ? error.responseCode : null,
    command: typeof error.command === "string" ? error.command : null,
  };
}
