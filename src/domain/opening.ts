import { readFileSync } from "node:fs";
import { z } from "zod";
import { dayAfter } from "./calendar.ts";

/*
 * Whether a merchant is open at an instant, evaluated on the Paris wall clock (Intl, no timezone
 * library), French public holidays counted (data/french-public-holidays.json). Issue 37 item 4's
 * rule, pure: the week's ranges in, { open_now, today, next_change } out. Work in progress: not
 * yet wired into search (see docs/decisions.md, "Issue 37: open now").
 */

export const PARIS = "Europe/Paris";
export const WEEKDAYS = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A day's opening ranges, "HH:MM" each (closes may be "24:00"); an empty list: closed that day. */
export type WeekRanges = Partial<Record<Weekday, readonly { opens: string; closes: string }[]>>;

export interface Opening {
  /** Open at the instant; null when the hours say nothing of it (none recorded, a public holiday). */
  open_now: boolean | null;
  /** The day's hours as the merchant wrote them ("08:00-12:00,14:00-19:00", "fermé"), "férié" on a public holiday; null when unknown. */
  today: string | null;
  /** The next instant it opens or closes (UTC ISO), within a week; null when unknown or never. */
  next_change: string | null;
}

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
  JSON.parse(readFileSync(new URL("../../data/french-public-holidays.json", import.meta.url), "utf8")),
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

/** The public holidays of a year (YYYY-MM-DD -> name), with Alsace-Moselle's when the department is one of its three. */
export function frenchPublicHolidays(year: number, department: string | null = null): Map<string, string> {
  const applies = (departments: string[] | undefined) =>
    departments === undefined || (department !== null && departments.includes(department));
  const easter = easterSunday(year);
  const days = new Map<string, string>();
  for (const holiday of HOLIDAYS.fixed)
    if (applies(holiday.departments)) days.set(`${year}-${holiday.date}`, holiday.name);
  for (const holiday of HOLIDAYS.afterEaster) {
    if (applies(holiday.departments)) days.set(dayAfter(easter, holiday.days), holiday.name);
  }
  return days;
}

const wallClock = new Intl.DateTimeFormat("en-CA", {
  timeZone: PARIS,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** The Paris calendar day (YYYY-MM-DD) and minute of the day of an instant. */
export function parisWallClock(at: Date): { date: string; minutes: number } {
  const parts = Object.fromEntries(wallClock.formatToParts(at).map((part) => [part.type, part.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** The instant a Paris wall-clock time names (the first one in the autumn's repeated hour; a time the spring skips moves on). */
export function parisInstant(date: string, minutes: number): Date {
  const asUtc = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  // Paris is UTC+1 or UTC+2: try both offsets, keep the one whose wall clock reads back the same.
  for (const offsetHours of [2, 1]) {
    const candidate = new Date(asUtc - offsetHours * 3_600_000);
    const read = parisWallClock(candidate);
    if (read.date === date && read.minutes === minutes) return candidate;
  }
  return new Date(asUtc - 3_600_000);
}

const minutesOf = (time: string): number => {
  const [hours, minutes] = time.split(":").map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
};

const weekdayOf = (date: string): Weekday => WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7] as Weekday;

/**
 * The opening at `at`: open_now from the day's ranges on the Paris clock; on a public holiday,
 * unknown (null: the hours recorded are a usual week's, and a holiday's are not declared); null
 * throughout when no hours are recorded. next_change is the next opening or closing within a
 * week, skipping holidays (not knowing them, it does not guess).
 */
export function openingAt(
  week: WeekRanges | null,
  texts: Partial<Record<Weekday, string>> | null,
  at: Date,
  department: string | null = null,
): Opening {
  if (!week || Object.keys(week).length === 0) return { open_now: null, today: null, next_change: null };
  const now = parisWallClock(at);
  const holidaysOf = (date: string) => frenchPublicHolidays(Number(date.slice(0, 4)), department);
  const isHoliday = (date: string) => holidaysOf(date).has(date);
  const rangesOf = (date: string) =>
    (week[weekdayOf(date)] ?? []).map((range) => ({ opens: minutesOf(range.opens), closes: minutesOf(range.closes) }));

  const holidayToday = isHoliday(now.date);
  const todayRanges = rangesOf(now.date);
  const knownToday = week[weekdayOf(now.date)] !== undefined;
  const open_now =
    holidayToday || !knownToday ? null : todayRanges.some((r) => r.opens <= now.minutes && now.minutes < r.closes);
  const today = holidayToday ? "férié" : knownToday ? (texts?.[weekdayOf(now.date)] ?? null) : null;

  // The next boundary after now, within a week, on days that are neither holidays nor unknown.
  let next_change: string | null = null;
  for (let offset = 0; offset <= 7 && next_change === null; offset++) {
    const date = dayAfter(now.date, offset);
    if (isHoliday(date) || week[weekdayOf(date)] === undefined) continue;
    const boundaries = rangesOf(date)
      .flatMap((range) => [range.opens, range.closes])
      .sort((a, b) => a - b);
    for (const minute of boundaries) {
      if (offset === 0 && minute <= now.minutes) continue;
      // A range closing at midnight that the next day opens at midnight is no change.
      if (minute === 24 * 60 && rangesOf(dayAfter(date, 1)).some((range) => range.opens === 0)) continue;
      next_change =
        minute >= 24 * 60
          ? parisInstant(dayAfter(date, 1), minute - 24 * 60).toISOString()
          : parisInstant(date, minute).toISOString();
      break;
    }
  }
  return { open_now, today, next_change };
}
