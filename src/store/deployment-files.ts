/**
 * The fingerprints of the files every machine of a deployment holds alike (schema.ts
 * deploymentFiles; docs/several-machines.md, "Secrets and signing keys reach every machine by
 * copy"): the deployment's first server or command records each file's SHA-256, every later one
 * compares its copy with it (jobs/shared-files.ts). The port, and its one implementation for both
 * engines.
 */
import { inArray, sql } from "./drizzle.ts";
import { deploymentFiles } from "./schema.ts";
import { inTransaction, rows, run, type StoreDb } from "./store-db.ts";

export interface RecordedFingerprint {
  name: string;
  sha256: string;
  recordedAt: string;
  recordedBy: string;
}

export interface FingerprintEntry {
  name: string;
  sha256: string;
}

/** Who records: the machine's host name and when. */
export interface RecordedBy {
  host: string;
  at: string;
}

export interface DeploymentFileStore {
  /**
   * Under the store's lock of the fingerprints (two machines or commands at once never interleave
   * their checks and records): `decide` sees what the deployment recorded for these names and
   * answers the fingerprints to record, each replacing the name's record if it has one. `decide`
   * is synchronous (it may make or change the files first, under the lock); when it throws,
   * nothing is recorded. Answers what is recorded for the names afterwards.
   */
  record(
    names: readonly string[],
    decide: (recorded: ReadonlyMap<string, RecordedFingerprint>) => FingerprintEntry[],
    by: RecordedBy,
  ): Promise<Map<string, RecordedFingerprint>>;
}

/** The lock of the check: two machines starting together record one set, not two. */
const DEPLOYMENT_FILES_LOCK = 0x4142_4546_494c;

export function createDeploymentFileStore(db: StoreDb): DeploymentFileStore {
  return {
    record: (names, decide, by) =>
      inTransaction(
        db,
        function* (tx) {
          const read = function* () {
            const recorded = yield* rows(
              tx
                .select()
                .from(deploymentFiles)
                .where(inArray(deploymentFiles.name, [...names])),
            );
            return new Map<string, RecordedFingerprint>(recorded.map((row) => [row.name, row]));
          };
          const recorded = yield* read();
          const entries = decide(recorded);
          if (entries.length === 0) return recorded;
          yield* run(
            tx
              .insert(deploymentFiles)
              .values(entries.map((entry) => ({ ...entry, recordedAt: by.at, recordedBy: by.host })))
              .onConflictDoUpdate({
                target: deploymentFiles.name,
                set: {
                  sha256: sql`excluded.sha256`,
                  recordedAt: sql`excluded.recorded_at`,
                  recordedBy: sql`excluded.recorded_by`,
                },
              }),
          );
          return yield* read();
        },
        { serializedBy: DEPLOYMENT_FILES_LOCK },
      ),
  };
}
