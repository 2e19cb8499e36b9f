import type { Agent, AgentStore } from "./agent.ts";
import type { AgentStatus, CertificationLevel } from "./levels.ts";

/**
 * What operators do to agents (`npm run agents -- approve|suspend|revoke <agent_id>`):
 * - approve: pending_verification or suspended -> active at the requested level;
 * - suspend: active or pending_verification -> suspended (the key answers 403 until approved again);
 * - revoke: any state but revoked -> revoked, for good (the key answers 401 like an unknown one).
 */
export type AgentCommand = "approve" | "suspend" | "revoke";

export class AgentTransitionError extends Error {
  override name = "AgentTransitionError";
}

const ALLOWED_FROM: Record<AgentCommand, AgentStatus[]> = {
  approve: ["pending_verification", "suspended"],
  suspend: ["active", "pending_verification"],
  revoke: ["active", "pending_verification", "suspended"],
};

export function nextState(
  agent: Agent,
  command: AgentCommand,
): { status: AgentStatus; certificationLevel: CertificationLevel } {
  if (!ALLOWED_FROM[command].includes(agent.status)) {
    throw new AgentTransitionError(`cannot ${command} agent ${agent.agentId}: it is ${agent.status}`);
  }
  switch (command) {
    case "approve":
      return { status: "active", certificationLevel: agent.requestedLevel };
    case "suspend":
      return { status: "suspended", certificationLevel: agent.certificationLevel };
    case "revoke":
      return { status: "revoked", certificationLevel: agent.certificationLevel };
  }
}

/**
 * Applies an operator's command to the agent as stored now. The write only lands if the status it
 * was decided from still holds (two operators, or two machines, at once): otherwise the command is
 * decided again on the agent as the other left it, so a revoked agent is never suspended back.
 */
export async function applyAgentCommand(
  deps: { agents: Pick<AgentStore, "findById" | "update">; now: () => Date; onChange?: (agentId: string) => void },
  agentId: string,
  command: AgentCommand,
): Promise<Agent> {
  for (let attempt = 0; ; attempt++) {
    const agent = await deps.agents.findById(agentId);
    if (!agent) throw new AgentTransitionError(`no agent ${agentId}`);
    const updated = await deps.agents.update(agentId, {
      from: agent.status,
      ...nextState(agent, command),
      now: deps.now(),
    });
    if (updated) {
      deps.onChange?.(agentId);
      return updated;
    }
    // Its status moved between the read and the write: decide again (a status only moves a few
    // times in an agent's life, so this ends; the bound is for a store that misbehaves).
    if (attempt >= MAX_DECISIONS) throw new Error(`agent ${agentId} kept changing while ${command} was applied`);
  }
}

const MAX_DECISIONS = 5;
