/**
 * The notices of claims and lead email changes written on PostgreSQL: the SQLite store's
 * statements (src/store/space-notice-repository.ts), numbered, on the change's transaction. Read
 * for delivery by the shared repository (createSpaceNoticeRepository).
 */
import type pg from "pg";
import { noticeRecipients } from "../../domain/merchant-space/space-notices.ts";
import type { SpaceNotice } from "../../domain/merchant-space/space-store.ts";
import {
  INSERT_NOTICE,
  INSERT_NOTICE_OUTBOX,
  LISTING_EMAIL,
  LIVE_CLAIMS,
  noticeParameters,
} from "../space-notice-repository.ts";
import { numbered, type Queryable } from "./transaction.ts";

async function query<T extends pg.QueryResultRow>(
  db: Queryable,
  statement: string,
  parameters: Record<string, unknown>,
): Promise<T[]> {
  const { text, values } = numbered(statement, parameters);
  return (await db.query<T>(text, values)).rows;
}

/**
 * Writes a notice for each person it tells, with its outbox row, on a client inside the change's
 * transaction; answers the id of the notice to the lead address in force, if there is one.
 */
export async function insertNoticeOn(client: pg.PoolClient, notice: SpaceNotice): Promise<string | null> {
  const listing = { abId: notice.abId };
  const email = (await query<{ email: string | null }>(client, LISTING_EMAIL, listing))[0]?.email ?? null;
  const claims = await query<{ claimId: string; email: string | null }>(client, LIVE_CLAIMS, listing);
  let leadAddressNotice: string | null = null;
  for (const recipient of noticeRecipients(notice, { email, claims })) {
    const parameters = noticeParameters(notice, recipient);
    await query(client, INSERT_NOTICE, parameters);
    await query(client, INSERT_NOTICE_OUTBOX, parameters);
    if (recipient.role === "lead_address") leadAddressNotice = parameters.noticeId;
  }
  return leadAddressNotice;
}
