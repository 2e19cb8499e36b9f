import { logger } from "../../logging.ts";
import type { RetentionCounts, RetentionRepository } from "./retention-store.ts";

export interface RetentionDeps {
  retention: RetentionRepository;
  now: () => Date;
  /** LEAD_RETENTION_MONTHS (default 24). */
  retentionMonths: number;
  /** Deletes mail files (the .eml outbox of a demo) written before the cutoff; returns how many. */
  pruneMailFiles?: (cutoff: Date) => number;
}

export interface RetentionReport extends RetentionCounts {
  cutoff: string;
  mailFiles: number;
}

/** Lead Idempotency-Keys are honoured for 24 hours; after that they only hold fingerprints. */
const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;
/**
 * A merchant-space session (the person's name, email, ID token) is kept 30 days after it ended or
 * expired, for looking into a misuse reported late; then it goes. Claims stay: they are the record
 * of who manages a listing.
 */
const SPACE_SESSION_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Anonymises leads, their follow-up messages, platform contacts and orders older than the retention
 * period: personal data goes, ids, dates, merchant, lead type and statuses stay for statistics.
 * Also drops the expired duplicate windows (they hold normalised emails), old lead
 * Idempotency-Keys, and mail files older than the period. Idempotent: run it as often as wanted.
 */
export async function anonymizeExpired(deps: RetentionDeps): Promise<RetentionReport> {
  const now = deps.now();
  const cutoff = retentionCutoff(now, deps.retentionMonths);
  const counts = await deps.retention.anonymizeBefore({
    cutoff: cutoff.toISOString(),
    now: now.toISOString(),
    idempotencyCutoff: new Date(now.getTime() - IDEMPOTENCY_KEEP_MS).toISOString(),
    sessionCutoff: new Date(now.getTime() - SPACE_SESSION_KEEP_MS).toISOString(),
  });
  const mailFiles = deps.pruneMailFiles?.(cutoff) ?? 0;
  const report = { cutoff: cutoff.toISOString(), ...counts, mailFiles };
  logger.info("retention run", {
    cutoff: report.cutoff,
    leads: report.leads,
    lead_messages: report.leadMessages,
    platform_contacts: report.platformContacts,
    orders: report.orders,
    dedup_windows: report.dedupWindows,
    idempotency_keys: report.idempotencyKeys,
    space_sessions: report.spaceSessions,
    lead_email_links: report.leadEmailLinks,
    space_notices: report.spaceNotices,
    mail_files: report.mailFiles,
  });
  return report;
}

/** `months` calendar months before `now` (UTC), clamped to the last day of a shorter month. */
export function retentionCutoff(now: Date, months: number): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(now.getUTCDate(), lastDay),
      now.getUTCHours(),
      now.getUTCMinutes(),
      now.getUTCSeconds(),
      now.getUTCMilliseconds(),
    ),
  );
}
