import type { Agent, AgentStore } from "./agent.ts";
import { generateApiKey, hashApiKey, keyDisplayPrefix, randomBase62 } from "./api-keys.ts";
import {
  type AgentStatus,
  type CertificationLevel,
  effectiveLevel,
  type HourlyLimits,
  hourlyLimitFor,
  initialGrant,
  type Permission,
  permissionsFor,
} from "./levels.ts";

export interface RegisterAgentInput {
  agent_name: string;
  agent_url?: string | undefined;
  contact_email: string;
  requested_level: CertificationLevel;
  capabilities?: string[] | undefined;
}

/** Where a registration comes from: the pseudonymous key of its address (registrantKey). */
export interface Registrant {
  registeredFrom: string;
}

export interface AgentGrant {
  certification_level: CertificationLevel;
  permissions: Permission[];
  rate_limit_hourly: number;
}

/** The agent record of the registration answer: the only time `api_key` is ever shown. */
export interface AgentRegistration extends AgentGrant {
  agent_id: string;
  api_key: string;
  status: "active" | "pending_verification";
  requested_level: CertificationLevel;
}

export interface RegisterAgentDeps {
  agents: Pick<AgentStore, "insert">;
  limits: HourlyLimits;
  now: () => Date;
}

export function newAgentId(): string {
  return `agt_${randomBase62(20).toLowerCase()}`;
}

/** What an agent may do right now: level in force, its permissions and hourly budget. */
export function grantOf(agent: { status: AgentStatus; certificationLevel: number }, limits: HourlyLimits): AgentGrant {
  const level = effectiveLevel(agent);
  return {
    certification_level: level,
    permissions: permissionsFor(level),
    rate_limit_hourly: hourlyLimitFor(limits, level),
  };
}

/** Registers an agent: levels 1-2 are active at once, 3-4 wait for an operator (held at level 2). */
export async function registerAgent(
  deps: RegisterAgentDeps,
  input: RegisterAgentInput,
  registrant: Registrant,
): Promise<AgentRegistration> {
  const apiKey = generateApiKey();
  const now = deps.now().toISOString();
  const { status, certificationLevel } = initialGrant(input.requested_level);
  const agent: Agent = {
    agentId: newAgentId(),
    agentName: input.agent_name,
    agentUrl: input.agent_url ?? null,
    contactEmail: input.contact_email,
    requestedLevel: input.requested_level,
    certificationLevel,
    status,
    capabilities: input.capabilities ?? [],
    keyPrefix: keyDisplayPrefix(apiKey),
    registeredFrom: registrant.registeredFrom,
    createdAt: now,
    updatedAt: now,
  };
  await deps.agents.insert({ ...agent, keyHash: hashApiKey(apiKey) });
  return {
    agent_id: agent.agentId,
    api_key: apiKey,
    ...grantOf(agent, deps.limits),
    status,
    requested_level: input.requested_level,
  };
}
