import { isUtcMidnight, nextUtcMidnight } from "../calendar.ts";
import type { MerchantRepository } from "../registry/merchant-store.ts";
import { computeTrust, type ScorableSignal } from "./compute-trust.ts";
import { calendarStepsAt, identityVerifiedAt, nextSignalChange } from "./signal-expiry.ts";

/*
 * Trust moves by itself: a verified signal expires, a company's age reaches a step on its
 * anniversary, with no write to the store. Everything that keeps a copy of a merchant's trust
 * (the search engines, the embedded index of each instance, the kept result cards) follows the
 * store's change feed (merchant_touches, src/search/follower.ts), so the sweep makes that moment a
 * change the feed carries: it walks time forward from where it stopped, finds the merchants with a
 * signal that changed in each stretch (two indexed range reads: the signals expiring in it, and
 * the recorded dates whose anniversary ends it), keeps those whose trust total or identity reads
 * otherwise, and records a touch of them, moving its position in the same transaction. Nothing
 * is missed after a stop (the next sweep starts where the last one ended) and nothing is swept
 * twice (a sweep that finds the position moved by another one does nothing).
 */

/** Changes read per step (and touches recorded in one transaction at most). */
export const TRUST_SWEEP_PAGE = 1_000;

/**
 * The sweep stays this far behind the clock: a follower on another machine whose clock is behind
 * by less than this still reads a swept change as past when it applies the touch.
 */
export const TRUST_SWEEP_MARGIN_MS = 2_000;

/** How often the process that runs the background work sweeps (the staleness bound of docs/search.md). */
export const TRUST_SWEEP_INTERVAL_MS = 30_000;

/** A change in the sweep's order: its instant, then the merchant's ab_id. */
export interface SweptChange {
  at: string;
  abId: string;
}

/** Where the sweep got to (kept in the store, one row; compared whole when it moves). */
export interface TrustSweepPosition {
  /** Every change at or before this instant was swept. */
  through: string;
  /**
   * The stretch under way, (through, until], and the last change swept in it (abId null: none at
   * `at` itself yet, every change at or before `at` was).
   */
  window: { until: string; after: { at: string; abId: string | null } } | null;
}

/** The sweep's reads and its one write (src/store/trust-sweep-store.ts, its PostgreSQL twin). */
export interface TrustSweepStore {
  /** Where the sweep got to; null before the first sweep. */
  readPosition(): Promise<TrustSweepPosition | null>;
  /**
   * Merchants with a verified signal expiring after `after` (the instant, then the ab_id) and at or
   * before `until`, in that order, each (instant, merchant) once, at most `limit`.
   */
  expiring(after: { at: string; abId: string | null }, until: string, limit: number): Promise<SweptChange[]>;
  /** Merchants with a verified signal `key` recorded as one of `values`, ab_id after `afterAbId` (null: all), in ab_id order, at most `limit`. */
  recordedAs(key: string, values: readonly string[], afterAbId: string | null, limit: number): Promise<string[]>;
  /**
   * Records a touch of these merchants (merchant_touches, at one new store revision) and moves the
   * position from `from` to `to`, in one transaction; false, with nothing done, when the position
   * is no longer `from` (another sweep moved it).
   */
  advance(touched: readonly string[], from: TrustSweepPosition | null, to: TrustSweepPosition): Promise<boolean>;
}

export interface TrustSweepDeps {
  store: TrustSweepStore;
  merchants: Pick<MerchantRepository, "findMerchants" | "findTrustSignals">;
  now: () => Date;
  /** Changes read per step (default TRUST_SWEEP_PAGE). */
  pageSize?: number;
}

export interface TrustSweepReport {
  /** Merchants whose touch this sweep recorded. */
  touched: number;
  /** Every change at or before this instant is swept. */
  through: string;
}

/**
 * Sweeps from where the last sweep ended up to now (less the margin), a page at a time; the first
 * sweep of a store starts now (what an index built before holds was built with the trust of then:
 * `npm run search -- rebuild` brings it up to date).
 */
export async function sweepTrustChanges(
  deps: TrustSweepDeps,
  options: { signal?: AbortSignal } = {},
): Promise<TrustSweepReport> {
  let touched = 0;
  for (;;) {
    const step = await sweepStep(deps);
    touched += step.touched;
    if (step.through !== null) return { touched, through: step.through };
    // Stopped (the process shuts down, or no longer leads): the next sweep goes on from here.
    if (options.signal?.aborted) return { touched, through: (await deps.store.readPosition())?.through ?? "" };
    // The server's process answers requests between two steps.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One page of the sweep; `through` is set once the sweep is in step with the clock. */
async function sweepStep(deps: TrustSweepDeps): Promise<{ touched: number; through: string | null }> {
  const horizon = new Date(deps.now().getTime() - TRUST_SWEEP_MARGIN_MS).toISOString();
  const position = await deps.store.readPosition();
  if (position === null) {
    const start = { through: horizon, window: null };
    await deps.store.advance([], null, start);
    return { touched: 0, through: null };
  }
  let window = position.window;
  if (window === null) {
    if (position.through >= horizon) return { touched: 0, through: position.through };
    // A stretch never goes past a midnight, where the calendar's steps fall: it ends there.
    const midnight = nextUtcMidnight(new Date(position.through));
    window = { until: midnight < horizon ? midnight : horizon, after: { at: position.through, abId: null } };
  }
  const { until, after } = window;
  const page = deps.pageSize ?? TRUST_SWEEP_PAGE;
  const expiring = await deps.store.expiring(after, until, page);
  const stepping = await steppingAt(deps.store, until, after, page);
  const merged = uniqueChanges([...expiring, ...stepping.abIds.map((abId) => ({ at: until, abId }))]);
  // A read that filled its page may have more after it: the page ends at the first page of
  // changes in order (each read's page starts the same order), and the next step goes on from it.
  const changes = merged.slice(0, page);
  const complete = expiring.length < page && !stepping.cut && merged.length <= page;
  const last = changes.at(-1);
  const to: TrustSweepPosition =
    complete || !last
      ? { through: until, window: null }
      : { through: position.through, window: { until, after: { at: last.at, abId: last.abId } } };
  const candidates = [...new Set(changes.map((change) => change.abId))];
  const changed = await readingsChanged(deps.merchants, candidates, position.through, until);
  const moved = await deps.store.advance(changed, position, to);
  return { touched: moved ? changed.length : 0, through: null };
}

/**
 * The merchants whose calendar signals step at `until` (when it is a midnight), after the change
 * `after`, in ab_id order; `cut` when a key had more than a page of them.
 */
async function steppingAt(
  store: TrustSweepStore,
  until: string,
  after: { at: string; abId: string | null },
  page: number,
): Promise<{ abIds: string[]; cut: boolean }> {
  if (!isUtcMidnight(until)) return { abIds: [], cut: false };
  // Changes at `until` come after every earlier one: from the first merchant, until the sweep reached `until`.
  const afterAbId = after.at === until ? after.abId : null;
  const abIds = new Set<string>();
  let cut = false;
  for (const { key, values } of calendarStepsAt(new Date(until))) {
    const found = await store.recordedAs(key, values, afterAbId, page);
    if (found.length >= page) cut = true;
    for (const abId of found) abIds.add(abId);
  }
  return { abIds: [...abIds].sort(byCodeUnits), cut };
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The changes in the sweep's order (instant, then ab_id), each once. */
function uniqueChanges(changes: readonly SweptChange[]): SweptChange[] {
  const sorted = [...changes].sort((a, b) => byCodeUnits(a.at, b.at) || byCodeUnits(a.abId, b.abId));
  return sorted.filter((change, index) => {
    const previous = sorted[index - 1];
    return !previous || previous.at !== change.at || previous.abId !== change.abId;
  });
}

/** The candidates whose trust reads otherwise at some instant of (from, until]. */
async function readingsChanged(
  merchants: TrustSweepDeps["merchants"],
  abIds: readonly string[],
  from: string,
  until: string,
): Promise<string[]> {
  if (abIds.length === 0) return [];
  const [found, signals] = await Promise.all([
    merchants.findMerchants([...abIds]),
    merchants.findTrustSignals([...abIds]),
  ]);
  const sectors = new Map(found.map((merchant) => [merchant.abId, merchant.sector]));
  return abIds.filter((abId) => {
    const sector = sectors.get(abId);
    return sector !== undefined && trustReadsOtherwise(signals.get(abId) ?? [], sector, from, until);
  });
}

/** What search and every copy of a merchant's trust read of its signals: the total and whether its identity is verified. */
function readingAt(signals: readonly ScorableSignal[], sector: string, at: Date): string {
  return `${computeTrust(signals, sector, at).breakdown.total}|${identityVerifiedAt(signals, at.toISOString())}`;
}

/**
 * Whether a merchant's trust total or identity reads otherwise at some instant of (from, until]:
 * each change of its signals in that stretch (signal-expiry.ts) is compared with the one before,
 * so that two changes that cancel out between the ends are still seen (a copy built between them
 * holds the reading of then).
 */
export function trustReadsOtherwise(
  signals: readonly ScorableSignal[],
  sector: string,
  from: string,
  until: string,
): boolean {
  let at = new Date(from);
  let reading = readingAt(signals, sector, at);
  for (;;) {
    const next = nextSignalChange(signals, at);
    if (next === null || next > until) return false;
    at = new Date(next);
    const now = readingAt(signals, sector, at);
    if (now !== reading) return true;
    reading = now;
  }
}

export interface TrustSweeper {
  /** Sweeps until in step with the clock (one at a time in this process: during the schedule's, its report). */
  sweepOnce(): Promise<TrustSweepReport>;
  /** Sweeps now, then every `intervalMs`; stop() ends a sweep under way after its page. */
  start(): void;
  stop(): Promise<void>;
}

/** The sweep on a schedule, in the process that runs the background work (jobs/background.ts). */
export function createTrustSweeper(
  deps: TrustSweepDeps,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): TrustSweeper {
  const intervalMs = options.intervalMs ?? TRUST_SWEEP_INTERVAL_MS;
  let running: Promise<TrustSweepReport> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let stopping = new AbortController();

  /** One sweep at a time: a caller arriving during one gets its report. */
  function sweep(control: { signal?: AbortSignal }): Promise<TrustSweepReport> {
    running ??= sweepTrustChanges(deps, control).finally(() => {
      running = null;
    });
    return running;
  }

  /** The schedule's sweep, which stop() ends after its page. */
  const scheduled = () => sweep({ signal: stopping.signal }).catch((error: unknown) => options.onError?.(error));

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void scheduled().then(schedule);
    }, intervalMs);
    timer.unref();
  }

  return {
    sweepOnce: () => sweep({}),
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = new AbortController();
      void scheduled().then(schedule);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      // A sweep under way ends after its page (a mass expiry takes many).
      stopping.abort();
      await running?.catch(() => undefined);
    },
  };
}
