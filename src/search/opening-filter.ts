import {
  type OpeningSchedule,
  openAtMoment,
  type ParisMoment,
  parisMoment,
  publicHolidayOn,
  scheduleReader,
  weekdayOf,
} from "../domain/availability/opening.ts";
import { parseDayHours } from "../domain/availability/opening-hours.ts";
import { dayAfter } from "../domain/calendar.ts";
import { frenchHours } from "../domain/registry/decision-card.ts";
import { FRENCH_WEEKDAYS } from "../schemas/decision-card.ts";
import { FILTER_MARK } from "./embedded/filter-tokens.ts";

/*
 * The opening filters (open_now, open_at) on both engines, in two steps:
 * 1. the engine keeps the merchants whose opening tokens meet the instant's (a superset: open at
 *    some minute of that hour of the week, or an exception on the day or the day before); the
 *    embedded index holds them in its `filters` column (FTS5 tokens), Meilisearch in the
 *    filterable attribute `opening`;
 * 2. the exact rule (src/domain/availability/opening.ts openAtMoment) on each candidate's
 *    schedule, which the index keeps beside it, in rank order: what passes fills the page and is
 *    counted.
 * Tokens, like tags and grid cells (embedded/filter-tokens.ts), are a letter, the filter mark and
 * digits: no word typed by a user reaches them.
 */

/** The schedule as an index keeps it beside a merchant (JSON), null when nothing is known. */
export function storedSchedule(schedule: OpeningSchedule): string | null {
  if (frenchHours(schedule.hours) === null && schedule.exceptions.length === 0) return null;
  return JSON.stringify(schedule);
}

export function scheduleFromStore(stored: string | null): OpeningSchedule | null {
  if (stored === null) return null;
  const parsed = JSON.parse(stored) as Partial<OpeningSchedule>;
  return { hours: parsed.hours ?? null, exceptions: parsed.exceptions ?? [], department: parsed.department ?? null };
}

/** Monday 1 ... Sunday 7, and an hour of the day, as a token's digits. */
const slot = (weekday: number, hour: number) => `${weekday}${String(hour).padStart(2, "0")}`;
const ownToken = (weekday: number, hour: number) => `o${FILTER_MARK}${slot(weekday, hour)}`;
const spillToken = (weekday: number, hour: number) => `s${FILTER_MARK}${slot(weekday, hour)}`;
const exceptionToken = (date: string) => `x${FILTER_MARK}${date.replaceAll("-", "")}`;

/** Exceptions are tokened day by day up to this many days in all (the schema allows 30 of 92 days). */
const MAX_EXCEPTION_DAYS = 2_760;

/**
 * A merchant's opening tokens: for each hour of the usual week it is open at some minute of, one
 * token of the day the period starts on (`o_`), or of the next day for the part past midnight
 * (`s_`); one token per date an exception covers (`x_`).
 */
export function openingTokens(schedule: OpeningSchedule): string[] {
  const tokens = new Set<string>();
  const week = frenchHours(schedule.hours) ?? {};
  FRENCH_WEEKDAYS.forEach((day, index) => {
    const value = week[day];
    if (value === undefined) return;
    const hours = parseDayHours(value);
    if (hours.kind !== "open") return;
    const weekday = index + 1;
    for (const period of hours.periods) {
      for (let hour = Math.floor(period.start / 60); hour * 60 < period.end; hour += 1) {
        tokens.add(hour < 24 ? ownToken(weekday, hour) : spillToken((weekday % 7) + 1, hour - 24));
      }
    }
  });
  let days = 0;
  for (const exception of schedule.exceptions) {
    for (let date = exception.from; date <= exception.to && days < MAX_EXCEPTION_DAYS; date = dayAfter(date)) {
      tokens.add(exceptionToken(date));
      days += 1;
    }
  }
  return [...tokens];
}

/** One instant a filter asks about: its Paris moment, and the tokens any merchant open then carries one of. */
export interface OpeningCheck {
  moment: ParisMoment;
  tokens: string[];
}

/**
 * The tokens of an instant: the hour of the week as the day's own (unless the day is a national
 * public holiday: only an exception opens then) or as the day before's night (unless that day is
 * one), and an exception on the day or the day before. A holiday of Alsace-Moselle alone is left
 * to the exact rule.
 */
export function openingCheck(at: Date): OpeningCheck {
  const moment = parisMoment(at);
  const yesterday = dayAfter(moment.date, -1);
  const weekday = FRENCH_WEEKDAYS.indexOf(weekdayOf(moment.date)) + 1;
  const hour = Math.floor(moment.minutes / 60);
  const tokens: string[] = [];
  if (publicHolidayOn(moment.date, null) === null) tokens.push(ownToken(weekday, hour));
  if (publicHolidayOn(yesterday, null) === null) tokens.push(spillToken(weekday, hour));
  tokens.push(exceptionToken(moment.date), exceptionToken(yesterday));
  return { moment, tokens };
}

/** Whether a schedule is open (true, not unknown) at every instant checked. */
export function passesOpening(schedule: OpeningSchedule | null, checks: readonly OpeningCheck[]): boolean {
  if (checks.length === 0) return true;
  if (schedule === null) return false;
  const reader = scheduleReader(schedule);
  return checks.every((check) => openAtMoment(reader, check.moment) === true);
}

/** What tells one set of checks from another (a page kept for them is kept per minute of the clock). */
export function checksKey(checks: readonly OpeningCheck[]): string {
  return checks.map((check) => `${check.moment.date}T${check.moment.minutes}`).join(",");
}
