/** Agents on PostgreSQL: keys looked up by their SHA-256 through the unique index agents_key_hash. */
import type { AgentStore } from "../../domain/agents/agent.ts";
import { toAgent } from "../agent-repository.ts";
import { and, asc, eq } from "./drizzle.ts";
import { agents } from "./schema.ts";
import type { PostgresStore } from "./store.ts";

export function createPostgresAgentRepository({ db }: PostgresStore): AgentStore {
  const byId = async (agentId: string) => (await db.select().from(agents).where(eq(agents.agentId, agentId)))[0];
  return {
    async insert(agent) {
      await db.insert(agents).values(agent);
    },
    async findByKeyHash(keyHash) {
      const [row] = await db.select().from(agents).where(eq(agents.keyHash, keyHash));
      return row ? toAgent(row) : null;
    },
    async findById(agentId) {
      const row = await byId(agentId);
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
