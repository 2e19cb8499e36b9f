import type { AgentStore } from "../agents/agent.ts";
import { type Authenticator, createAuthenticator } from "../agents/authenticator.ts";
import type { HourlyLimits } from "../agents/levels.ts";
import { createKillSwitch, type KillSwitch, type KillSwitchSettings } from "./kill-switch.ts";
import { createRateLimiter, type RateLimiter, type RateLimitStore } from "./rate-limiter.ts";

/** What the request guard needs: the kill switch, the key authenticator and the rate limiter. */
export interface AccessServices {
  killSwitch: KillSwitch;
  authenticator: Authenticator;
  limiter: RateLimiter;
  limits: HourlyLimits;
  trustProxyHops: number;
}

export interface AccessServicesOptions {
  environmentSuspended: boolean;
  limits: HourlyLimits;
  trustProxyHops: number;
  agents: Pick<AgentStore, "findByKeyHash">;
  settings: KillSwitchSettings;
  /** Where the budgets live: shared by every server process (SQLite file or Redis), or in memory. */
  limitStore: RateLimitStore;
  /** The limiter's clock in ms since the epoch (tests inject one); caches always run on real time. */
  limiterClock?: () => number;
  /** Told when the budgets' store cannot answer (requests are then let through). */
  onLimitStoreFailure?: (error: unknown) => void;
}

export function createAccessServices(options: AccessServicesOptions): AccessServices {
  return {
    killSwitch: createKillSwitch({ environmentSuspended: options.environmentSuspended, settings: options.settings }),
    authenticator: createAuthenticator(options.agents),
    limiter: createRateLimiter(options.limitStore, {
      clock: options.limiterClock ?? Date.now,
      ...(options.onLimitStoreFailure ? { onStoreFailure: options.onLimitStoreFailure } : {}),
    }),
    limits: options.limits,
    trustProxyHops: options.trustProxyHops,
  };
}
