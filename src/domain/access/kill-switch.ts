/**
 * The agent-access kill switch: on when the environment says so (AGENT_ACCESS_SUSPENDED=true,
 * needs a restart to change) or when an operator turned it on with `npm run kill-switch -- on`
 * (the settings table, seen by every running server within `cacheMs`, no restart).
 */

export const KILL_SWITCH_SETTING = "agent_access_suspended";

export interface KillSwitchSettings {
  /** The stored value of a setting, or null. */
  get(key: string): string | null;
}

export interface KillSwitch {
  isSuspended(): boolean;
  /** Where the switch stands and why, for operators. */
  status(): { suspended: boolean; environment: boolean; operator: boolean };
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

  const operatorSwitch = (): boolean => {
    const now = clock();
    if (now - readAt >= cacheMs) {
      operator = parseSwitchValue(options.settings.get(KILL_SWITCH_SETTING));
      readAt = now;
    }
    return operator;
  };

  return {
    isSuspended: () => options.environmentSuspended || operatorSwitch(),
    status() {
      const fromOperator = operatorSwitch();
      return {
        suspended: options.environmentSuspended || fromOperator,
        environment: options.environmentSuspended,
        operator: fromOperator,
      };
    },
  };
}
