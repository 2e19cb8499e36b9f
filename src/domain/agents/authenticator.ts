import type { Agent, AgentStore } from "./agent.ts";
import { hashApiKey } from "./api-keys.ts";

/**
 * Finds the agent behind a key: SHA-256, then one lookup through the unique index, the answer
 * kept in memory for `ttlMs`. Suspending or revoking in this process invalidates at once; the
 * operator command runs in another process, so a change made there is seen within `ttlMs`.
 * Unknown keys are not cached (random keys must not be able to fill the cache).
 */
export interface Authenticator {
  /** The agent with this key, whatever its status, or null when no agent has it. */
  authenticate(key: string): Promise<Agent | null>;
  invalidate(agentId: string): void;
  clear(): void;
}

export interface AuthenticatorOptions {
  ttlMs?: number;
  maxEntries?: number;
  clock?: () => number;
}

export const KEY_CACHE_TTL_MS = 5000;

export function createAuthenticator(store: Pick<AgentStore, "findByKeyHash">, options: AuthenticatorOptions = {}) {
  const ttlMs = options.ttlMs ?? KEY_CACHE_TTL_MS;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, { agent: Agent; expiresAt: number }>();

  const authenticator: Authenticator = {
    async authenticate(key) {
      const keyHash = hashApiKey(key);
      const now = clock();
      const cached = cache.get(keyHash);
      if (cached && cached.expiresAt > now) return cached.agent;
      const agent = await store.findByKeyHash(keyHash);
      if (cached) cache.delete(keyHash);
      if (agent) {
        if (cache.size >= maxEntries) {
          for (const [hash, entry] of cache) if (entry.expiresAt <= now) cache.delete(hash);
          const oldest = cache.keys().next();
          if (cache.size >= maxEntries && !oldest.done) cache.delete(oldest.value);
        }
        cache.set(keyHash, { agent, expiresAt: now + ttlMs });
      }
      return agent;
    },
    invalidate(agentId) {
      for (const [hash, entry] of cache) if (entry.agent.agentId === agentId) cache.delete(hash);
    },
    clear() {
      cache.clear();
    },
  };
  return authenticator;
}
