import { FRENCH_WEEKDAYS } from "../../schemas/decision-card.ts";
import { frenchHours } from "../registry/decision-card.ts";

/**
 * Opening hours as merchants declare them: a map keyed by lowercase French weekday ("lundi" ...
 * "dimanche") whose values are comma-separated ranges ("09:00-12:00,14:00-19:00") or a closed
 * label ("fermé"). This module turns that map into minutes and answers "is it open at this
 * instant, and when does it next open or close", in the merchant's own time zone. Pure: the clock
 * and the time zone are arguments.
 */

export type FrenchWeekday = (typeof FRENCH_WEEKDAYS)[number];
export const DEFAULT_TIME_ZONE = "Europe/Paris";

/** One opening period of a day, in minutes after local midnight; `end` may pass 1440 (overnight). */
export interface Period {
  start: number;
  end: number;
}

export type DayHours =
  | { kind: "open"; periods: Period[] }
  | { kind: "closed" }
  /** A value that names no time range (e.g. "sur rendez-vous"): the day's opening is unknown. */
  | { kind: "unknown"; raw: string };

export type WeekHours = Record<FrenchWeekday, DayHours>;

const CLOSED_LABELS = new Set(["ferme", "closed", "-", ""]);
const RANGE = /^(\d{1,2})[:h.](\d{2})?\s*(?:-|–|à|a)\s*(\d{1,2})[:h.](\d{2})?$/u;

function withoutAccents(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "");
}

/** Minutes after midnight of "HH:MM" pieces; null when out of range. `24:00` is allowed as an end. */
function minutes(hours: string | undefined, mins: string | undefined, isEnd: boolean): number | null {
  const h = Number(hours);
  const m = mins === undefined ? 0 : Number(mins);
  if (!Number.isInteger(h) || !Number.isInteger(m) || m > 59) return null;
  if (h === 24 && m === 0 && isEnd) return 1440;
  if (h > 23) return null;
  return h * 60 + m;
}

/** One day's value: "fermé", "09:00-12:00,14:00-19:00", "19:00-02:00" (overnight) or something unknown. */
export function parseDayHours(raw: string): DayHours {
  const text = withoutAccents(raw.trim().toLowerCase());
  if (CLOSED_LABELS.has(text)) return { kind: "closed" };
  const periods: Period[] = [];
  for (const piece of text.split(/[,;/]|\bet\b/u)) {
    const trimmed = piece.trim();
    if (trimmed === "") continue;
    const match = RANGE.exec(trimmed);
    if (!match) return { kind: "unknown", raw };
    const start = minutes(match[1], match[2], false);
    const end = minutes(match[3], match[4], true);
    if (start === null || end === null || start === end) return { kind: "unknown", raw };
    // A range that ends before it starts runs past midnight into the next day.
    periods.push({ start, end: end < start ? end + 1440 : end });
  }
  if (periods.length === 0) return { kind: "unknown", raw };
  periods.sort((a, b) => a.start - b.start);
  return { kind: "open", periods };
}

/** The whole week, Monday first; a day the map does not mention is unknown. Null when no hours are declared. */
export function parseWeekHours(hours: Record<string, string> | null): WeekHours | null {
  const byDay = frenchHours(hours);
  if (byDay === null) return null;
  const week = {} as WeekHours;
  for (const day of FRENCH_WEEKDAYS) {
    const value = byDay[day];
    week[day] = value === undefined ? { kind: "unknown", raw: "" } : parseDayHours(value);
  }
  return week;
}

export function formatClock(totalMinutes: number): string {
  const wrapped = totalMinutes % 1440;
  const text = `${String(Math.floor(wrapped / 60)).padStart(2, "0")}:${String(wrapped % 60).padStart(2, "0")}`;
  return totalMinutes === 1440 ? "24:00" : text;
}

/** A valid IANA time zone, else the default (the registry's merchants are in France). */
export function effectiveTimeZone(timeZone: string | null | undefined): string {
  if (!timeZone) return DEFAULT_TIME_ZONE;
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone });
    return timeZone;
  } catch {
    return DEFAULT_TIME_ZONE;
  }
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock date and time of an instant in a time zone. */
export function localParts(instant: number, timeZone: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Offset of the zone from UTC at an instant, in minutes (Paris: +60 in winter, +120 in summer). */
export function offsetMinutes(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/**
 * The instant of a wall-clock time in a zone. A time inside a spring-forward gap does not exist and
 * is moved forward by the gap (02:30 becomes 03:30); in a fall-back overlap, the earlier instant
 * (Temporal's "compatible" disambiguation).
 */
export function zonedInstant(year: number, month: number, day: number, minuteOfDay: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day) + minuteOfDay * MINUTE_MS;
  // Offsets a day either side cover any transition around this wall time.
  const before = wall - offsetMinutes(wall - DAY_MS, timeZone) * MINUTE_MS;
  const after = wall - offsetMinutes(wall + DAY_MS, timeZone) * MINUTE_MS;
  const candidates = [before, after].filter((instant) => wallMinutes(instant, timeZone) === wall);
  return candidates.length > 0 ? Math.min(...candidates) : before;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

function wallMinutes(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
}

/** ISO 8601 with the zone's offset at that instant: 2026-11-02T09:00:00+01:00. */
export function isoInZone(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  const offset = offsetMinutes(instant, timeZone);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const pad = (value: number) => String(value).padStart(2, "0");
  return (
    `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** Monday = 0 ... Sunday = 6 for a calendar date. */
export function weekdayIndex(year: number, month: number, day: number): number {
  return (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;
}

export function addDays(year: number, month: number, day: number, days: number): [number, number, number] {
  const date = new Date(Date.UTC(year, month - 1, day + days));
  return [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
}
