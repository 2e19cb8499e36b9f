import type { MerchantProfile } from "../domain/merchant.ts";
import { signalDefinition } from "../domain/trust/signal-catalog.ts";

/**
 * The stretch of time over which a merchant's documents stay the same.
 *
 * Documents depend on the clock in a few known places only: a signal counts until its
 * `expires_at` (trust score, credentials, the Q&A answers resting on it, next refresh),
 * `years_in_business` moves on the founding anniversary (UTC), and the lead contract's example
 * date moves on 1 January (UTC). Between two of those instants, and while the store content does
 * not change, every document renders to the same bytes. `since` is the start of the current
 * stretch (the latest source change or calendar instant already passed): the documents carry it as
 * their time (`generated_at`, `_meta.timestamp`), so an unchanged merchant gives identical bytes on
 * every run. `until` is the next calendar instant: past it, a published file is stale even if the
 * store did not change.
 */
export interface ContentPeriod {
  since: string;
  until: string | null;
}

export function contentPeriod(profile: MerchantProfile, now: Date): ContentPeriod {
  const nowMs = now.getTime();
  let since = Number.NEGATIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;

  const source = (value: string | null | undefined) => {
    if (!value) return;
    const at = Date.parse(value);
    if (!Number.isNaN(at) && at > since) since = at;
  };
  const boundary = (at: number) => {
    if (Number.isNaN(at)) return;
    if (at <= nowMs) {
      if (at > since) since = at;
    } else if (at < until) {
      until = at;
    }
  };

  const { merchant } = profile;
  source(merchant.updatedAt);
  source(merchant.brandUpdatedAt);
  source(profile.territorialProof?.verifiedAt);
  for (const product of profile.products) source(product.updatedAt);
  for (const cluster of profile.clusters) {
    source(cluster.updatedAt);
    for (const node of cluster.nodes) source(node.humanVerifiedAt);
  }
  for (const signal of profile.signals) {
    source(signal.recordedAt);
    source(signal.verifiedAt);
    if (signal.expiresAt) boundary(Date.parse(signal.expiresAt));
  }

  // 1 January (UTC) of this year and the next: the lead contract's example date.
  const year = now.getUTCFullYear();
  boundary(Date.UTC(year, 0, 1));
  boundary(Date.UTC(year + 1, 0, 1));

  // Anniversaries (UTC calendar, as yearsBetween counts them) of the founding date and of the dates
  // a signal is counted in years from (a company's age): last year's, this year's, next year's.
  const anniversaries = (date: string) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    if (!match) return;
    const month = Number(match[2]) - 1;
    const day = Number(match[3]);
    for (const offset of [-1, 0, 1]) boundary(Date.UTC(year + offset, month, day));
  };
  anniversaries(merchant.foundedOn);
  for (const signal of profile.signals) {
    if (typeof signal.value === "string" && signalDefinition(signal.key)?.readAt) anniversaries(signal.value);
  }

  if (since === Number.NEGATIVE_INFINITY) since = Date.UTC(year, 0, 1);
  return {
    since: new Date(since).toISOString(),
    until: until === Number.POSITIVE_INFINITY ? null : new Date(until).toISOString(),
  };
}
