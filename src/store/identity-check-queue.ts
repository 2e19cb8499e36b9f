import { LISTED_STATUSES } from "../domain/merchants/lifecycle.ts";
import type { Db } from "./db.ts";
import { and, asc, eq, inArray, isNull, lte, ne, or } from "./drizzle.ts";
import { merchants, signals } from "./schema.ts";

/**
 * The listed merchants whose official identity check (`siret_verified`) is due by `horizon` (an
 * ISO instant): it expires by then, or it is missing, not verified (failed, unverified) or without
 * an end; soonest first (missing ones before all), then by ab_id. Read by `npm run verify -- --due`.
 * A merchant whose closure is recorded is not due: it is no longer a search hit, and a reopening
 * reaches it through the stock or the daily import, which lift SIRENE's closure.
 */
export function merchantsDueForIdentityCheck(db: Db, options: { horizon: string; limit?: number }): string[] {
  const query = db
    .select({ abId: merchants.abId })
    .from(merchants)
    .leftJoin(signals, and(eq(signals.abId, merchants.abId), eq(signals.key, "siret_verified")))
    .where(
      and(
        inArray(merchants.status, [...LISTED_STATUSES]),
        isNull(merchants.closure),
        or(
          isNull(signals.key),
          ne(signals.status, "verified"),
          isNull(signals.expiresAt),
          lte(signals.expiresAt, options.horizon),
        ),
      ),
    )
    .orderBy(asc(signals.expiresAt), asc(merchants.abId));
  return (options.limit === undefined ? query : query.limit(options.limit)).all().map((row) => row.abId);
}
