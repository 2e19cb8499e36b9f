import { readFileSync } from "node:fs";
import { z } from "zod";
import { FRENCH_WEEKDAYS } from "../../schemas/decision-card.ts";
import { dayAfter } from "../calendar.ts";
import type { HoursException } from "../merchant.ts";
import { frenchHours } from "../registry/decision-card.ts";
import {
  type DayHours,
  type FrenchWeekday,
  formatClock,
  isoInZone,
  localParts,
  parseDayHours,
  zonedInstant,
} from "./opening-hours.ts";

/*
 * Whether a merchant is open at an instant, on the Paris wall clock: its usual week
 * (merchants.hours), its own exceptions (merchants.hours_exceptions: a closure for the holidays,
 * other hours on a date) and the French public holidays (data/french-public-holidays.json). The
 * one rule read by the search hits (`merchant.opening`), the opening filters of both search
 * engines (src/search/opening-filter.ts) and check_availability. Pure: the instant is an argument.
 */

export const PARIS = "Europe/Paris";

/** What the opening is read from. */
export interface OpeningSchedule {
  /** The usual week as declared (lowercase French weekday -> "fermé" or ranges); null when none. */
  hours: Record<string, string> | null;
  exceptions: readonly HoursException[];
  /** The merchant's department (Alsace-Moselle has two more public holidays); null when unknown. */
  department: string | null;
}

export interface Opening {
  /** Open at the instant; null when nothing says (no hours, a day not declared, a public holiday without an exception). */
  open_now: boolean | null;
  /** The day's hours, in short technical English ("06:30-13:30, 15:30-19:30", "closed"); null when unknown. */
  today: string | null;
  /** The next instant it opens or closes, as far as the hours tell (ISO 8601, Paris offset); null when none within 31 days. */
  next_change: string | null;
}

/** How far ahead next_change looks: a month covers a summer closure. */
export const NEXT_CHANGE_HORIZON_DAYS = 31;

const holidaysFile = z.object({
  format: z.literal(1),
  fixed: z.array(
    z.object({
      date: z.string().regex(/^\d{2}-\d{2}$/),
      name: z.string(),
      departments: z.array(z.string()).optional(),
    }),
  ),
  afterEaster: z.array(
    z.object({ days: z.number().int(), name: z.string(), departments: z.array(z.string()).optional() }),
  ),
});
const HOLIDAYS = holidaysFile.parse(
  JSON.parse(readFileSync(new URL("../../../data/french-public-holidays.json", import.meta.url), "utf8")),
);

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm), as YYYY-MM-DD. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

const holidayYears = new Map<string, ReadonlyMap<string, string>>();

/**
 * The public holidays of a year (YYYY-MM-DD -> name): the national ones, and Alsace-Moselle's
 * two more when the department is one of its three (null: the national ones alone). Kept per year
 * and department.
 */
export function frenchPublicHolidays(year: number, department: string | null = null): ReadonlyMap<string, string> {
  const key = `${year}|${department ?? ""}`;
  const kept = holidayYears.get(key);
  if (kept) return kept;
  const applies = (departments: string[] | undefined) =>
    departments === undefined || (department !== null && departments.includes(department));
  const easter = easterSunday(year);
  const days = new Map<string, string>();
  for (const holiday of HOLIDAYS.fixed)
    if (applies(holiday.departments)) days.set(`${year}-${holiday.date}`, holiday.name);
  for (const holiday of HOLIDAYS.afterEaster) {
    if (applies(holiday.departments)) days.set(dayAfter(easter, holiday.days), holiday.name);
  }
  holidayYears.set(key, days);
  return days;
}

/** The public holiday a date is in a department (null: the national ones), or null. */
export function publicHolidayOn(date: string, department: string | null): string | null {
  return frenchPublicHolidays(Number(date.slice(0, 4)), department).get(date) ?? null;
}

/** An instant on the Paris wall clock: its calendar day (YYYY-MM-DD) and minute of the day. */
export interface ParisMoment {
  date: string;
  minutes: number;
}

export function parisMoment(at: Date): ParisMoment {
  const local = localParts(at.getTime(), PARIS);
  const pad = (value: number) => String(value).padStart(2, "0");
  return { date: `${local.year}-${pad(local.month)}-${pad(local.day)}`, minutes: local.hour * 60 + local.minute };
}

/** Monday first, as FRENCH_WEEKDAYS. */
export function weekdayOf(date: string): FrenchWeekday {
  return FRENCH_WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7] as FrenchWeekday;
}

/** What a calendar day's hours are, and where they come from. */
export type DayOpening =
  | { kind: "open" | "closed"; hours: DayHours; exception: HoursException | null }
  | { kind: "unknown"; holiday: string | null };

const dayValues = new Map<string, DayHours>();

/** One day's declared value, parsed once per distinct text (a few dozen patterns across the registry). */
function dayHoursOf(value: string): DayHours {
  let parsed = dayValues.get(value);
  if (!parsed) {
    parsed = parseDayHours(value);
    if (dayValues.size < 10_000) dayValues.set(value, parsed);
  }
  return parsed;
}

/** The exception covering a date, if any (the first declared, should two overlap). */
export function exceptionOn(exceptions: readonly HoursException[], date: string): HoursException | null {
  for (const exception of exceptions) if (exception.from <= date && date <= exception.to) return exception;
  return null;
}

/**
 * A schedule read for many days, each declared value parsed once. An exception decides its days;
 * else a public holiday leaves the day unknown (the usual week does not say whether it opens
 * then); else the usual week's day, unknown when not declared or not readable.
 */
export interface ScheduleReader {
  /** Whether anything is known at all (hours or exceptions). */
  known: boolean;
  day(date: string): DayOpening;
}

export function scheduleReader(schedule: OpeningSchedule): ScheduleReader {
  const week = frenchHours(schedule.hours);
  const declared = week !== null && Object.keys(week).length > 0;
  return {
    known: declared || schedule.exceptions.length > 0,
    day(date) {
      const exception = exceptionOn(schedule.exceptions, date);
      if (exception) {
        const hours = dayHoursOf(exception.hours);
        return hours.kind === "unknown" ? { kind: "unknown", holiday: null } : { kind: hours.kind, hours, exception };
      }
      const holiday = publicHolidayOn(date, schedule.department);
      if (holiday !== null) return { kind: "unknown", holiday };
      const value = week?.[weekdayOf(date)];
      const hours = value === undefined ? null : dayHoursOf(value);
      if (!hours || hours.kind === "unknown") return { kind: "unknown", holiday: null };
      return { kind: hours.kind, hours, exception: null };
    },
  };
}

/** The department of a French postal code (two characters, three overseas, 2A/2B in Corsica). */
export function departmentOfPostalCode(postalCode: string): string | null {
  if (!/^\d{5}$/.test(postalCode)) return null;
  if (postalCode.startsWith("97") || postalCode.startsWith("98")) return postalCode.slice(0, 3);
  if (postalCode.startsWith("20")) return Number(postalCode) < 20200 ? "2A" : "2B";
  return postalCode.slice(0, 2);
}

/** A merchant's schedule: its week, its exceptions, and the department of its postal code (for the holidays). */
export function scheduleOf(merchant: {
  hours: Record<string, string> | null;
  hoursExceptions: readonly HoursException[];
  postalCode: string;
}): OpeningSchedule {
  return {
    hours: merchant.hours,
    exceptions: merchant.hoursExceptions,
    department: departmentOfPostalCode(merchant.postalCode),
  };
}

const periodsOf = (day: DayOpening) => (day.kind === "open" && day.hours.kind === "open" ? day.hours.periods : []);

/**
 * Open at a moment of the Paris wall clock: inside one of the day's periods, or one of the day
 * before's that runs past midnight (a period belongs to the day it starts on); null when the day
 * is unknown and no period covers the moment.
 */
export function openAtMoment(reader: ScheduleReader, moment: ParisMoment): boolean | null {
  if (!reader.known) return null;
  const today = reader.day(moment.date);
  if (periodsOf(today).some((period) => period.start <= moment.minutes && moment.minutes < period.end)) return true;
  const before = reader.day(dayAfter(moment.date, -1));
  if (periodsOf(before).some((period) => period.end > 1440 && moment.minutes < period.end - 1440)) return true;
  return today.kind === "unknown" ? null : false;
}

/** The opening at an instant: open_now, today's hours, and the next opening or closing. */
export function openingAt(schedule: OpeningSchedule, at: Date): Opening {
  const reader = scheduleReader(schedule);
  if (!reader.known) return { open_now: null, today: null, next_change: null };
  const moment = parisMoment(at);
  return {
    open_now: openAtMoment(reader, moment),
    today: todayText(reader.day(moment.date)),
    next_change: nextChange(reader, moment),
  };
}

/** The day's hours as the API words them (technical English; the merchant's own note kept as written). */
export function todayText(day: DayOpening): string | null {
  if (day.kind === "unknown")
    return day.holiday === null ? null : `public holiday (${day.holiday}): hours not declared`;
  const hours = day.kind === "closed" ? "closed" : periodsOf(day).map(rangeText).join(", ");
  if (!day.exception) return hours;
  return `${hours} (exception${day.exception.note ? `: ${day.exception.note}` : ""})`;
}

const rangeText = (period: { start: number; end: number }) => `${formatClock(period.start)}-${formatClock(period.end)}`;

/**
 * The next instant the merchant opens (closed or unknown now) or closes (open now), on the days
 * the hours speak of: an unknown day (not declared, a public holiday without an exception) is
 * skipped, not guessed. Periods that touch (23:00-24:00 then 00:00-02:00) are one opening; a
 * merchant open around the clock for the whole horizon has none.
 */
function nextChange(reader: ScheduleReader, moment: ParisMoment): string | null {
  // Periods as minutes from the moment's midnight, from the day before (past midnight) to the horizon.
  const periods: { start: number; end: number }[] = [];
  for (let offset = -1; offset <= NEXT_CHANGE_HORIZON_DAYS; offset += 1) {
    for (const period of periodsOf(reader.day(dayAfter(moment.date, offset)))) {
      periods.push({ start: offset * 1440 + period.start, end: offset * 1440 + period.end });
    }
  }
  periods.sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const period of periods) {
    const last = merged.at(-1);
    if (last && period.start <= last.end) last.end = Math.max(last.end, period.end);
    else merged.push({ ...period });
  }
  const horizonEnd = (NEXT_CHANGE_HORIZON_DAYS + 1) * 1440;
  const now = moment.minutes;
  const current = merged.find((period) => period.start <= now && now < period.end);
  const change = current ? current.end : merged.find((period) => period.start > now)?.start;
  if (change === undefined || change >= horizonEnd) return null;
  const days = Math.floor(change / 1440);
  const [year, month, day] = dayAfter(moment.date, days).split("-").map(Number) as [number, number, number];
  return isoInZone(zonedInstant(year, month, day, change - days * 1440, PARIS), PARIS);
}
