import type { Db } from "./db.ts";

/** The health check's readiness probe: the database answers a query (prepared once). */
export function createDatabaseProbe(db: Db): () => Promise<void> {
  const probe = db.$client.prepare("SELECT 1");
  return async () => {
    probe.get();
  };
}
