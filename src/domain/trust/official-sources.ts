import type { MerchantSource } from "../../schemas/registry.ts";
import type { Signal } from "../merchant.ts";
import { OFFICIAL_SOURCE_NAMES, type OfficialSourceName, originOf } from "./signal-catalog.ts";

/**
 * The merchant's official sources (merchant.sources on resolve and the decision card, and the
 * dates its published documents and page show): one entry per official source among its signals,
 * whatever their status (a failed check is the source speaking too), in the catalog's order, each
 * with when it last said what the registry holds (`confirmed_at`: the latest check of its signals,
 * a SIRENE stock's date or the day API Sirene processed the record, the BODACC file's last
 * publication, the live API check) and when its own record last changed, where it says
 * (`changed_at`: INSEE's last processing of the establishment, the BODACC announcement a check
 * rests on; null when it does not say). The one home of the rule: every surface reads it here.
 */
export function officialSources(signals: readonly Signal[]): MerchantSource[] {
  const bySource = new Map<OfficialSourceName, MerchantSource>();
  for (const signal of signals) {
    const source = originOf(signal);
    if (source === null) continue;
    const confirmedAt = signal.verifiedAt ?? signal.recordedAt;
    const changedAt = signal.changedAt ?? (signal.notice ? `${signal.notice.publishedOn}T00:00:00.000Z` : null);
    const known = bySource.get(source);
    bySource.set(source, {
      source,
      confirmed_at: known && known.confirmed_at > confirmedAt ? known.confirmed_at : confirmedAt,
      changed_at: latest(known?.changed_at ?? null, changedAt),
    });
  }
  return OFFICIAL_SOURCE_NAMES.flatMap((name) => {
    const found = bySource.get(name);
    return found ? [found] : [];
  });
}

const latest = (a: string | null, b: string | null) => (a === null ? b : b === null || a > b ? a : b);
