/**
 * The fingerprints of the files every machine must hold alike (migration 0004_deployment_files).
 * The first machine records each file's fingerprint; the others compare theirs with it.
 */
import type pg from "pg";
import { inTransaction } from "./transaction.ts";

/** The advisory lock of the check: two machines starting together record one set, not two. */
const DEPLOYMENT_FILES_LOCK = 0x4142_4546_494c;

export interface RecordedFingerprint {
  name: string;
  sha256: string;
  recordedAt: string;
  recordedBy: string;
}

/**
 * Under one lock: what the deployment recorded for these names, after `decide` saw it. `decide`
 * (synchronous) answers the fingerprints to record for names that have none yet (it may create
 * the files first); nothing is recorded for a name that has one.
 */
export async function recordDeploymentFiles(
  pool: pg.Pool,
  names: readonly string[],
  decide: (recorded: ReadonlyMap<string, RecordedFingerprint>) => { name: string; sha256: string }[],
  by: { host: string; at: string },
): Promise<Map<string, RecordedFingerprint>> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [DEPLOYMENT_FILES_LOCK]);
    const read = async () => {
      const { rows } = await client.query<{ name: string; sha256: string; recorded_at: string; recorded_by: string }>(
        "SELECT name, sha256, recorded_at, recorded_by FROM deployment_files WHERE name = ANY($1::text[])",
        [names],
      );
      return new Map(
        rows.map((row) => [
          row.name,
          { name: row.name, sha256: row.sha256, recordedAt: row.recorded_at, recordedBy: row.recorded_by },
        ]),
      );
    };
    const recorded = await read();
    const fresh = decide(recorded).filter((entry) => !recorded.has(entry.name));
    if (fresh.length === 0) return recorded;
    await client.query(
      `INSERT INTO deployment_files (name, sha256, recorded_at, recorded_by)
       SELECT name, sha256, $3, $4 FROM unnest($1::text[], $2::text[]) AS f(name, sha256)`,
      [fresh.map((entry) => entry.name), fresh.map((entry) => entry.sha256), by.at, by.host],
    );
    return read();
  });
}

/** Records these fingerprints as the deployment's (after an operator changed the files: a key rotation). */
export async function replaceDeploymentFiles(
  pool: pg.Pool,
  entries: readonly { name: string; sha256: string }[],
  by: { host: string; at: string },
): Promise<void> {
  await pool.query(
    `INSERT INTO deployment_files (name, sha256, recorded_at, recorded_by)
     SELECT name, sha256, $3, $4 FROM unnest($1::text[], $2::text[]) AS f(name, sha256)
     ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, recorded_at = excluded.recorded_at,
       recorded_by = excluded.recorded_by`,
    [entries.map((entry) => entry.name), entries.map((entry) => entry.sha256), by.at, by.host],
  );
}
