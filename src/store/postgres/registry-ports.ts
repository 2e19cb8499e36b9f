/** The registry's ports for the operator commands and the seed, over PostgreSQL (src/store/registry-ports.ts). */
import type { RegistryPorts } from "../registry-ports.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { createPostgresMerchantRegistryRepository } from "./merchant-registry-repository.ts";
import { createPostgresRegistryMaintenance, postgresMerchantsDueForIdentityCheck } from "./registry-maintenance.ts";
import type { PostgresStore } from "./store.ts";

/** `fence`: the registry's writes commit only while the leader it follows leads (a job the leader runs). */
export function postgresRegistryPorts(
  store: PostgresStore,
  fence: Pick<LeaderFence, "transaction"> | null = null,
): RegistryPorts {
  return {
    registry: createPostgresMerchantRegistryRepository(store, fence),
    maintenance: createPostgresRegistryMaintenance(store.pool),
    dueForIdentityCheck: (options) => postgresMerchantsDueForIdentityCheck(store.pool, options),
  };
}
