import {
  applyBodaccAnnouncements,
  BODACC_DATASET_URL,
  type BodaccPeriod,
  withdrawnBy,
} from "../../domain/merchants/apply-bodacc-announcements.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import type { OfficialAnnouncement } from "../../domain/merchants/official-announcement.ts";
import { openText, type ReadMeter } from "../open-text.ts";
import { addRejection, type RejectionList } from "../rejections.ts";
import { announcementOf } from "./announcements.ts";
import { bodaccRecords } from "./records.ts";

/** A record set aside: its position in the file, its line when known, why. */
export interface BodaccRejection {
  record: number;
  line: number | null;
  error: string;
}

export interface BodaccImportReport extends RejectionList<BodaccRejection> {
  /** Records read. */
  read: number;
  /** Merchants of the companies the file names, and what became of them. */
  matched: number;
  updated: number;
  /** Merchants an official closure was recorded for (still resolvable, no longer search hits). */
  closed: number;
  unchanged: number;
  /** The file's first and last publication dates. */
  period: BodaccPeriod | null;
  source_url: string;
  /** Records set aside, by reason: no_siren, not_in_registry, cancelled. */
  skipped: Record<string, number>;
}

export interface BodaccImportHooks {
  /** Called with each merchant the import updated or recorded closed (to refresh a search index). */
  onChanged?: (abId: string) => void;
  /** Called every `progressEvery` records read, with the report so far and the companies kept. */
  onProgress?: (report: BodaccImportReport, companies: number) => void;
  progressEvery?: number;
  /** Told the file and the bytes read of it (a long import's progress). */
  meter?: ReadMeter;
}

/**
 * Brings the registry in line with a BODACC file (src/import/bodacc/records.ts: a records page,
 * /exports/json or /exports/jsonl; plain, gzipped or zipped). A first pass reads the file and
 * keeps, for each company (SIREN) the registry knows, its announcements, with the ids that
 * cancellations and corrections take out (they may come before or after what they cancel): memory
 * holds the announcements of registry companies and those ids only. The second applies them, one
 * merchant a transaction (applyBodaccAnnouncements): the same file twice changes nothing the second
 * time, so an import killed half-way is resumed by running it again.
 */
const COMPANIES_PER_TRANSACTION = 250;

export async function importBodaccFile(
  deps: Pick<MerchantLifecycleDeps, "registry" | "now">,
  file: string,
  actor: string,
  hooks: BodaccImportHooks = {},
): Promise<BodaccImportReport> {
  const report: BodaccImportReport = {
    read: 0,
    matched: 0,
    updated: 0,
    closed: 0,
    unchanged: 0,
    period: null,
    source_url: BODACC_DATASET_URL,
    skipped: {},
    rejected: [],
    rejected_count: 0,
  };
  const skip = (reason: string) => {
    report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
  };
  const every = hooks.progressEvery ?? 10_000;
  const bySiren = new Map<string, OfficialAnnouncement[]>();
  const withdrawn = new Set<string>();
  const layout = /\.(jsonl|ndjson)(\.gz|\.zip)?$/i.test(file) ? ({ layout: "jsonl" } as const) : {};

  hooks.meter?.plan([file]);
  for await (const item of bodaccRecords(openText(file, hooks.meter), layout)) {
    report.read += 1;
    if (report.read % every === 0) hooks.onProgress?.(report, bySiren.size);
    if ("error" in item) {
      addRejection(report, { record: item.number, line: item.line, error: item.error });
      continue;
    }
    const reading = announcementOf(item.record);
    if ("error" in reading) {
      addRejection(report, { record: item.number, line: item.line, error: reading.error });
      continue;
    }
    const { announcement } = reading;
    const day = announcement.publishedOn;
    const period = report.period;
    report.period = period
      ? { from: day < period.from ? day : period.from, to: day > period.to ? day : period.to }
      : { from: day, to: day };
    for (const id of withdrawnBy(announcement)) withdrawn.add(id);
    const sirens = [...new Set([...announcement.subjects, ...announcement.previousOwners])];
    if (sirens.length === 0) {
      skip("no_siren");
      continue;
    }
    const registered: string[] = [];
    for (const siren of sirens) {
      if (bySiren.has(siren) || (await deps.registry.abIdsOfSiren(siren)).length > 0) registered.push(siren);
    }
    if (registered.length === 0) {
      skip("not_in_registry");
      continue;
    }
    for (const siren of registered) {
      const list = bySiren.get(siren) ?? [];
      list.push(announcement);
      bySiren.set(siren, list);
    }
  }

  const cancelled = new Set<string>();
  const period = report.period;
  if (period) {
    // Companies a few hundred per transaction (each merchant's write a savepoint of it).
    const companies = [...bySiren];
    for (let start = 0; start < companies.length; start += COMPANIES_PER_TRANSACTION) {
      const slice = companies.slice(start, start + COMPANIES_PER_TRANSACTION);
      await decideInRegistry(deps, { sirens: slice.map(([siren]) => siren) }, (decision) => {
        for (const [siren, announcements] of slice) {
          const standing = announcements.filter((announcement) => {
            if (!withdrawn.has(announcement.id)) return true;
            cancelled.add(announcement.id);
            return false;
          });
          for (const outcome of applyBodaccAnnouncements(decision, siren, standing, period, actor)) {
            report.matched += 1;
            report[outcome.kind] += 1;
            if (outcome.kind !== "unchanged") hooks.onChanged?.(outcome.abId);
          }
        }
      });
    }
  }
  if (cancelled.size > 0) report.skipped.cancelled = cancelled.size;
  return report;
}
