/** The registry's ports for the operator commands and the seed, over PostgreSQL (src/store/registry-ports.ts). */
import type { RegistryPorts } from "../registry-ports.ts";
import { createPostgresMerchantRegistryRepository } from "./merchant-registry-repository.ts";
import { createPostgresRegistryMaintenance, postgresMerchantsDueForIdentityCheck } from "./registry-maintenance.ts";
import type { PostgresStore } from "./store.ts";

export function postgresRegistryPorts(store: PostgresStore): RegistryPorts {
  return {
    registry: createPostgresMerchantRegistryRepository(store),
    maintenance: createPostgresRegistryMaintenance(store.pool),
    dueForIdentityCheck: (options) => postgresMerchantsDueForIdentityCheck(store.pool, options),
  };
}
