import { FRENCH_WEEKDAYS } from "../../schemas/decision-card.ts";
import { frenchHours } from "../registry/decision-card.ts";
import { type OpeningSchedule, type ScheduleReader, scheduleReader, todayText } from "./opening.ts";
import {
  addDays,
  type DayHours,
  effectiveTimeZone,
  type FrenchWeekday,
  formatClock,
  isoInZone,
  localParts,
  parseWeekHours,
  weekdayIndex,
  zonedInstant,
} from "./opening-hours.ts";

/** One declared day, as an agent reads it. */
export interface DayView {
  day: FrenchWeekday;
  /** The value the merchant declared, as it stands; null when the day is not declared. */
  declared: string | null;
  status: "open" | "closed" | "unknown";
  periods: { opens: string; closes: string }[];
}

export interface Availability {
  time_zone: string;
  /** The instant checked, in the merchant's time zone. */
  checked_at: string;
  local_weekday: FrenchWeekday;
  hours_declared: boolean;
  /** Every weekday has a value that could be read (a range or a closed label). */
  hours_complete: boolean;
  /** Null when it cannot be told (no hours declared, or today's value cannot be read). */
  open_now: boolean | null;
  /** The opening period the instant falls in; `closes_at` is null when open around the clock. */
  current_period: { opened_at: string; closes_at: string | null } | null;
  /** The next opening strictly after the instant (after the current period when open now). */
  next_opening: { weekday: FrenchWeekday; opens_at: string; closes_at: string } | null;
  today: DayView;
  /** Today's hours as the search's merchant.opening.today words them (a dated exception, a public holiday); null when unknown. */
  today_hours: string | null;
  week: DayView[];
  /** One sentence in technical English for the agent to relay. */
  summary: string;
}

interface Interval {
  start: number;
  end: number;
  weekday: FrenchWeekday;
}

const MINUTE = 60_000;

/**
 * Whether a merchant is open at an instant and when it next opens, from its declared weekly hours,
 * its dated exceptions and the French public holidays (the days as the opening rule reads them,
 * availability/opening.ts: a public holiday without an exception is unknown), in its time zone
 * (Europe/Paris when none or an invalid one is recorded). Overnight ranges ("19:00-02:00") and
 * contiguous periods ("00:00-24:00" every day) are followed across midnight.
 */
export function checkAvailability(
  schedule: OpeningSchedule,
  options: { timeZone?: string | null; at: Date },
): Availability {
  const hours = schedule.hours;
  const timeZone = effectiveTimeZone(options.timeZone);
  const at = options.at.getTime();
  const local = localParts(at, timeZone);
  const localWeekday = FRENCH_WEEKDAYS[weekdayIndex(local.year, local.month, local.day)] ?? "lundi";
  const week = parseWeekHours(hours);
  const reader = scheduleReader(schedule);
  const checkedAt = isoInZone(at, timeZone);

  if (!reader.known) {
    const today: DayView = { day: localWeekday, declared: null, status: "unknown", periods: [] };
    return {
      time_zone: timeZone,
      checked_at: checkedAt,
      local_weekday: localWeekday,
      hours_declared: false,
      hours_complete: false,
      open_now: null,
      current_period: null,
      next_opening: null,
      today,
      today_hours: null,
      week: [],
      summary:
        "The merchant has not declared opening hours; ask about availability in a lead (lead_type rdv or contact).",
    };
  }

  const declared = frenchHours(hours) ?? {};
  const unknownDay: DayHours = { kind: "unknown", raw: "" };
  const weekView = week ? FRENCH_WEEKDAYS.map((day) => dayView(day, week[day], declared[day] ?? null)) : [];
  const today = dayView(localWeekday, week?.[localWeekday] ?? unknownDay, declared[localWeekday] ?? null);
  const hoursComplete = week !== null && FRENCH_WEEKDAYS.every((day) => week[day].kind !== "unknown");
  const todayOpening = reader.day(localDate(local));

  // Yesterday (for overnight ranges) through a week ahead, merged where periods touch.
  const windowStartDay = -1;
  const windowEndDay = 8;
  const intervals = mergeIntervals(collectIntervals(reader, local, timeZone, windowStartDay, windowEndDay));
  const [endYear, endMonth, endDay] = addDays(local.year, local.month, local.day, windowEndDay - 1);
  const windowEnd = zonedInstant(endYear, endMonth, endDay, 1440, timeZone);

  const current = intervals.find((interval) => interval.start <= at && at < interval.end) ?? null;
  const next = intervals.find((interval) => interval.start > at) ?? null;
  const todayUnknown = todayOpening.kind === "unknown";
  const openNow = current !== null ? true : todayUnknown ? null : false;
  const aroundTheClock = current !== null && current.end >= windowEnd;

  const currentPeriod = current
    ? {
        opened_at: isoInZone(current.start, timeZone),
        closes_at: aroundTheClock ? null : isoInZone(current.end, timeZone),
      }
    : null;
  const nextOpening =
    next && !aroundTheClock
      ? { weekday: next.weekday, opens_at: isoInZone(next.start, timeZone), closes_at: isoInZone(next.end, timeZone) }
      : null;

  return {
    time_zone: timeZone,
    checked_at: checkedAt,
    local_weekday: localWeekday,
    hours_declared: week !== null,
    hours_complete: hoursComplete,
    open_now: openNow,
    current_period: currentPeriod,
    next_opening: nextOpening,
    today,
    today_hours: todayText(todayOpening),
    week: weekView,
    summary: summarize({
      openNow,
      current,
      next,
      aroundTheClock,
      timeZone,
      hoursComplete,
      holiday: todayOpening.kind === "unknown" ? todayOpening.holiday : null,
    }),
  };
}

function dayView(day: FrenchWeekday, hours: DayHours, declared: string | null): DayView {
  if (hours.kind === "open") {
    return {
      day,
      declared,
      status: "open",
      periods: hours.periods.map((period) => ({ opens: formatClock(period.start), closes: formatClock(period.end) })),
    };
  }
  return { day, declared, status: hours.kind, periods: [] };
}

/** A local calendar day as YYYY-MM-DD. */
function localDate(local: { year: number; month: number; day: number }): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${local.year}-${pad(local.month)}-${pad(local.day)}`;
}

function collectIntervals(
  reader: ScheduleReader,
  local: { year: number; month: number; day: number },
  timeZone: string,
  fromDay: number,
  toDay: number,
): Interval[] {
  const intervals: Interval[] = [];
  for (let offset = fromDay; offset < toDay; offset += 1) {
    const [year, month, day] = addDays(local.year, local.month, local.day, offset);
    const weekday = FRENCH_WEEKDAYS[weekdayIndex(year, month, day)] ?? "lundi";
    const opening = reader.day(localDate({ year, month, day }));
    if (opening.kind !== "open" || opening.hours.kind !== "open") continue;
    const hours = opening.hours;
    for (const period of hours.periods) {
      intervals.push({
        start: zonedInstant(year, month, day, period.start, timeZone),
        end: zonedInstant(year, month, day, period.end, timeZone),
        weekday,
      });
    }
  }
  return intervals.sort((a, b) => a.start - b.start);
}

/** Periods that touch or overlap (23:00-24:00 then 00:00-02:00) are one opening. */
function mergeIntervals(intervals: Interval[]): Interval[] {
  const merged: Interval[] = [];
  for (const interval of intervals) {
    const last = merged.at(-1);
    if (last && interval.start <= last.end + MINUTE - 1) {
      last.end = Math.max(last.end, interval.end);
    } else {
      merged.push({ ...interval });
    }
  }
  return merged;
}

function summarize(facts: {
  openNow: boolean | null;
  current: Interval | null;
  next: Interval | null;
  aroundTheClock: boolean;
  timeZone: string;
  hoursComplete: boolean;
  /** Today's public holiday, when it leaves today unknown. */
  holiday: string | null;
}): string {
  const zone = `(${facts.timeZone} time)`;
  const caveat = facts.hoursComplete ? "" : " Some days have no readable hours; confirm with the merchant.";
  const at = (instant: number) => isoInZone(instant, facts.timeZone);
  if (facts.aroundTheClock) return `Open now, around the clock ${zone}.${caveat}`;
  if (facts.current) return `Open now until ${at(facts.current.end)} ${zone}.${caveat}`;
  const nextText = facts.next
    ? `next opening ${facts.next.weekday} ${at(facts.next.start)} ${zone}`
    : "no opening declared in the coming week";
  if (facts.openNow === null && facts.holiday !== null) {
    return `Today is a public holiday (${facts.holiday}) the merchant declared no hours for; ${nextText}.${caveat}`;
  }
  if (facts.openNow === null) return `Today's hours cannot be read; ${nextText}.${caveat}`;
  return `Closed now; ${nextText}.${caveat}`;
}
