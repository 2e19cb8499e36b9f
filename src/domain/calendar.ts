/**
 * Calendar arithmetic on dates as the registry stores them (YYYY-MM-DD, UTC): how many whole years
 * a date is behind an instant, when that count moves next, and which dates move at a given day; the
 * day after a day, and the date of an instant in a time zone.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/**
 * Whole years from the founding date to `now` (UTC calendar). It only moves on the founding
 * anniversary, so the content hash stays the same between two calls on other days.
 */
export function yearsBetween(from: string, now: Date): number {
  const match = DATE.exec(from);
  if (!match) return 0;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  let years = now.getUTCFullYear() - year;
  const beforeAnniversary =
    now.getUTCMonth() + 1 < month || (now.getUTCMonth() + 1 === month && now.getUTCDate() < day);
  if (beforeAnniversary) years -= 1;
  return Math.max(0, years);
}

/** The next anniversary of a date strictly after `now` (UTC midnight), as an ISO instant; null for no date. */
export function nextAnniversary(from: string, now: Date): string | null {
  const match = DATE.exec(from);
  if (!match) return null;
  const [month, day] = [Number(match[2]) - 1, Number(match[3])];
  const year = now.getUTCFullYear();
  for (const candidate of [year, year + 1]) {
    const at = Date.UTC(candidate, month, day);
    if (at > now.getTime()) return new Date(at).toISOString();
  }
  return null;
}

/** The day `days` after (before, when negative) a date (YYYY-MM-DD). */
export function dayAfter(day: string, days = 1): string {
  return new Date(Date.parse(`${day.slice(0, 10)}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The date (YYYY-MM-DD) of an instant in a time zone (INSEE's days are Paris days). */
export function dateIn(timeZone: string, at: Date): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

/** The first UTC midnight strictly after an instant, as an ISO instant: where anniversaries fall. */
export function nextUtcMidnight(after: Date): string {
  return new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate() + 1)).toISOString();
}

/** Whether an ISO instant is a UTC midnight (where anniversaries fall). */
export function isUtcMidnight(instant: string): boolean {
  return Date.parse(instant) % 86_400_000 === 0;
}

/** Whether a YYYY-MM-DD date exists (29 February of a leap year only). */
function isRealDate(date: string): boolean {
  return new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))))
    .toISOString()
    .startsWith(date);
}

const MONTHS_AND_DAYS = (at: Date) => [
  `${String(at.getUTCMonth() + 1).padStart(2, "0")}-${String(at.getUTCDate()).padStart(2, "0")}`,
  "02-29",
];

/**
 * The dates (YYYY-MM-DD), one to `years` years before `at`, whose anniversary (nextAnniversary) is
 * `at`, a UTC midnight: that day of earlier years and, on 1 March of a common year, 29 February of
 * earlier years (their anniversary moves to that day). The inverse of nextAnniversary, checked
 * against it, so that the two never disagree.
 */
export function datesWithAnniversaryAt(at: Date, years: number): string[] {
  const atIso = at.toISOString();
  const justBefore = new Date(at.getTime() - 1);
  const dates = new Set<string>();
  for (let year = at.getUTCFullYear() - 1; year >= at.getUTCFullYear() - years; year -= 1) {
    for (const monthAndDay of MONTHS_AND_DAYS(at)) {
      const date = `${year}-${monthAndDay}`;
      if (isRealDate(date) && nextAnniversary(date, justBefore) === atIso) dates.add(date);
    }
  }
  return [...dates];
}
