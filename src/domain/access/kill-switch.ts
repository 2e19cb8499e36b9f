/**
 * The agent-access kill switch: on when the environment says so (AGENT_ACCESS_SUSPENDED=true,
 * needs a restart to change) or when an operator turned it on with `npm run kill-switch -- on`
 * (the settings table, seen by every running server within `cacheMs`, no restart).
 */

export const KILL_SWITCH_SETTING = "agent_access_suspended";

export interface KillSwitchSettings {
  /** The stored value of a setting, or null. */
  get(key: string): Promise<string | null>;
}

export interface KillSwitch {
  /** Reads the settings at most once per `cacheMs` (concurrent callers share the read). */
  isSuspended(): Promise<boolean>;
  /**
   * Without waiting, for a caller that cannot (the published documents' fast path): the answer
   * from a read less than `cacheMs` old, or null when there is none (a read then starts, and the
   * caller hands the request to one that waits: the route's guard).
   */
  knownSuspended(): boolean | null;
  /** Reads the settings now, whatever the cache (for a caller that keeps knownSuspended fresh). */
  refresh(): Promise<boolean>;
  /** Where the switch stands and why, for operators. */
  status(): Promise<{ suspended: boolean; environment: boolean; operator: boolean }>;
}

export interface KillSwitchOptions {
  environmentSuspended: boolean;
  settings: KillSwitchSettings;
  /** How long a read of the settings table is reused (ms); at most about a second. */
  cacheMs?: number;
  clock?: () => number;
}

export function parseSwitchValue(value: string | null): boolean {
  return value === "on" || value === "true" || value === "1";
}

export function createKillSwitch(options: KillSwitchOptions): KillSwitch {
  const cacheMs = options.cacheMs ?? 1000;
  const clock = options.clock ?? Date.now;
  let operator = false;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<boolean> | null = null;

  const read = (now: number): Promise<boolean> => {
    reading ??= options.settings
      .get(KILL_SWITCH_SETTING)
      .then((value) => {
        operator = parseSwitchValue(value);
        readAt = now;
        return operator;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  const fresh = (now: number) => now - readAt < cacheMs;

  const operatorSwitch = (): Promise<boolean> => {
    const now = clock();
    return fresh(now) ? Promise.resolve(operator) : read(now);
  };

  return {
    isSuspended: () => (options.environmentSuspended ? Promise.resolve(true) : operatorSwitch()),
    knownSuspended() {
      if (options.environmentSuspended) return true;
      const now = clock();
      if (fresh(now)) return operator;
      // The guard of the request this caller hands over reports a failed read.
      read(now).catch(() => undefined);
      return null;
    },
    refresh: () => read(clock()),
    async status() {
      const fromOperator = await operatorSwitch();
      return {
        suspended: options.environmentSuspended || fromOperator,
        environment: options.environmentSuspended,
        operator: fromOperator,
      };
    },
  };
}
