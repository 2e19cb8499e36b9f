/**
 * The files every machine of a PostgreSQL deployment must hold alike (jobs/shared-files.ts), on a
 * real PostgreSQL: the first machine makes and records them; a second machine with none, or with a
 * different one, is refused with the files to copy named; once the operator copied them, it starts.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKeysCommand } from "../../jobs/keys.ts";
import {
  checkSharedFiles,
  type DeploymentFileRecorder,
  recordSigningKeys,
  SharedFilesError,
} from "../../jobs/shared-files.ts";
import { loadConfig } from "../../src/config/config.ts";
import { recordDeploymentFiles, replaceDeploymentFiles } from "../../src/store/postgres/deployment-files.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

let server: TestPostgres;
let pool: pg.Pool;
const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-shared-files-"));
const record: DeploymentFileRecorder = (names, decide, by) => recordDeploymentFiles(pool, names, decide, by);
const machine = (name: string) => loadConfig({ DATA_DIR: path.join(scratch, name) });
const AT = new Date("2026-11-27T02:00:00.000Z");

beforeAll(async () => {
  server = await startTestPostgres();
  pool = openPostgresPool({ url: await server.createDatabase(), poolMax: 2, poolTimeoutMs: 5_000 });
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function refusal(config: ReturnType<typeof machine>): Promise<string> {
  const error = await checkSharedFiles(record, config, AT).then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(SharedFilesError);
  return (error as Error).message;
}

describe("the files every machine holds alike", () => {
  it("are made and recorded by the first machine, refused to a machine that lacks or changed them, accepted once copied", async () => {
    const first = machine("a");
    await checkSharedFiles(record, first, AT);
    expect(readdirSync(path.join(first.dataDir, "secrets")).sort()).toEqual([
      "lead-email.key",
      "lead-tracking.key",
      "letter-code.key",
      "page-form.key",
      "pro-csrf.key",
      "pro-sign-in-link.key",
    ]);
    const recorded = await pool.query<{ name: string; recorded_by: string }>(
      "SELECT name, recorded_by FROM deployment_files ORDER BY name",
    );
    expect(recorded.rows.map((row) => row.name)).toEqual([
      "keys",
      "secrets/lead-email.key",
      "secrets/lead-tracking.key",
      "secrets/letter-code.key",
      "secrets/page-form.key",
      "secrets/pro-csrf.key",
      "secrets/pro-sign-in-link.key",
    ]);
    // Checking again on the same machine changes nothing.
    await checkSharedFiles(record, first, AT);

    // A second machine with nothing copied: every file named, none made.
    const second = machine("b");
    const missing = await refusal(second);
    expect(missing.split("\n").slice(1)).toEqual([
      ...["lead-tracking", "page-form", "lead-email", "pro-csrf", "letter-code", "pro-sign-in-link"].map(
        (name) =>
          `  ${path.join(second.dataDir, "secrets", `${name}.key`)} is missing: copy it from a machine of the deployment (the deployment's was recorded by ${os.hostname()} at 2026-11-27T02:00:00.000Z)`,
      ),
      `  ${path.join(second.dataDir, "keys")}${path.sep} is missing: copy it from a machine of the deployment (the deployment's was recorded by ${os.hostname()} at 2026-11-27T02:00:00.000Z)`,
    ]);

    // The operator's secret store copies them: accepted.
    cpSync(path.join(first.dataDir, "secrets"), path.join(second.dataDir, "secrets"), { recursive: true });
    cpSync(path.join(first.dataDir, "keys"), path.join(second.dataDir, "keys"), { recursive: true });
    await checkSharedFiles(record, second, AT);

    // One secret that differs: that one named.
    writeFileSync(path.join(second.dataDir, "secrets", "lead-tracking.key"), "x".repeat(43));
    const differs = await refusal(second);
    expect(differs.split("\n").slice(1)).toEqual([
      `  ${path.join(second.dataDir, "secrets", "lead-tracking.key")} differs from the deployment's: copy it from a machine of the deployment (the deployment's was recorded by ${os.hostname()} at 2026-11-27T02:00:00.000Z)`,
    ]);
  });

  it("takes a key rotation as the deployment's keys: a machine still on the old ones is refused until they are copied", async () => {
    const first = machine("e");
    const second = machine("f");
    await pool.query("DELETE FROM deployment_files");
    await checkSharedFiles(record, first, AT);
    cpSync(path.join(first.dataDir, "secrets"), path.join(second.dataDir, "secrets"), { recursive: true });
    cpSync(path.join(first.dataDir, "keys"), path.join(second.dataDir, "keys"), { recursive: true });
    await checkSharedFiles(record, second, AT);

    const quiet = { out: () => undefined, err: () => undefined };
    expect(runKeysCommand(["rotate", "--activate-after", "0"], first, quiet)).toBe(0);
    await recordSigningKeys(first, (entries, by) => replaceDeploymentFiles(pool, entries, by));
    await checkSharedFiles(record, first, AT);
    const message = await refusal(second);
    expect(message).toContain(`${path.join(second.dataDir, "keys")}${path.sep} differs from the deployment's`);
    cpSync(path.join(first.dataDir, "keys"), path.join(second.dataDir, "keys"), { recursive: true });
    await checkSharedFiles(record, second, AT);
  });

  it("records one set when two machines start at once", async () => {
    await pool.query("DELETE FROM deployment_files");
    const results = await Promise.allSettled([
      checkSharedFiles(record, machine("c"), AT),
      checkSharedFiles(record, machine("d"), AT),
    ]);
    // One made and recorded its files; the other, which found them recorded, is told to copy them.
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
  });
});
