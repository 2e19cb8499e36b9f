import type { App } from "../app.ts";
import { addressBucket, clientAddress as resolveClientAddress } from "../domain/access/client-address.ts";
import {
  type AppliedPolicy,
  DAILY_WINDOW_SECONDS,
  HOURLY_WINDOW_SECONDS,
  rateLimitHeaders,
} from "../domain/access/rate-limit-policy.ts";
import { presentedKey } from "../domain/agents/api-keys.ts";
import {
  ANONYMOUS_PERMISSIONS as ANONYMOUS,
  AUTO_APPROVED_MAX_LEVEL,
  effectiveLevel,
  hourlyLimitFor,
  LEVEL_NAMES,
  type Permission,
  permissionsFor,
} from "../domain/agents/levels.ts";
import { ServiceError } from "../errors/service-error.ts";
import type { RouteRequest } from "./route-request.ts";

/**
 * What a route is, for access control: the kill switch and rate limits apply per operation.
 * `open` routes (discovery documents, health) keep answering while agent access is suspended
 * and are neither counted nor authenticated.
 */
export type Operation =
  | "search"
  | "resolve"
  | "read"
  | "lead"
  | "order"
  | "agent_registration"
  | "attribution"
  /** POST /api/contact/platform: counted, open to every caller (a Reader key may write to support). */
  | "platform_contact"
  /** People's pages (the microsite): kill switch, and the client address's anonymous budget. */
  | "page"
  /**
   * GET /api/agents/verify: the key sent is what the route checks, not the caller's credential;
   * like a page, kill switch and the client address's anonymous budget whatever key is sent.
   */
  | "key_check"
  /**
   * The merchant space (/pro, for people signed in with a session cookie): like a page, plus a
   * budget of its own per client address for the steps worth guessing at (sign-in, claims), and
   * never reached with an agent's key (refused: a key opens nothing there).
   */
  | "space"
  | "space_sign_in"
  | "space_claim"
  | "tool"
  | "open";

/**
 * The operations of people's pages (the microsite, the tracking page, the notices, the merchant
 * space): their failures are French HTML pages, not the JSON envelope (pageRoute, and the
 * OpenAPI document says so).
 */
export const PAGE_OPERATIONS: ReadonlySet<Operation> = new Set<Operation>([
  "page",
  "space",
  "space_sign_in",
  "space_claim",
]);

export interface Caller {
  /** null for anonymous callers. */
  agentId: string | null;
  /** The certification level in force (2 for a pending level 3-4 agent); null for anonymous callers. */
  level: number | null;
  permissions: string[];
  /** The client address, as the key anonymous limits are counted on. */
  clientAddress: string;
}

export interface GuardResult {
  caller: Caller;
  /** Headers every answer of this request carries (RateLimit fields). */
  headers: Record<string, string>;
}

export const ANONYMOUS_PERMISSIONS: string[] = [...ANONYMOUS];

/**
 * The permission each operation needs. Reads and lead creation are open to anonymous callers;
 * a level-1 key (Reader) does not carry leads:write, so it is refused lead creation (403): a key
 * says what its holder registered to do. Orders need orders:write, checked only while the order
 * rail is open (closed, every caller gets ORDER_DISABLED from the route). The tool endpoint
 * needs registry:read here; each tool checks its own permission with `requirePermission`.
 */
const REQUIRED_PERMISSION: Partial<Record<Operation, Permission>> = {
  search: "registry:read",
  resolve: "registry:read",
  read: "registry:read",
  tool: "registry:read",
  lead: "leads:write",
  order: "orders:write",
};

/**
 * The permission an operation needs, for the routes and for the tools that do the same thing
 * (the MCP tool endpoint checks each tool's own operation with it): one rule for both doors.
 */
export function permissionFor(operation: Operation): Permission | undefined {
  return REQUIRED_PERMISSION[operation];
}

/**
 * Runs before every route, in this order:
 * 1. `open` operations pass untouched (`page` and `key_check` ones skip the key and permission steps);
 * 2. kill switch (environment or operator command) -> 503 SERVICE_SUSPENDED, no Retry-After;
 * 3. API key, when one is presented: malformed, unknown or revoked -> 401 UNAUTHORIZED (never a
 *    silent downgrade to anonymous; the attempt counts against the client address's budget);
 *    suspended agent -> 403 FORBIDDEN;
 * 4. rate limit: one hourly budget per agent (by level) or per client address -> 429 RATE_LIMITED
 *    with Retry-After; every counted answer carries RateLimit-Policy and RateLimit;
 * 5. permission of the operation -> 403 FORBIDDEN.
 */
export async function guardRequest(
  app: App,
  request: Pick<RouteRequest, "headers">,
  operation: Operation,
  clientAddress: string,
  /** The calls this request counts for on its budgets (several for a JSON-RPC batch). */
  cost = 1,
): Promise<GuardResult> {
  if (operation === "open") {
    return {
      caller: { agentId: null, level: null, permissions: ANONYMOUS_PERMISSIONS, clientAddress },
      headers: {},
    };
  }
  const access = app.access;
  if (app.config.agentAccessSuspended || (await access.killSwitch.isSuspended())) {
    throw new ServiceError("SERVICE_SUSPENDED");
  }
  const address = resolveClientAddress(access.trustProxyHops, request.headers, clientAddress);
  const addressKey = `ip:${addressBucket(address)}`;
  const anonymousLimit = access.limits.anonymous;
  if (operation === "space" || operation === "space_sign_in" || operation === "space_claim") {
    if (presentedKey(request.headers).kind !== "none") {
      throw new ServiceError(
        "FORBIDDEN",
        "The merchant space is for people signed in; an agent's API key opens nothing here",
      );
    }
    const budgets: Budget[] = [{ name: "hourly", key: addressKey, limit: anonymousLimit }];
    const limits = app.config.merchantSpaceLimits;
    if (operation === "space_sign_in") {
      budgets.push({ name: "sign_in", key: `pro-sign-in:${addressKey}`, limit: limits.signInsHourly });
    } else if (operation === "space_claim") {
      budgets.push({ name: "claim", key: `pro-claim:${addressKey}`, limit: limits.claimsHourly });
    }
    const headers = await countOrRefuse(app, budgets);
    return {
      caller: { agentId: null, level: null, permissions: ANONYMOUS_PERMISSIONS, clientAddress: address },
      headers,
    };
  }
  if (operation === "page" || operation === "key_check") {
    // A page or a key check unlocks nothing a key would: it counts on the address's budget, whatever key is sent.
    const headers = await countOrRefuse(app, [{ name: "hourly", key: addressKey, limit: anonymousLimit }]);
    return {
      caller: { agentId: null, level: null, permissions: ANONYMOUS_PERMISSIONS, clientAddress: address },
      headers,
    };
  }

  const presented = presentedKey(request.headers);
  let caller: Caller;
  let budgetKey: string;
  let limit: number;
  /** The registering address's key of an auto-approved agent: its keys share one more budget. */
  let registrant: string | null = null;
  if (presented.kind === "none") {
    caller = { agentId: null, level: null, permissions: ANONYMOUS_PERMISSIONS, clientAddress: address };
    budgetKey = addressKey;
    limit = anonymousLimit;
  } else {
    const agent = presented.kind === "key" ? await access.authenticator.authenticate(presented.key) : null;
    if (!agent || agent.status === "revoked") {
      const headers = await countOrRefuse(app, [{ name: "hourly", key: addressKey, limit: anonymousLimit }]);
      throw new ServiceError(
        "UNAUTHORIZED",
        presented.kind === "invalid"
          ? `Unusable credentials: ${presented.reason}; send no key to call anonymously`
          : "The API key presented is unknown or revoked; send no key to call anonymously",
        { headers: { ...headers, "WWW-Authenticate": 'Bearer realm="abeille"' } },
      );
    }
    if (agent.status === "suspended") {
      const headers = await countOrRefuse(app, [{ name: "hourly", key: addressKey, limit: anonymousLimit }]);
      throw new ServiceError(
        "FORBIDDEN",
        `Agent ${agent.agentId} is suspended by the operators; write to the platform team`,
        { headers },
      );
    }
    const level = effectiveLevel(agent);
    caller = { agentId: agent.agentId, level, permissions: permissionsFor(level), clientAddress: address };
    if (level <= AUTO_APPROVED_MAX_LEVEL) registrant = agent.registeredFrom;
    budgetKey = `agent:${agent.agentId}`;
    limit = hourlyLimitFor(access.limits, level);
  }

  const budgets: Budget[] = [{ name: "hourly", key: budgetKey, limit }];
  const { registrationLimits } = app.config;
  if (registrant) {
    // Keys the service approved by itself are free to mint: whatever number of them one address
    // registered, together they get one key's budget (operator-approved keys have their own).
    budgets.push({
      name: "registrant",
      key: `registrant:${registrant}`,
      limit: registrationLimits.perRegistrantHourly,
    });
  }
  if (operation === "agent_registration") {
    budgets.push({
      name: "registration",
      key: `reg:${addressKey}`,
      limit: registrationLimits.perAddressDaily,
      windowSeconds: DAILY_WINDOW_SECONDS,
    });
  }
  const headers = await countOrRefuse(app, budgets, cost);

  const needed =
    operation === "order" && !app.config.publicOrderRailEnabled ? undefined : REQUIRED_PERMISSION[operation];
  if (needed && !caller.permissions.includes(needed)) {
    throw new ServiceError("FORBIDDEN", forbiddenMessage(caller, needed), { headers });
  }
  return { caller, headers };
}

interface Budget {
  name: string;
  key: string;
  limit: number;
  /** HOURLY_WINDOW_SECONDS unless said. */
  windowSeconds?: number;
}

/**
 * Counts the request on each budget (`cost` times: each call of a batch is a call); the first
 * exhausted one refuses with 429 and Retry-After.
 */
async function countOrRefuse(app: App, budgets: Budget[], cost = 1): Promise<Record<string, string>> {
  const applied: AppliedPolicy[] = [];
  let refused: AppliedPolicy | null = null;
  for (const budget of budgets) {
    const windowSeconds = budget.windowSeconds ?? HOURLY_WINDOW_SECONDS;
    let decision = await app.access.limiter.consume(budget.key, budget.limit, windowSeconds);
    for (let call = 1; call < cost && decision.allowed; call += 1) {
      decision = await app.access.limiter.consume(budget.key, budget.limit, windowSeconds);
    }
    const policy = { name: budget.name, limit: budget.limit, windowSeconds, decision };
    applied.push(policy);
    if (!decision.allowed && !refused) refused = policy;
  }
  const headers = rateLimitHeaders(applied);
  if (refused) {
    throw new ServiceError(
      "RATE_LIMITED",
      `Quota exceeded: ${refused.limit} requests per ${refused.windowSeconds === DAILY_WINDOW_SECONDS ? "day" : "hour"} (${refused.name}); retry in ${refused.decision.retryAfterSeconds} s`,
      { retryAfterSeconds: refused.decision.retryAfterSeconds, headers },
    );
  }
  return headers;
}

function forbiddenMessage(caller: Caller, needed: string): string {
  if (caller.level === null) return `This operation needs the ${needed} permission; present an API key that carries it`;
  const name = LEVEL_NAMES[caller.level as keyof typeof LEVEL_NAMES] ?? "";
  return `This API key (level ${caller.level}${name ? `, ${name}` : ""}) does not carry ${needed}`;
}

/** For handlers that check a finer permission than their operation (each tool of the tool endpoint). */
export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions.includes(permission)) {
    throw new ServiceError("FORBIDDEN", forbiddenMessage(caller, permission));
  }
}

export function hasPermission(caller: Caller, permission: Permission): boolean {
  return caller.permissions.includes(permission);
}
