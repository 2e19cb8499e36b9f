import type { AgentStatus, CertificationLevel } from "./levels.ts";

/** A registered agent as the domain sees it: never its key, only the key's display prefix. */
export interface Agent {
  agentId: string;
  agentName: string;
  agentUrl: string | null;
  contactEmail: string;
  requestedLevel: CertificationLevel;
  /** The level granted: the requested one once approved; 2 while a level 3-4 request is pending. */
  certificationLevel: CertificationLevel;
  status: AgentStatus;
  capabilities: string[];
  keyPrefix: string;
  /** The registering address's pseudonymous key (see registrantKey); null for older agents. */
  registeredFrom: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewAgent extends Agent {
  keyHash: string;
}

/** Storage the agent rules need (src/store/agent-repository.ts implements it on SQLite). */
export interface AgentStore {
  insert(agent: NewAgent): Promise<void>;
  findByKeyHash(keyHash: string): Promise<Agent | null>;
  findById(agentId: string): Promise<Agent | null>;
  list(filter?: { status?: AgentStatus }): Promise<Agent[]>;
  /**
   * Sets the status and level if the agent's status is still `from` (what the decision read); the
   * agent as it now is, or null when there is no such agent or its status moved meanwhile.
   */
  update(
    agentId: string,
    change: { from: AgentStatus; status: AgentStatus; certificationLevel: CertificationLevel; now: Date },
  ): Promise<Agent | null>;
}
