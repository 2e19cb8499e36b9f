import { isWellFormedApiKey } from "./api-keys.ts";
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

/**
 * `GET /api/agents/verify?token=`: valid for active and pending agents. A suspended agent's key is
 * not valid but still named (its holder learns why); unknown, revoked and malformed keys all get
 * the same empty answer.
 */
export function verifyAgentKey(deps: { authenticator: Authenticator; limits: HourlyLimits }, token: string) {
  if (!isWellFormedApiKey(token)) return { ...INVALID };
  const agent = deps.authenticator.authenticate(token);
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
