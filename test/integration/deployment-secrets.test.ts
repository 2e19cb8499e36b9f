/**
 * Operator commands never mint a deployment's secrets (issue 36): on both engines, each command
 * that reads a secret or the signing keys, run as its own process (test/helpers/run-job.ts), makes
 * and records it when the deployment has none (the first command on an empty deployment), and on a
 * machine without the deployment's copy, or with another one, stops with exit status 2 and one
 * line naming the file and what to do, having made and written nothing. The server records every
 * file at its start and refuses to start on such a machine.
 *
 * A "machine" is a DATA_DIR: on PostgreSQL a second one beside the first, sharing DATABASE_URL; on
 * SQLite a DATA_DIR holding a copy of the first one's store file (a backup restored without the
 * secret store).
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { runJob } from "../helpers/run-job.ts";
import { spawnStart } from "../helpers/spawn-start.ts";

const BASE_URL = "http://abeille.test";
const COPY = "copy it from the deployment's secret store or from another machine of the deployment";

let postgres: TestPostgres;
const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-deployment-secrets-"));

beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface Deployment {
  /** The environment every machine of it shares (DATABASE_URL on PostgreSQL). */
  env: Record<string, string>;
  /** A new machine of the deployment: an empty DATA_DIR, with a copy of the store's file on SQLite. */
  machine(name: string): string;
  rows<T>(sql: string, dataDir: string): Promise<T[]>;
}

const ENGINES: { name: string; deployment(): Promise<Deployment> }[] = [
  {
    name: "SQLite",
    async deployment() {
      const first = path.join(scratch, "sqlite-a");
      return {
        env: {},
        machine(name) {
          const dataDir = path.join(scratch, `sqlite-${name}`);
          mkdirSync(dataDir, { recursive: true });
          if (dataDir !== first) {
            for (const file of readdirSync(first).filter(
              (entry) => entry === "abeille.db" || entry === "abeille.db-wal",
            ))
              copyFileSync(path.join(first, file), path.join(dataDir, file));
          }
          return dataDir;
        },
        async rows<T>(sql: string, dataDir: string) {
          const db = new Database(path.join(dataDir, "abeille.db"), { readonly: true });
          try {
            return db.prepare(sql).all() as T[];
          } finally {
            db.close();
          }
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    async deployment() {
      const url = await postgres.createDatabase();
      return {
        env: { DATABASE_URL: url },
        machine(name) {
          const dataDir = path.join(scratch, `postgres-${name}`);
          mkdirSync(dataDir, { recursive: true });
          return dataDir;
        },
        async rows<T>(sql: string) {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            return (await client.query(sql)).rows as T[];
          } finally {
            await client.end();
          }
        },
      };
    },
  },
];

const run = (deployment: Deployment, dataDir: string, script: string, args: string[], env = {}) =>
  runJob(jobArgv(`jobs/${script}.ts`, ...args), { dataDir, baseUrl: BASE_URL, env: { ...deployment.env, ...env } });

describe.each(ENGINES)("a deployment's secrets on $name", (engine) => {
  let deployment: Deployment;
  let first: string;
  let abIds: string[];
  /** The deployment's record of a file: who and when, as the refusals say it. */
  const recordOf = async (name: string) => {
    const [row] = await deployment.rows<{ recorded_by: string; recorded_at: string }>(
      `SELECT recorded_by, recorded_at FROM deployment_files WHERE name = '${name}'`,
      first,
    );
    return `the deployment's was recorded by ${row?.recorded_by} at ${row?.recorded_at}`;
  };
  const recorded = async (dataDir: string) =>
    (await deployment.rows<{ name: string }>("SELECT name FROM deployment_files ORDER BY name", dataDir)).map(
      (row) => row.name,
    );
  const letters = (dataDir: string, out: string) =>
    run(deployment, dataDir, "merchants", ["letters", ...abIds.flatMap((abId) => ["--ab-id", abId]), "--out", out]);

  beforeAll(async () => {
    deployment = await engine.deployment();
    first = deployment.machine("a");
    const seeded = await run(deployment, first, "seed", ["--count", "12", "--seed", "7"]);
    expect([seeded.code, seeded.stderr]).toEqual([0, ""]);
    abIds = (
      await deployment.rows<{ ab_id: string }>(
        "SELECT ab_id FROM merchants WHERE status = 'ACTIVE' ORDER BY ab_id LIMIT 2",
        first,
      )
    ).map((row) => row.ab_id);
    expect(abIds).toHaveLength(2);
  }, 120_000);

  it("lets each command that reads a secret make and record it on the empty deployment, once", async () => {
    expect(await recorded(first)).toEqual([]);
    expect(existsSync(path.join(first, "secrets"))).toBe(false);

    const printed = await letters(first, path.join(first, "letters.pdf"));
    expect([printed.code, printed.stderr]).toEqual([0, ""]);
    const letterKey = readFileSync(path.join(first, "secrets", "letter-code.key"));
    expect(await recorded(first)).toEqual(["secrets/letter-code.key"]);

    const outbox = await run(deployment, first, "outbox-worker", ["--once"]);
    expect([outbox.code, outbox.stderr]).toEqual([0, ""]);
    const refreshed = await run(deployment, first, "refresh", ["--quiet", "--workers", "1"]);
    expect([refreshed.code, refreshed.stderr]).toEqual([0, ""]);
    expect(await recorded(first)).toEqual([
      "secrets/lead-email.key",
      "secrets/letter-code.key",
      "secrets/pro-sign-in-link.key",
      "signing-keys",
    ]);

    // A second batch reads the key the first one made.
    const again = await letters(first, path.join(first, "letters-2.pdf"));
    expect([again.code, again.stderr]).toEqual([0, ""]);
    expect(readFileSync(path.join(first, "secrets", "letter-code.key")).equals(letterKey)).toBe(true);
  }, 120_000);

  it("records every file at the server's start, and refuses to start a machine without them", async () => {
    const started = await spawnStart(
      { DATA_DIR: first, SERVER_PROCESSES: "1", REFRESH_ON_START: "false", DEMO_SEED_COUNT: "0", ...deployment.env },
      120_000,
    );
    try {
      expect(await recorded(first)).toEqual([
        "secrets/lead-email.key",
        "secrets/lead-tracking.key",
        "secrets/letter-code.key",
        "secrets/page-form.key",
        "secrets/pro-csrf.key",
        "secrets/pro-sign-in-link.key",
        "signing-keys",
      ]);
    } finally {
      started.child.kill("SIGTERM");
      await new Promise((resolve) => started.child.once("exit", resolve));
    }

    const bare = deployment.machine("start-bare");
    const refused = await runJob(["jobs/start.ts"], {
      dataDir: bare,
      baseUrl: BASE_URL,
      env: { ...deployment.env, PORT: "0", DEMO_SEED_COUNT: "0" },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `  ${path.join(bare, "secrets", "letter-code.key")} is missing: ${COPY} (${await recordOf("secrets/letter-code.key")})\n`,
    );
    expect(existsSync(path.join(bare, "secrets"))).toBe(false);
  }, 180_000);

  it("refuses the letters to a machine without the deployment's letter-code key: exit 2, one line, nothing made", async () => {
    const bare = deployment.machine("letters-bare");
    const before = await deployment.rows<{ n: number }>("SELECT count(*) AS n FROM letter_codes", bare);
    const out = path.join(bare, "letters.pdf");
    const refused = await letters(bare, out);
    const file = path.join(bare, "secrets", "letter-code.key");
    expect(refused).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `merchants: ${file} is missing: ${COPY} (${await recordOf("secrets/letter-code.key")}); nothing was done\n`,
    });
    expect([existsSync(path.join(bare, "secrets")), existsSync(out)]).toEqual([false, false]);
    expect(await deployment.rows("SELECT count(*) AS n FROM letter_codes", bare)).toEqual(before);
  }, 60_000);

  it("refuses the letters to a machine holding another letter-code key: exit 2, one line, the key left as it is", async () => {
    const other = deployment.machine("letters-other");
    mkdirSync(path.join(other, "secrets"));
    const file = path.join(other, "secrets", "letter-code.key");
    writeFileSync(file, "a".repeat(43), { mode: 0o600 });
    const out = path.join(other, "letters.pdf");
    const refused = await letters(other, out);
    expect(refused).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `merchants: ${file} differs from the deployment's: ${COPY} (${await recordOf("secrets/letter-code.key")}); nothing was done\n`,
    });
    expect([readFileSync(file, "utf8"), existsSync(out)]).toEqual(["a".repeat(43), false]);
    expect(readdirSync(path.join(other, "secrets"))).toEqual(["letter-code.key"]);
  }, 60_000);

  it("refuses the outbox, the refresh and the keys to a machine without the deployment's copies", async () => {
    const bare = deployment.machine("others-bare");
    const secret = (name: string) => path.join(bare, "secrets", name);
    const outbox = await run(deployment, bare, "outbox-worker", ["--once"]);
    expect(outbox).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `outbox: ${secret("lead-email.key")} is missing: ${COPY} (${await recordOf("secrets/lead-email.key")}); ${secret("pro-sign-in-link.key")} is missing: ${COPY} (${await recordOf("secrets/pro-sign-in-link.key")}); nothing was done\n`,
    });
    const keysDir = `${path.join(bare, "keys")}${path.sep}`;
    const keysLine = `${keysDir} is missing: ${COPY} (${await recordOf("signing-keys")}); nothing was done\n`;
    const refreshed = await run(deployment, bare, "refresh", ["--quiet", "--workers", "1"]);
    expect(refreshed).toMatchObject({ code: 2, stdout: "", stderr: `refresh: ${keysLine}` });
    for (const args of [["list"], ["rotate", "--activate-after", "0"]]) {
      const keys = await run(deployment, bare, "keys", args);
      expect(keys).toMatchObject({ code: 2, stdout: "", stderr: `keys: ${keysLine}` });
    }
    expect([existsSync(path.join(bare, "secrets")), existsSync(path.join(bare, "keys"))]).toEqual([false, false]);
  }, 120_000);
});
