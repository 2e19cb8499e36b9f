import { validationError } from "../../errors/service-error.ts";
import { isWellFormedApiKey, type PresentedKey } from "./api-keys.ts";
import type { Authenticator } from "./authenticator.ts";
import type { AgentStatus, CertificationLevel, HourlyLimits, Permission } from "./levels.ts";
import { grantOf } from "./register-agent.ts";

export interface AgentVerification {
  valid: boolean;
  agent_id: string | null;
  agent_name: string | null;
  certification_level: CertificationLevel | null;
  requested_level: CertificationLevel | null;
  permissions: Permission[];
  rate_limit_hourly: number | null;
  /** active, pending_verification or suspended; null for unknown, revoked and malformed keys. */
  status: Exclude<AgentStatus, "revoked"> | null;
}

const INVALID: AgentVerification = {
  valid: false,
  agent_id: null,
  agent_name: null,
  certification_level: null,
  requested_level: null,
  permissions: [],
  rate_limit_hourly: null,
  status: null,
};

const SEND_THE_KEY = "send the API key to check in the Authorization header (Bearer <api key>) or in X-API-Key";

/**
 * The key `GET /api/agents/verify` checks: the one in `Authorization: Bearer` or `X-API-Key`
 * (where keys belong: headers stay out of proxy logs and shell history), else the `token` query
 * parameter, still read for the clients that send it. A malformed key is checked (and found not
 * valid); a header that carries no key at all, no key anywhere, or two different keys are 400.
 */
export function keyToCheck(presented: PresentedKey, queryToken: string | undefined): string {
  let fromHeaders: string | undefined;
  if (presented.kind === "key") fromHeaders = presented.key;
  else if (presented.kind === "invalid") {
    if (presented.malformed === undefined)
      throw validationError([{ path: "authorization", message: presented.reason }]);
    fromHeaders = presented.malformed;
  }
  if (fromHeaders !== undefined && queryToken !== undefined && fromHeaders !== queryToken) {
    throw validationError([
      { path: "token", message: "differs from the key in the headers; send the key once, in the Authorization header" },
    ]);
  }
  const key = fromHeaders ?? queryToken;
  if (key === undefined) throw validationError([{ path: "authorization", message: `is missing: ${SEND_THE_KEY}` }]);
  return key;
}

/**
 * `GET /api/agents/verify` (the key from `keyToCheck`): valid for active and pending agents. A suspended agent's key is
 * not valid but still named (its holder learns why); unknown, revoked and malformed keys all get
 * the same empty answer.
 */
export async function verifyAgentKey(deps: { authenticator: Authenticator; limits: HourlyLimits }, token: string) {
  if (!isWellFormedApiKey(token)) return { ...INVALID };
  const agent = await deps.authenticator.authenticate(token);
  if (!agent || agent.status === "revoked") return { ...INVALID };
  const common = {
    agent_id: agent.agentId,
    agent_name: agent.agentName,
    requested_level: agent.requestedLevel,
  };
  if (agent.status === "suspended") {
    return {
      ...INVALID,
      ...common,
      certification_level: agent.certificationLevel,
      status: "suspended",
    } satisfies AgentVerification;
  }
  return { valid: true, ...common, ...grantOf(agent, deps.limits), status: agent.status } satisfies AgentVerification;
}
