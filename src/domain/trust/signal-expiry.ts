import { datesWithAnniversaryAt } from "../calendar.ts";
import { type SignalValue, signalCatalog, signalDefinition } from "./signal-catalog.ts";

/**
 * What a signal says at an instant: the one rule every surface reads (trust scoring, the
 * assessment's trust level, the decision card, search results, comparisons, certifications,
 * evidence pages, the published documents and the lifecycle's conditions). A signal recorded as
 * verified counts only until its expiry; from that instant it reads `expired`, and nothing may
 * present it as verified.
 *
 * Instants are compared as text: every instant the registry stores is `Date.toISOString()`
 * (UTC, milliseconds, `Z`), which orders like time itself, and trust scoring runs this for every
 * signal of every search result, where parsing dates would cost.
 */

interface DatedSignal {
  status: string;
  expiresAt?: string | null | undefined;
}

/** Whether a signal's validity has run out: its expiry instant is reached. */
export function isSignalExpired(signal: { expiresAt?: string | null | undefined }, nowIso: string): boolean {
  return typeof signal.expiresAt === "string" && signal.expiresAt <= nowIso;
}

/** The status a reader sees at `nowIso`: a verified signal past its expiry is expired. */
export function signalStatusAt<Status extends string>(
  signal: { status: Status; expiresAt?: string | null },
  nowIso: string,
): Status | "expired" {
  return signal.status === "verified" && isSignalExpired(signal, nowIso) ? "expired" : signal.status;
}

/** Whether a signal counts as proof at `nowIso`: verified, and not expired. */
export function signalCountsAt(signal: DatedSignal, nowIso: string): boolean {
  return signal.status === "verified" && !isSignalExpired(signal, nowIso);
}

/** Whether the merchant's identity (`siret_verified`) is verified by a check still valid at `nowIso`. */
export function identityVerifiedAt(signals: readonly (DatedSignal & { key: string })[], nowIso: string): boolean {
  return signals.some((signal) => signal.key === "siret_verified" && signalCountsAt(signal, nowIso));
}

/**
 * A signal's value as read at `now`: as recorded, unless its meaning moves with the calendar (a
 * company's age is recorded as its creation date and read in whole years at the instant).
 */
export function signalValueAt(signal: { key: string; value: SignalValue }, now: Date): SignalValue {
  const readAt = signalDefinition(signal.key)?.readAt;
  return readAt ? readAt(signal.value, now) : signal.value;
}

/**
 * The next instant, after `now`, at which a signal reads otherwise with no write: its expiry, or
 * the next calendar step of its value (a company's anniversary). Null when none.
 */
export function signalChangesAt(
  signal: { key: string; value: SignalValue; expiresAt?: string | null | undefined },
  now: Date,
): string | null {
  const nowIso = now.toISOString();
  const expiry = typeof signal.expiresAt === "string" && signal.expiresAt > nowIso ? signal.expiresAt : null;
  const step = signalDefinition(signal.key)?.changesAfter?.(signal.value, now) ?? null;
  if (expiry === null) return step;
  return step !== null && step < expiry ? step : expiry;
}

/** The earliest instant, after `now`, at which one of these signals reads otherwise (signalChangesAt); null when none. */
export function nextSignalChange(
  signals: readonly { key: string; value: SignalValue; expiresAt?: string | null | undefined }[],
  now: Date,
): string | null {
  let next: string | null = null;
  for (const signal of signals) {
    const change = signalChangesAt(signal, now);
    if (change !== null && (next === null || change < next)) next = change;
  }
  return next;
}

/** How many years back a calendar signal's recorded date is looked for (calendarStepsAt). */
const CALENDAR_YEARS_BACK = 300;

/**
 * The recorded values of the signals read with the calendar (readAt: a company's age, recorded as
 * its creation date) whose points change at `at`, a UTC midnight (where calendar steps fall,
 * calendar.ts): a company turning 2, 5, 10 or 20 that day. What a sweep of trust changes looks up
 * when a day begins (trust-sweep.ts); a calendar signal is recorded as a date (YYYY-MM-DD).
 */
export function calendarStepsAt(at: Date): { key: string; values: string[] }[] {
  const atIso = at.toISOString();
  const justBefore = new Date(at.getTime() - 1);
  const steps: { key: string; values: string[] }[] = [];
  for (const definition of signalCatalog) {
    const { readAt, changesAfter } = definition;
    if (!readAt || !changesAfter) continue;
    const values = datesWithAnniversaryAt(at, CALENDAR_YEARS_BACK).filter(
      (date) =>
        changesAfter(date, justBefore) === atIso &&
        definition.points(readAt(date, justBefore)) !== definition.points(readAt(date, at)),
    );
    if (values.length > 0) steps.push({ key: definition.key, values });
  }
  return steps;
}
