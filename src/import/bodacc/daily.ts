import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dayAfter } from "../../domain/calendar.ts";
import type { MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import type { SettingsRepository } from "../../domain/settings-store.ts";
import { doneThrough } from "../days.ts";
import { type BodaccImportReport, importBodaccFile } from "./import-bodacc.ts";

/** Where the daily BODACC import keeps the last day done (a setting, on either engine). */
export const BODACC_DAILY_STATE_KEY = "import.bodacc-daily";

/** The announcements a day's issue published (src/official/bodacc-api.ts). */
export interface BodaccDaysSource {
  announcementsPublishedOn(day: string): Promise<{ url: string; text: string }>;
}

export interface BodaccDailyDeps extends Pick<MerchantLifecycleDeps, "registry" | "now"> {
  announcements: BodaccDaysSource;
  settings: Pick<SettingsRepository, "get" | "set">;
  /** A folder of the job's own where each day's export is written before it is read. */
  workDir: string;
}

export interface BodaccDailyReport {
  from: string;
  to: string;
  /** Every day up to this one is done (the next run starts the day after), or null before any. */
  through: string | null;
  /** Each day's import, as `npm run import -- bodacc` reports a file. */
  days: ({ day: string } & BodaccImportReport)[];
}

/**
 * Brings in the BODACC announcements published each day since the last day done (or since the
 * date; the first run starts yesterday) through today: each day's export is written to the work
 * folder and imported as a BODACC file is (src/import/bodacc/import-bodacc.ts), then the last day
 * done is kept in the store. A day is done once its announcements came in, or once a later day's
 * did (`doneThrough`). A day imported again changes nothing.
 */
export async function importBodaccDays(
  deps: BodaccDailyDeps,
  options: { since: string | null; today: string },
  actor: string,
): Promise<BodaccDailyReport> {
  const stored = await deps.settings.get(BODACC_DAILY_STATE_KEY);
  const known = stored && /^\d{4}-\d{2}-\d{2}$/.test(stored) ? stored : null;
  const from = options.since ?? (known ? dayAfter(known) : dayAfter(options.today, -1));
  const report: BodaccDailyReport = { from, to: options.today, through: known, days: [] };
  mkdirSync(deps.workDir, { recursive: true });
  for (let day = from; day <= options.today; day = dayAfter(day)) {
    const { text } = await deps.announcements.announcementsPublishedOn(day);
    const file = path.join(deps.workDir, `bodacc-${day}.jsonl`);
    writeFileSync(file, text);
    try {
      const imported = await importBodaccFile(deps, file, actor);
      report.days.push({ day, ...imported });
      report.through = doneThrough(report.through, day, imported.read > 0, options.today);
    } finally {
      rmSync(file, { force: true });
    }
    if (report.through) await deps.settings.set(BODACC_DAILY_STATE_KEY, report.through, deps.now());
  }
  return report;
}
