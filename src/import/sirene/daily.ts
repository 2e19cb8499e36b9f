import { dayAfter } from "../../domain/calendar.ts";
import {
  applyOfficialEstablishment,
  applyOfficialLegalUnit,
  countOutcome,
  type OfficialCounts,
  type OfficialOutcome,
  officialCounts,
} from "../../domain/merchants/apply-official-establishment.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import {
  type ChangesPage,
  FIRST_CURSOR,
  type OfficialChanges,
  type OfficialLegalUnitChange,
} from "../../domain/merchants/official-changes.ts";
import type { OfficialEstablishment } from "../../domain/merchants/official-establishment.ts";
import type { SettingsRepository } from "../../domain/settings-store.ts";
import { doneThrough } from "../days.ts";
import { addRejection, type RejectionList } from "../rejections.ts";

/** Where the daily import keeps how far it got (a setting, on either engine). */
export const SIRENE_DAILY_STATE_KEY = "import.sirene-daily";
/** Where the stock import leaves the date of the last stock imported: the first day the daily run asks. */
export const SIRENE_STOCK_DATE_KEY = "import.sirene.stock-date";

/** INSEE's days are Paris days (its processing timestamps are Paris time). */
export const INSEE_TIME_ZONE = "Europe/Paris";

/** The two queries of a day, in the order they are asked: establishments, then companies. */
export type DailyQuery = "establishments" | "legal_units";
const QUERIES: readonly string[] = ["establishments", "legal_units"];

/**
 * How far the daily import got, kept in the store (settings): every day up to `through` is done,
 * and `at` says where a run that did not finish stopped (its first day, the day, the query and the
 * cursor of the page to ask next).
 */
export interface SireneDailyState {
  through: string | null;
  at: { from: string; day: string; query: DailyQuery; cursor: string } | null;
}

export interface SireneDailyDeps extends MerchantLifecycleDeps {
  changes: OfficialChanges;
  settings: Pick<SettingsRepository, "get" | "set">;
}

export interface SireneDailyOptions {
  /** The first day to ask (YYYY-MM-DD); without it, the day after the last one done. */
  since: string | null;
  /** Today, as INSEE's days are counted (Paris): the last day asked. */
  today: string;
}

export interface SireneDailyRejection {
  day: string;
  query: DailyQuery;
  /** The record's SIRET or SIREN, when it has one. */
  id: string | null;
  error: string;
}

export interface SireneDailyReport extends RejectionList<SireneDailyRejection>, OfficialCounts {
  /** The days asked: from, to. */
  from: string;
  to: string;
  /** Every day up to this one is done (the next run starts the day after), or null before any. */
  through: string | null;
  /** Whether this run took up where one that did not finish stopped. */
  resumed: boolean;
  /** Pages read. */
  pages: number;
  /** Establishments and companies read. */
  establishments: number;
  legal_units: number;
}

/** Rows per transaction, as the stock's: a serving server waits a few tens of milliseconds at most. */
const BATCH_ROWS = 250;

/** The state as stored, or none (a value that does not read is started over: the pages are read again). */
export function readDailyState(stored: string | null): SireneDailyState {
  if (!stored) return { through: null, at: null };
  try {
    const value = JSON.parse(stored) as Partial<SireneDailyState>;
    const day = (text: unknown) => (typeof text === "string" && /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null);
    const at = value.at;
    return {
      through: day(value.through),
      at:
        at && day(at.from) && day(at.day) && QUERIES.includes(at.query) && typeof at.cursor === "string"
          ? { from: at.from, day: at.day, query: at.query, cursor: at.cursor }
          : null,
    };
  } catch {
    return { through: null, at: null };
  }
}

/**
 * Brings in what INSEE processed, day after day, from API Sirene (`deps.changes`): for each day
 * from the first one to ask through today, the establishments processed that day, then the
 * companies, page after page by the API's cursor. Each establishment is applied as the stock
 * applies its row (creations named from the company the answer embeds, closures, changes of name,
 * sign, address and activity, non-public ones and other trades as the stock treats them), verified
 * as of the day processed; each company renames, corrects or, ceased, archives its merchants. A
 * page is applied a few hundred records per transaction, and where the run got to (the next
 * page's cursor) is kept in the store after each page: a run killed or failed is taken up at that
 * page (a page applied again changes nothing). A day is done once its answers came in (INSEE
 * publishes a day at once, the next morning), or once a later day's did (it was empty); today is
 * never done. A record the API answers in another shape is counted with its reason, the others
 * applied; an answer the client cannot read throws (OfficialRegistryError), what was applied stays.
 */
export async function importSireneDays(
  deps: SireneDailyDeps,
  options: SireneDailyOptions,
  actor: string,
  hooks: { onPage?: (report: SireneDailyReport, day: string, query: DailyQuery) => void } = {},
): Promise<SireneDailyReport> {
  const state = readDailyState(await deps.settings.get(SIRENE_DAILY_STATE_KEY));
  const resume = state.at && (options.since === null || options.since === state.at.from) ? state.at : null;
  const stockDate =
    options.since === null && !resume && !state.through ? await deps.settings.get(SIRENE_STOCK_DATE_KEY) : null;
  const from =
    resume?.from ??
    options.since ??
    (state.through ? dayAfter(state.through) : (stockDate?.slice(0, 10) ?? dayAfter(options.today, -1)));
  const report: SireneDailyReport = {
    from,
    to: options.today,
    through: state.through,
    resumed: resume !== null,
    pages: 0,
    establishments: 0,
    legal_units: 0,
    ...officialCounts(),
    rejected: [],
    rejected_count: 0,
  };
  const save = (at: SireneDailyState["at"]) =>
    deps.settings.set(SIRENE_DAILY_STATE_KEY, JSON.stringify({ through: report.through, at }), deps.now());
  const count = (outcomes: readonly OfficialOutcome[]) => {
    for (const outcome of outcomes) countOutcome(report, outcome);
  };

  const applyEstablishments = async (rows: readonly OfficialEstablishment[]) => {
    report.establishments += rows.length;
    count(
      await decideInRegistry(deps, { sirets: rows.map((row) => row.siret) }, (decision) =>
        rows.map((row) => decision.registry.row(() => applyOfficialEstablishment(decision, row, actor))),
      ),
    );
  };
  const applyLegalUnits = async (units: readonly OfficialLegalUnitChange[]) => {
    report.legal_units += units.length;
    const outcomes = await decideInRegistry(deps, { sirens: units.map((unit) => unit.siren) }, (decision) =>
      units.map((unit) => decision.registry.row(() => applyOfficialLegalUnit(decision, unit, actor))),
    );
    count(outcomes.flat());
  };
  /**
   * One query of a day, page after page from `cursor`: each page applied, then the next page's
   * cursor kept. True when the day's query matched something.
   */
  const readQuery = async <Item>(
    day: string,
    query: DailyQuery,
    cursor: string,
    ask: (cursor: string) => Promise<ChangesPage<Item>>,
    apply: (items: readonly Item[]) => Promise<void>,
  ): Promise<boolean> => {
    let answered = false;
    for (;;) {
      const page = await ask(cursor);
      report.pages += 1;
      for (const rejected of page.rejected) addRejection(report, { day, query, ...rejected });
      if (page.total > 0 || page.items.length > 0) answered = true;
      // A few hundred records a transaction, each applied as the stock applies its row.
      for (let start = 0; start < page.items.length; start += BATCH_ROWS) {
        await apply(page.items.slice(start, start + BATCH_ROWS));
      }
      hooks.onPage?.(report, day, query);
      // The last page gives back its own cursor; a page with nothing on it ends the query too.
      if (page.nextCursor === cursor || page.items.length + page.rejected.length === 0) return answered;
      cursor = page.nextCursor;
      await save({ from, day, query, cursor });
    }
  };

  for (let day = resume?.day ?? from; day <= options.today; day = dayAfter(day)) {
    const resuming = resume !== null && day === resume.day ? resume : null;
    let answered = false;
    if (resuming === null || resuming.query === "establishments") {
      answered = await readQuery(
        day,
        "establishments",
        resuming?.cursor ?? FIRST_CURSOR,
        (cursor) => deps.changes.establishmentsProcessedOn(day, cursor),
        applyEstablishments,
      );
      await save({ from, day, query: "legal_units", cursor: FIRST_CURSOR });
    }
    const companies = await readQuery(
      day,
      "legal_units",
      resuming?.query === "legal_units" ? resuming.cursor : FIRST_CURSOR,
      (cursor) => deps.changes.legalUnitsProcessedOn(day, cursor),
      applyLegalUnits,
    );
    report.through = doneThrough(report.through, day, answered || companies, options.today);
    await save({ from, day: dayAfter(day), query: "establishments", cursor: FIRST_CURSOR });
  }
  await save(null);
  return report;
}
