/**
 * The registry's ports the operator commands and the seed take (jobs/import.ts, merchants.ts,
 * verify.ts, seed.ts), built over one engine: here SQLite, src/store/postgres/registry-ports.ts
 * PostgreSQL. A command built from either writes through the same domain functions.
 */
import type { MerchantRegistryStore } from "../domain/merchants/merchant-registry.ts";
import type { Db } from "./db.ts";
import { merchantsDueForIdentityCheck } from "./identity-check-queue.ts";
import { createMerchantRegistryRepository } from "./merchant-registry-repository.ts";
import { createRegistryMaintenance, type RegistryMaintenance } from "./registry-maintenance.ts";

export interface RegistryPorts {
  registry: MerchantRegistryStore;
  maintenance: RegistryMaintenance;
  /** The listed merchants whose official identity check is due by `horizon` (`npm run verify -- --due`). */
  dueForIdentityCheck(options: { horizon: string; limit?: number }): Promise<string[]>;
}

export function sqliteRegistryPorts(db: Db): RegistryPorts {
  return {
    registry: createMerchantRegistryRepository(db),
    maintenance: createRegistryMaintenance(db),
    dueForIdentityCheck: async (options) => merchantsDueForIdentityCheck(db, options),
  };
}
