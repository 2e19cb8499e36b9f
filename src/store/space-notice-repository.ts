import { randomUUID } from "node:crypto";
import {
  type NoticeRecipient,
  type NoticeRecipientRole,
  noticeRecipients,
  type SpaceNoticeStore,
} from "../domain/merchant-space/space-notices.ts";
import type { NoticeWhat, SpaceNotice, SpaceVia } from "../domain/merchant-space/space-store.ts";
import type { StoreConnection } from "./connection.ts";
import { eq, sql } from "./drizzle.ts";
import { merchantClaims, merchants, spaceNotices } from "./schema.ts";
import type { StoreDb } from "./store-db.ts";

/*
 * The notices of claims and lead email changes (port: src/domain/merchant-space/space-notices.ts).
 * A notice is written inside the transaction of its change, one row and one outbox row per person
 * told, who being read in that transaction (the listing's lead address and live claims): by
 * noticeWriter on SQLite, by insertNoticeOn (src/store/postgres/space-notice-repository.ts, the
 * same statements) on PostgreSQL, until the repositories that write them are shared. Read for
 * delivery by one repository on both engines.
 */

type SqliteClient = StoreConnection["$client"];

export interface NoticeRow {
  notice_id: string;
  ab_id: string;
  what: string;
  at: string;
  by_claim_id: string | null;
  from_email: string | null;
  to_email: string | null;
  confirmation_id: string | null;
  recipient: string;
  recipient_role: string;
}

/** Who a notice tells is read in the change's transaction: the listing's email and live claims. */
export const LISTING_EMAIL = "SELECT email FROM merchants WHERE ab_id = @abId";
export const LIVE_CLAIMS = `SELECT claim_id AS "claimId", email FROM merchant_claims
  WHERE ab_id = @abId AND revoked_at IS NULL AND lapsed_at IS NULL ORDER BY created_at, claim_id`;
export const INSERT_NOTICE = `INSERT INTO space_notices
    (notice_id, ab_id, what, at, by_claim_id, from_email, to_email, confirmation_id, recipient, recipient_role)
  VALUES (@noticeId, @abId, @what, @at, @byClaimId, @fromEmail, @toEmail, @confirmationId, @recipient, @role)`;
export const INSERT_NOTICE_OUTBOX = `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
  VALUES (@messageId, 'space_notice', @noticeId, 'pending', 0, @at, @at)`;

/** The parameters of INSERT_NOTICE and INSERT_NOTICE_OUTBOX for one person told. */
export function noticeParameters(notice: SpaceNotice, recipient: NoticeRecipient) {
  return {
    noticeId: randomUUID(),
    messageId: randomUUID(),
    abId: notice.abId,
    what: notice.what,
    at: notice.at,
    byClaimId: notice.byClaimId,
    fromEmail: notice.fromEmail,
    toEmail: notice.toEmail,
    confirmationId: notice.confirmationId,
    recipient: recipient.email,
    role: recipient.role,
  };
}

/**
 * Writes a notice for each person it tells, with its outbox row, in the transaction the caller
 * holds; answers the id of the notice to the lead address in force, if there is one.
 */
export function noticeWriter(sqlite: SqliteClient): (notice: SpaceNotice) => string | null {
  const listingEmail = sqlite.prepare<{ abId: string }, { email: string | null }>(LISTING_EMAIL);
  const liveClaims = sqlite.prepare<{ abId: string }, { claimId: string; email: string | null }>(LIVE_CLAIMS);
  const insertNotice = sqlite.prepare(INSERT_NOTICE);
  const insertOutbox = sqlite.prepare(INSERT_NOTICE_OUTBOX);
  return (notice) => {
    const listing = { abId: notice.abId };
    const email = listingEmail.get(listing)?.email ?? null;
    let leadAddressNotice: string | null = null;
    for (const recipient of noticeRecipients(notice, { email, claims: liveClaims.all(listing) })) {
      const parameters = noticeParameters(notice, recipient);
      insertNotice.run(parameters);
      insertOutbox.run(parameters);
      if (recipient.role === "lead_address") leadAddressNotice = parameters.noticeId;
    }
    return leadAddressNotice;
  };
}

/** A notice to deliver, with the listing it is about and the claim that acted (both engines). */
export function createSpaceNoticeRepository(db: StoreDb): SpaceNoticeStore {
  const forDelivery = db
    .select({
      notice: spaceNotices,
      listing: {
        businessName: merchants.businessName,
        legalName: merchants.legalName,
        siret: merchants.siret,
        city: merchants.city,
      },
      claimVia: merchantClaims.via,
      claimSiren: merchantClaims.siren,
    })
    .from(spaceNotices)
    .innerJoin(merchants, eq(merchants.abId, spaceNotices.abId))
    .leftJoin(merchantClaims, eq(merchantClaims.claimId, spaceNotices.byClaimId))
    .where(eq(spaceNotices.noticeId, sql.placeholder("noticeId")))
    .prepare();
  return {
    async findForDelivery(noticeId) {
      const row = await forDelivery.get({ noticeId });
      if (!row) return null;
      const { notice, listing, claimVia, claimSiren } = row;
      return {
        noticeId: notice.noticeId,
        abId: notice.abId,
        what: notice.what as NoticeWhat,
        at: notice.at,
        byClaimId: notice.byClaimId,
        fromEmail: notice.fromEmail,
        toEmail: notice.toEmail,
        confirmationId: notice.confirmationId,
        recipient: { email: notice.recipient, role: notice.recipientRole as NoticeRecipientRole },
        listing,
        by: claimVia !== null && claimSiren !== null ? { via: claimVia as SpaceVia, siren: claimSiren } : null,
      };
    },
  };
}
