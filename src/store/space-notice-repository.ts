import { randomUUID } from "node:crypto";
import {
  type NoticeForDelivery,
  type NoticeRecipient,
  type NoticeRecipientRole,
  noticeRecipients,
  type SpaceNoticeStore,
} from "../domain/merchant-space/space-notices.ts";
import type { NoticeWhat, SpaceNotice, SpaceVia } from "../domain/merchant-space/space-store.ts";
import type { StoreConnection } from "./connection.ts";

/*
 * The notices of claims and lead email changes (port: src/domain/merchant-space/space-notices.ts;
 * PostgreSQL: src/store/postgres/space-notice-repository.ts). A notice is written inside the
 * transaction of its change, one row and one outbox row per person told, who being read in that
 * transaction (the listing's lead address and live claims).
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

export type NoticeDeliveryRow = NoticeRow & {
  business_name: string;
  legal_name: string;
  siret: string;
  city: string;
  claim_via: string | null;
  claim_siren: string | null;
};

export const NOTICE_FOR_DELIVERY = `SELECT n.*, m.business_name, m.legal_name, m.siret, m.city,
    c.via AS claim_via, c.siren AS claim_siren
  FROM space_notices n JOIN merchants m ON m.ab_id = n.ab_id
  LEFT JOIN merchant_claims c ON c.claim_id = n.by_claim_id
  WHERE n.notice_id = @noticeId`;

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

export function createSpaceNoticeRepository(db: StoreConnection): SpaceNoticeStore {
  const forDelivery = db.$client.prepare<{ noticeId: string }, NoticeDeliveryRow>(NOTICE_FOR_DELIVERY);
  return {
    async findForDelivery(noticeId) {
      const row = forDelivery.get({ noticeId });
      return row ? noticeForDeliveryOf(row) : null;
    },
  };
}

export function noticeForDeliveryOf(row: NoticeDeliveryRow): NoticeForDelivery {
  return {
    noticeId: row.notice_id,
    abId: row.ab_id,
    what: row.what as NoticeWhat,
    at: row.at,
    byClaimId: row.by_claim_id,
    fromEmail: row.from_email,
    toEmail: row.to_email,
    confirmationId: row.confirmation_id,
    recipient: { email: row.recipient, role: row.recipient_role as NoticeRecipientRole },
    listing: { businessName: row.business_name, legalName: row.legal_name, siret: row.siret, city: row.city },
    by:
      row.claim_via !== null && row.claim_siren !== null
        ? { via: row.claim_via as SpaceVia, siren: row.claim_siren }
        : null,
  };
}
