import { randomUUID } from "node:crypto";
import {
  type NoticeRecipientRole,
  noticeRecipients,
  type SpaceNoticeStore,
} from "../domain/merchant-space/space-notices.ts";
import type { NoticeWhat, SpaceNotice, SpaceVia } from "../domain/merchant-space/space-store.ts";
import type { StoreConnection } from "./connection.ts";
import { and, asc, drizzle, eq, isNull, sql } from "./drizzle.ts";
import * as schema from "./schema.ts";
import { merchantClaims, merchants, outbox, spaceNotices } from "./schema.ts";
import { rows, run, runNow, type Statement, type StoreDb } from "./store-db.ts";

/*
 * The notices of claims and lead email changes (port: src/domain/merchant-space/space-notices.ts).
 * A notice is written inside the transaction of its change, one row and one outbox row per person
 * told, who being read in that transaction (the listing's lead address and live claims):
 * noticeWrites, for both engines (noticeWriter and postgres/space-notice-repository.ts's
 * insertNoticeOn run it for the repositories not shared yet). Read for delivery by one
 * repository on both engines.
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

/**
 * Writes a notice for each person it tells, with its outbox row, in the transaction `tx` is (who:
 * the listing's lead address and its live claims, read in that transaction); answers the id of
 * the notice to the lead address in force, if there is one. Both engines, one description.
 */
export function* noticeWrites(tx: StoreDb, notice: SpaceNotice): Generator<Statement, string | null, unknown> {
  const [listing] = yield* rows(
    tx.select({ email: merchants.email }).from(merchants).where(eq(merchants.abId, notice.abId)),
  );
  const claims = yield* rows(
    tx
      .select({ claimId: merchantClaims.claimId, email: merchantClaims.email })
      .from(merchantClaims)
      .where(
        and(eq(merchantClaims.abId, notice.abId), isNull(merchantClaims.revokedAt), isNull(merchantClaims.lapsedAt)),
      )
      .orderBy(asc(merchantClaims.createdAt), asc(merchantClaims.claimId)),
  );
  let leadAddressNotice: string | null = null;
  for (const recipient of noticeRecipients(notice, { email: listing?.email ?? null, claims })) {
    const noticeId = randomUUID();
    yield* run(
      tx.insert(spaceNotices).values({
        noticeId,
        abId: notice.abId,
        what: notice.what,
        at: notice.at,
        byClaimId: notice.byClaimId,
        fromEmail: notice.fromEmail,
        toEmail: notice.toEmail,
        confirmationId: notice.confirmationId,
        recipient: recipient.email,
        recipientRole: recipient.role,
      }),
    );
    yield* run(
      tx.insert(outbox).values({
        messageId: randomUUID(),
        kind: "space_notice",
        subjectId: noticeId,
        status: "pending",
        attempts: 0,
        nextAttemptAt: notice.at,
        createdAt: notice.at,
      }),
    );
    if (recipient.role === "lead_address") leadAddressNotice = noticeId;
  }
  return leadAddressNotice;
}

/**
 * noticeWrites inside a SQLite transaction the caller holds, synchronously: for the SQLite
 * repositories that write notices and are not shared yet (the registry's, the lead email
 * confirmations').
 */
export function noticeWriter(sqlite: SqliteClient): (notice: SpaceNotice) => string | null {
  const db = drizzle(sqlite, { schema });
  return (notice) => runNow(noticeWrites(db, notice));
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
