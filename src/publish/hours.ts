import { frenchHours } from "../domain/registry/decision-card.ts";
import { FRENCH_WEEKDAYS } from "../schemas/decision-card.ts";

export type FrenchWeekday = (typeof FRENCH_WEEKDAYS)[number];

export interface DayHours {
  day: FrenchWeekday;
  /** As recorded ("08:00-12:00,13:30-18:00", "fermé"). */
  text: string;
  /** Opening ranges read from the text, "HH:MM" each; empty when closed or unreadable. */
  ranges: { opens: string; closes: string }[];
}

const SCHEMA_DAYS: Record<FrenchWeekday, string> = {
  lundi: "Monday",
  mardi: "Tuesday",
  mercredi: "Wednesday",
  jeudi: "Thursday",
  vendredi: "Friday",
  samedi: "Saturday",
  dimanche: "Sunday",
};

const RANGE = /(\d{1,2})\s*[:h]\s*(\d{2})\s*[-–à]+\s*(\d{1,2})\s*[:h]\s*(\d{2})/gu;

const pad = (value: string) => value.padStart(2, "0");

const weekCache = new WeakMap<object, DayHours[] | null>();

/** The week, Monday first, with each day's ranges; null when no hours are recorded (memoized per hours object). */
export function weekHours(hours: Record<string, string> | null): DayHours[] | null {
  if (hours === null) return null;
  let week = weekCache.get(hours);
  if (week === undefined) {
    week = computeWeek(hours);
    weekCache.set(hours, week);
  }
  return week;
}

function computeWeek(hours: Record<string, string>): DayHours[] | null {
  const byDay = frenchHours(hours);
  if (byDay === null) return null;
  return FRENCH_WEEKDAYS.flatMap((day) => {
    const text = byDay[day];
    if (text === undefined) return [];
    const ranges = [...text.matchAll(RANGE)].map((match) => ({
      opens: `${pad(match[1] ?? "0")}:${match[2] ?? "00"}`,
      closes: `${pad(match[3] ?? "0")}:${match[4] ?? "00"}`,
    }));
    return [{ day, text, ranges }];
  });
}

export interface OpeningHoursSpecification {
  "@type": "OpeningHoursSpecification";
  dayOfWeek: string[];
  opens: string;
  closes: string;
}

/**
 * Schema.org's closing time of a range that ends at midnight: its Time values stop at 23:59:59,
 * and a day open around the clock is 00:00-23:59 (schema.org/OpeningHoursSpecification).
 */
function schemaClosing(closes: string): string {
  return closes === "24:00" ? "23:59" : closes;
}

/** Schema.org opening hours: one specification per range, days sharing a range grouped together. */
export function openingHoursSpecification(week: DayHours[] | null): OpeningHoursSpecification[] {
  if (!week) return [];
  const grouped = new Map<string, OpeningHoursSpecification>();
  for (const day of week) {
    for (const range of day.ranges) {
      const closes = schemaClosing(range.closes);
      const key = `${range.opens}-${closes}`;
      const existing = grouped.get(key);
      const schemaDay = `https://schema.org/${SCHEMA_DAYS[day.day]}`;
      if (existing) existing.dayOfWeek.push(schemaDay);
      else
        grouped.set(key, {
          "@type": "OpeningHoursSpecification",
          dayOfWeek: [schemaDay],
          opens: range.opens,
          closes,
        });
    }
  }
  return [...grouped.values()];
}
