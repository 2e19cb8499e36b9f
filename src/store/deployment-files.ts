/**
 * The fingerprints of the files every machine of a deployment holds alike (schema.ts
 * deploymentFiles; docs/several-machines.md, "Secrets and signing keys reach every machine by
 * copy"): the deployment's first server or command records each file's SHA-256, every later one
 * compares its copy with it (jobs/shared-files.ts). The port, and its SQLite implementation; the
 * PostgreSQL one is postgres/deployment-files.ts.
 */
import type { Db } from "./db.ts";
import { inArray } from "./drizzle.ts";
import { deploymentFiles } from "./schema.ts";

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

export function createDeploymentFileStore(db: Db): DeploymentFileStore {
  const read = (names: readonly string[]) =>
    new Map(
      db
        .select()
        .from(deploymentFiles)
        .where(inArray(deploymentFiles.name, [...names]))
        .all()
        .map((row) => [row.name, row] as const),
    );
  const recordTx = db.$client.transaction(
    (
      names: readonly string[],
      decide: (recorded: ReadonlyMap<string, RecordedFingerprint>) => FingerprintEntry[],
      by: RecordedBy,
    ) => {
      for (const entry of decide(read(names))) {
        const row = { ...entry, recordedAt: by.at, recordedBy: by.host };
        db.insert(deploymentFiles)
          .values(row)
          .onConflictDoUpdate({
            target: deploymentFiles.name,
            set: { sha256: row.sha256, recordedAt: row.recordedAt, recordedBy: row.recordedBy },
          })
          .run();
      }
      return read(names);
    },
  );
  return { record: async (names, decide, by) => recordTx.immediate(names, decide, by) };
}
