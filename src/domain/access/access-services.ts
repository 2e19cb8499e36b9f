import type { AgentStore } from "../agents/agent.ts";
import { type Authenticator, createAuthenticator } from "../agents/authenticator.ts";
import type { HourlyLimits } from "../agents/levels.ts";
import { createKillSwitch, type KillSwitch, type KillSwitchSettings } from "./kill-switch.ts";
import { createInMemoryRateLimiter, type RateLimiter } from "./rate-limiter.ts";

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
  /** The limiter's clock in ms since the epoch (tests inject one); caches always run on real time. */
  limiterClock?: () => number;
  /** A shared limiter (Redis, ...) instead of the in-memory one. */
  limiter?: RateLimiter;
}

export function createAccessServices(options: AccessServicesOptions): AccessServices {
  return {
    killSwitch: createKillSwitch({ environmentSuspended: options.environmentSuspended, settings: options.settings }),
    authenticator: createAuthenticator(options.agents),
    limiter: options.limiter ?? createInMemoryRateLimiter({ clock: options.limiterClock ?? Date.now }),
    limits: options.limits,
    trustProxyHops: options.trustProxyHops,
  };
}
