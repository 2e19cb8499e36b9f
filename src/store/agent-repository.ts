import type { Agent, AgentStore, NewAgent } from "../domain/agents/agent.ts";
import { type AgentStatus, type CertificationLevel, isCertificationLevel } from "../domain/agents/levels.ts";
import { and, asc, eq } from "./drizzle.ts";
import { agents } from "./schema.ts";
import { byKey, type StoreDb } from "./store-db.ts";

export type AgentRepository = AgentStore;

/** Agents, on both engines: keys are looked up by their SHA-256 through the unique index agents_key_hash. */
export function createAgentRepository(db: StoreDb): AgentRepository {
  const byKeyHash = byKey(db, agents, agents.keyHash, "keyHash");
  const byId = byKey(db, agents, agents.agentId, "agentId");

  return {
    async insert(agent: NewAgent) {
      await db.insert(agents).values(agent);
    },
    async findByKeyHash(keyHash) {
      const row = await byKeyHash.get({ keyHash });
      return row ? toAgent(row) : null;
    },
    async findById(agentId) {
      const row = await byId.get({ agentId });
      return row ? toAgent(row) : null;
    },
    async list(filter = {}) {
      const query = db.select().from(agents);
      const rows = filter.status
        ? await query.where(eq(agents.status, filter.status)).orderBy(asc(agents.createdAt))
        : await query.orderBy(asc(agents.createdAt));
      return rows.map(toAgent);
    },
    async update(agentId, change) {
      const [row] = await db
        .update(agents)
        .set({
          status: change.status,
          certificationLevel: change.certificationLevel,
          updatedAt: change.now.toISOString(),
        })
        .where(and(eq(agents.agentId, agentId), eq(agents.status, change.from)))
        .returning();
      return row ? toAgent(row) : null;
    },
  };
}

function level(value: number): CertificationLevel {
  return isCertificationLevel(value) ? value : 1;
}

export function toAgent(row: typeof agents.$inferSelect): Agent {
  const { keyHash: _keyHash, ...agent } = row;
  return {
    ...agent,
    requestedLevel: level(agent.requestedLevel),
    certificationLevel: level(agent.certificationLevel),
    status: agent.status as AgentStatus,
    capabilities: agent.capabilities ?? [],
  };
}
