/**
 * The fingerprints of the files every machine must hold alike, on PostgreSQL (the port and what it
 * is for: ../deployment-files.ts; the table came first by hand, migration 0004_deployment_files,
 * and is now described once in ../schema.ts for both engines).
 */
import type pg from "pg";
import type { DeploymentFileStore, RecordedFingerprint } from "../deployment-files.ts";
import { inTransaction } from "./transaction.ts";

/** The advisory lock of the check: two machines starting together record one set, not two. */
const DEPLOYMENT_FILES_LOCK = 0x4142_4546_494c;

export function createPostgresDeploymentFileStore(pool: pg.Pool): DeploymentFileStore {
  return {
    record: (names, decide, by) =>
      inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock($1)", [DEPLOYMENT_FILES_LOCK]);
        const read = async () => {
          const { rows } = await client.query<{
            name: string;
            sha256: string;
            recorded_at: string;
            recorded_by: string;
          }>("SELECT name, sha256, recorded_at, recorded_by FROM deployment_files WHERE name = ANY($1::text[])", [
            names,
          ]);
          return new Map<string, RecordedFingerprint>(
            rows.map((row) => [
              row.name,
              { name: row.name, sha256: row.sha256, recordedAt: row.recorded_at, recordedBy: row.recorded_by },
            ]),
          );
        };
        const recorded = await read();
        const entries = decide(recorded);
        if (entries.length === 0) return recorded;
        await client.query(
          `INSERT INTO deployment_files (name, sha256, recorded_at, recorded_by)
           SELECT name, sha256, $3, $4 FROM unnest($1::text[], $2::text[]) AS f(name, sha256)
           ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, recorded_at = excluded.recorded_at,
             recorded_by = excluded.recorded_by`,
          [entries.map((entry) => entry.name), entries.map((entry) => entry.sha256), by.at, by.host],
        );
        return read();
      }),
  };
}
