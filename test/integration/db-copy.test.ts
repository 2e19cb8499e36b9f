/**
 * `npm run db -- copy --to postgres://...` (jobs/db.ts, src/store/postgres/copy.ts) on a real
 * SQLite DATA_DIR, seeded through the demo's imports and then used through the built server (an
 * agent registered, leads and a follow-up message sent, hence the outbox, dedupe windows and
 * idempotency keys) and the merchant space's domain (a claim), into a real PostgreSQL
 * (test/helpers/postgres.ts), while that server keeps serving the DATA_DIR: every row of every
 * table equal on both engines, booleans as booleans, JSON text byte for byte, the sequences moved
 * past the copied numbers, the triggers back on; a target with a registry refused; a copy killed
 * midway leaves the target empty; the source read in one snapshot; usage errors and unreachable or
 * unfit servers said in one line, never with the password.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { recordClaim } from "../../src/domain/merchant-space/claims.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { checkMatches, compareWithSource, copyPlan, quoteIdentifier } from "../../src/store/postgres/copy.ts";
import { migrations } from "../../src/store/postgres/migrations/index.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { registeredKey } from "../helpers/agents.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { runJob } from "../helpers/run-job.ts";
import { freePort } from "../helpers/spawn-start.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let postgres: TestPostgres;
let server: TestServer;
const plan = copyPlan();

const copy = (args: string[], options: { dataDir?: string; onSpawn?: (child: ChildProcess) => void } = {}) =>
  runJob(jobArgv("jobs/db.ts", ...args), {
    dataDir: options.dataDir ?? server.dataDir,
    baseUrl: TEST_BASE_URL,
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
  });

const sqliteFile = () => path.join(server.dataDir, "abeille.db");

/** Runs `work` on a pool over `url` (bigint read as numbers, as the store reads them). */
async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = openPostgresPool({ url, poolMax: 2, poolTimeoutMs: 5_000 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** Every table's row count in the target. */
const postgresCounts = (url: string) =>
  withPool(url, async (pool) => {
    const counts: Record<string, number> = {};
    for (const table of plan) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${quoteIdentifier(table.name)}`);
      counts[table.name] = rows[0]?.n ?? -1;
    }
    return counts;
  });

const sqliteCounts = () => {
  const db = new Database(sqliteFile(), { readonly: true });
  try {
    return Object.fromEntries(
      plan.map((table) => [
        table.name,
        db
          .prepare(`SELECT count(*) FROM ${quoteIdentifier(table.name)}`)
          .pluck()
          .get() as number,
      ]),
    );
  } finally {
    db.close();
  }
};

/** A target with the migrations applied and no rows but theirs (the one store revision row at 0). */
const EMPTY = () => Object.fromEntries(plan.map((table) => [table.name, table.name === "store_revision" ? 1 : 0]));

/** The target's foreign keys and indexes, as the catalog defines them: a copy puts back what it set aside. */
const constraintsAndIndexes = (url: string) =>
  withPool(url, async (pool) => {
    const { rows } = await pool.query<{ definition: string }>(
      `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace
       UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
       ORDER BY 1`,
    );
    return rows.map((row) => row.definition);
  });

beforeAll(async () => {
  postgres = await startTestPostgres();
  server = await startTestServer({ count: 40 });
  // An agent, leads (one through the agent, with an idempotency key), a follow-up message.
  const key = await registeredKey(server, "Agent de la copie");
  const abId = server.roster.cases.active_contactable?.[0] as string;
  const leadHeaders: Record<string, string>[] = [{ "x-api-key": key, "idempotency-key": "copy-test-1" }, {}];
  for (const [index, headers] of leadHeaders.entries()) {
    const lead = await server.getJson("/api/contact/brick", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        ab_id: abId,
        contact_name: "Camille Martin",
        contact_email: `camille.${index}@example.fr`,
        lead_type: "contact",
        message: "Bonjour, « un devis » SVP.\nMerci.",
      }),
    });
    expect(lead.status).toBe(201);
    if (index === 0) {
      const message = await server.getJson(`/api/leads/${lead.body.lead_id}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tracking-token": lead.body.tracking_token },
        body: JSON.stringify({ message: "Êtes-vous disponible jeudi ?" }),
      });
      expect(message.status).toBe(201);
    }
  }
  // A claim on a listing, through the merchant space's one door for claims.
  const db = openDatabase(sqliteFile());
  try {
    const siret = db.$client.prepare("SELECT siret FROM merchants WHERE ab_id = ?").pluck().get(abId) as string;
    await recordClaim(
      { store: createMerchantSpaceRepository(db), now: () => new Date() },
      {
        abId,
        siren: siret.slice(0, 9),
        subject: "letter:copy-test",
        email: "Gerante@Exemple.fr",
        via: "letter",
        basis: "letter",
        acr: null,
        amr: null,
        idpId: null,
      },
    );
  } finally {
    db.$client.close();
  }
}, 120_000);

afterAll(async () => {
  await server?.close();
  await postgres?.stop();
});

describe("npm run db -- copy", () => {
  let copied = "";

  it("copies every row of every table, column by column, while the server serves; sequences moved, triggers back", async () => {
    copied = await postgres.createEmptyDatabase();
    const result = await copy(["copy", "--to", copied]);
    expect(result.stderr).not.toMatch(/Error|at .*\.ts:/);
    expect(result.code).toBe(0);
    const source = sqliteCounts();
    // What the test made is there to be copied.
    for (const table of ["agents", "leads", "lead_messages", "outbox", "merchant_claims", "idempotency_keys"])
      expect(source[table], table).toBeGreaterThan(0);
    expect(await postgresCounts(copied)).toEqual(source);
    const migrated = await constraintsAndIndexes(await postgres.createDatabase());
    expect(migrated.filter((definition) => definition.includes("FOREIGN KEY")).length).toBeGreaterThan(10);
    expect(await constraintsAndIndexes(copied)).toEqual(migrated);
    // The report: one line per table, the same count on both sides.
    for (const table of plan) {
      const n = (source[table.name] as number).toLocaleString("en-US");
      expect(result.stdout).toMatch(new RegExp(`^${table.name} +${n} +${n}( |$)`, "m"));
    }
    expect(result.stdout).toMatch(
      /^copied [\d,]+ rows of 32 tables in [\d.]+ s \([\d,]+ rows\/s\); the counts and last ids of both sides are equal$/m,
    );

    // Every row, every column: text and JSON text the same strings, integers the same numbers,
    // SQLite's 0/1 booleans true/false.
    const sqlite = new Database(sqliteFile(), { readonly: true });
    try {
      await withPool(copied, async (pool) => {
        for (const table of plan) {
          const columns = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
          const order = table.primaryKey.map(quoteIdentifier).join(", ");
          const select = `SELECT ${columns} FROM ${quoteIdentifier(table.name)} ORDER BY ${order}`;
          const expected = (sqlite.prepare(select).all() as Record<string, unknown>[]).map((row) => {
            for (const column of table.columns)
              if (column.type === "boolean" && row[column.name] !== null) row[column.name] = row[column.name] === 1;
            return row;
          });
          const { rows } = await pool.query(select);
          expect(rows, table.name).toEqual(expected);
        }
        // Booleans are booleans, JSON is the very text SQLite held.
        const { rows: merchants } = await pool.query<{ delivery_enabled: unknown; hours: string }>(
          "SELECT delivery_enabled, hours FROM merchants WHERE hours IS NOT NULL ORDER BY ab_id LIMIT 1",
        );
        expect(typeof merchants[0]?.delivery_enabled).toBe("boolean");
        const hours = sqlite
          .prepare("SELECT hours FROM merchants WHERE hours IS NOT NULL ORDER BY ab_id LIMIT 1")
          .pluck()
          .get() as string;
        expect(merchants[0]?.hours).toBe(hours);
        expect(hours.startsWith("{") || hours.startsWith("[")).toBe(true);

        // The triggers are on again: every user trigger enabled, the audit log append-only.
        const { rows: disabled } = await pool.query(
          "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'O'",
        );
        expect(disabled).toEqual([]);
        await expect(pool.query("DELETE FROM merchant_events WHERE event_id = 1")).rejects.toThrow(
          "merchant_events is append-only",
        );

        // In a transaction rolled back, so that the target stays the source's copy for the tests
        // below: an insert gets the number after the copied ones, a write to a merchant moves the
        // store revision on from the copied one.
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const lastEvent = sqlite.prepare("SELECT max(event_id) FROM merchant_events").pluck().get() as number;
          const lastSeq = sqlite.prepare("SELECT max(seq) FROM merchant_changes").pluck().get() as number;
          const abId = server.roster.cases.active_contactable?.[0] as string;
          const event = await client.query<{ event_id: number }>(
            `INSERT INTO merchant_events (ab_id, at, actor, action, changes, reason, revision)
             VALUES ($1, '2026-11-26T00:00:00.000Z', 'operator:test', 'reviewed', '{}', NULL, 1) RETURNING event_id`,
            [abId],
          );
          expect(event.rows[0]?.event_id).toBe(lastEvent + 1);
          const change = await client.query<{ seq: number }>(
            `INSERT INTO merchant_changes (ab_id, revision, change, changed_at)
             VALUES ($1, 1, 'updated', '2026-11-26T00:00:00.000Z') RETURNING seq`,
            [abId],
          );
          expect(change.rows[0]?.seq).toBe(lastSeq + 1);
          const revision = async () =>
            (await client.query<{ revision: number }>("SELECT revision FROM store_revision")).rows[0]?.revision;
          const before = await revision();
          expect(before).toBe(sqlite.prepare("SELECT revision FROM store_revision").pluck().get());
          await client.query("UPDATE merchants SET updated_at = updated_at WHERE ab_id = $1", [abId]);
          expect(await revision()).toBe((before as number) + 1);
        } finally {
          await client.query("ROLLBACK");
          client.release();
        }
      });
    } finally {
      sqlite.close();
    }
  }, 120_000);

  it("refuses a target that already holds a registry: exit 1, which tables, how to start over, nothing written", async () => {
    const before = await postgresCounts(copied);
    const result = await copy(["copy", "--to", copied]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^db: refused, nothing written: 127\.0\.0\.1:\d+, database \w+ already holds a registry \(rows in agents, [a-z_, ]+\)\. Copy into a new database \(CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'\), or drop this one and create it again: the audit log refuses deletes\.\n$/,
    );
    expect(await postgresCounts(copied)).toEqual(before);
  }, 60_000);

  it("says which table differs when the target does not match the source (the check made before the commit)", async () => {
    await withPool(copied, async (pool) => {
      const client = await pool.connect();
      const sqlite = new Database(sqliteFile(), { readonly: true });
      try {
        await client.query("BEGIN");
        await client.query("DELETE FROM agents");
        const checks = await compareWithSource(client, sqlite);
        expect(checks.filter((check) => !checkMatches(check)).map((check) => check.table)).toEqual(["agents"]);
        const agents = checks.find((check) => check.table === "agents");
        expect(agents).toMatchObject({ sqlite: sqliteCounts().agents, postgres: 0 });
        expect(checks.find((check) => check.table === "merchant_events")?.lastId?.column).toBe("event_id");
      } finally {
        await client.query("ROLLBACK");
        client.release();
        sqlite.close();
      }
    });
  });

  it("a copy killed midway leaves the target migrated and empty, its triggers on; the next copy goes through", async () => {
    const target = await postgres.createEmptyDatabase();
    let killedAfter = "";
    const killed = await copy(["copy", "--to", target, "--batch-rows", "1"], {
      onSpawn: (child) => {
        let seen = "";
        child.stderr?.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          // Once products start, merchants, the audit log and the feed are written in the transaction.
          if (!killedAfter && /^copy: products /m.test(seen)) {
            killedAfter = seen;
            child.kill("SIGKILL");
          }
        });
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(killedAfter).toMatch(/^copy: merchants \(40 rows\)$/m);
    expect(killed.stdout).toBe("");
    // The server ends the killed session's transaction when it sees the connection go.
    await expect.poll(() => postgresCounts(target), { timeout: 10_000 }).toEqual(EMPTY());
    await withPool(target, async (pool) => {
      const { rows } = await pool.query("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'O'");
      expect(rows).toEqual([]);
      const revision = await pool.query("SELECT id, revision FROM store_revision");
      expect(revision.rows).toEqual([{ id: 1, revision: 0 }]);
    });
    expect(await constraintsAndIndexes(target)).toEqual(await constraintsAndIndexes(await postgres.createDatabase()));
    const again = await copy(["copy", "--to", target]);
    expect([again.code, again.stderr]).toEqual([0, expect.not.stringMatching(/refused|Error/)]);
    expect(await postgresCounts(target)).toEqual(sqliteCounts());
  }, 120_000);

  it("a row whose merchant is gone (written with SQLite's foreign keys off) fails the copy by name; nothing written", async () => {
    const broken = mkdtempSync(path.join(os.tmpdir(), "abeille-db-copy-orphan-"));
    try {
      const source = new Database(sqliteFile(), { readonly: true });
      await source.backup(path.join(broken, "abeille.db"));
      source.close();
      const db = new Database(path.join(broken, "abeille.db"));
      db.pragma("foreign_keys = OFF");
      db.prepare(
        "UPDATE products SET ab_id = 'AB-NO-SUCH-MERCHANT' WHERE rowid = (SELECT min(rowid) FROM products)",
      ).run();
      db.close();
      const target = await postgres.createEmptyDatabase();
      const result = await copy(["copy", "--to", target], { dataDir: broken });
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr.split("\n").filter((line) => line.startsWith("db: "))).toEqual([
        'db: copying products failed: insert or update on table "products" violates foreign key constraint "products_ab_id_merchants_ab_id_fk"; rolled back, nothing written',
      ]);
      expect(await postgresCounts(target)).toEqual(EMPTY());
      expect(await constraintsAndIndexes(target)).toEqual(await constraintsAndIndexes(await postgres.createDatabase()));
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  }, 60_000);

  it("reads the source in one snapshot: what the server writes during the copy is not copied, and the counts agree", async () => {
    const target = await postgres.createEmptyDatabase();
    const before = sqliteCounts();
    const abId = server.roster.cases.active_contactable?.[1] as string;
    let lead: Promise<number> | null = null;
    const result = await copy(["copy", "--to", target, "--batch-rows", "1"], {
      onSpawn: (child) => {
        // As the copy starts (its first table), the server takes a lead: a lead, its dedupe
        // window and its outbox row, tables the copy reaches later.
        child.stderr?.on("data", () => {
          lead ??= server
            .getJson("/api/contact/brick", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                ab_id: abId,
                contact_name: "Dominique Petit",
                contact_email: "dominique.pendant.la.copie@example.fr",
                lead_type: "contact",
              }),
            })
            .then((answer) => answer.status);
        });
      },
    });
    expect(await lead).toBe(201);
    expect(result.stderr).not.toMatch(/differ|rolled back/);
    expect(result.code).toBe(0);
    const after = sqliteCounts();
    expect([after.leads, after.outbox]).toEqual([(before.leads as number) + 1, (before.outbox as number) + 1]);
    expect(await postgresCounts(target)).toEqual(before);
  }, 120_000);
});

describe("npm run db, when something is wrong", () => {
  it("migrate applies DATABASE_URL's pending migrations once, then says there is nothing to apply", async () => {
    const url = await postgres.createEmptyDatabase();
    const migrate = () =>
      runJob(jobArgv("jobs/db.ts", "migrate"), {
        dataDir: server.dataDir,
        baseUrl: TEST_BASE_URL,
        env: { DATABASE_URL: url },
      });
    const first = await migrate();
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr }).toEqual({
      code: 0,
      stdout: `applied ${migrations.map((migration) => migration.id).join(", ")}\n`,
      stderr: "",
    });
    const again = await migrate();
    expect({ code: again.code, stdout: again.stdout }).toEqual({
      code: 0,
      stdout: "nothing to apply: the database is up to date\n",
    });
  }, 60_000);

  it("usage errors: one line, exit 2, the URL's password never said back", async () => {
    const cases: [string[], string][] = [
      [[], "no command: copy, migrate"],
      [["move"], "unknown command move: copy, migrate"],
      [["copy"], "copy needs --to postgres://user:password@host:port/database (or DATABASE_URL)"],
      [["migrate"], "migrate needs DATABASE_URL=postgres://user:password@host:port/database"],
      [["migrate", "--to", "postgres://h/db"], "migrate takes DATABASE_URL, not --to"],
      [["copy", "extra", "--to", "postgres://h/db"], "copy takes no argument, not extra"],
      [
        ["copy", "--to", "mysql://abeille:s3cret@127.0.0.1/abeille"],
        "--to must start with postgres:// or postgresql:// (e.g. postgres://abeille:password@127.0.0.1:5432/abeille); leave it unset to keep the embedded SQLite store in DATA_DIR",
      ],
      [
        ["copy", "--to", "postgres://abeille:s3cret@127.0.0.1:5432/"],
        "--to names no database: add its name after the host and port (e.g. postgres://abeille:password@127.0.0.1:5432/abeille)",
      ],
      [
        ["copy", "--to", "postgres://h/db", "--batch-rows", "0"],
        '--batch-rows must be a whole number from 1 to 100000, not "0"',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await copy(args);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stdout: "",
        stderr: `db: ${message} (npm run db -- --help prints the usage)\n`,
      });
    }
  }, 60_000);

  it("an unreachable server, a database that cannot hold the store, a DATA_DIR without a registry: exit 1 in words", async () => {
    const port = await freePort();
    const unreachable = await copy(["copy", "--to", `postgres://abeille:s3cret@127.0.0.1:${port}/abeille`]);
    expect(unreachable).toMatchObject({ code: 1, stdout: "" });
    expect(unreachable.stderr).toBe(
      `db: PostgreSQL at 127.0.0.1:${port}, database abeille: connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED); nothing written\n`,
    );

    const missing = await copy(["copy", "--to", postgres.url("no_such_database")]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toBe(
      `db: PostgreSQL at 127.0.0.1:${postgres.port}, database no_such_database: database "no_such_database" does not exist (3D000); nothing written\n`,
    );

    // A database that orders text by a language's rules: the migrator's refusal, nothing created.
    const admin = new pg.Client({ connectionString: postgres.url("postgres") });
    await admin.connect();
    try {
      await admin.query(
        "CREATE DATABASE abeille_french TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'fr' LOCALE 'C'",
      );
    } finally {
      await admin.end();
    }
    const french = await copy(["copy", "--to", postgres.url("abeille_french")]);
    expect(french).toMatchObject({ code: 1, stdout: "" });
    expect(french.stderr).toBe(
      `db: 127.0.0.1:${postgres.port}, database abeille_french: DATABASE_URL's database cannot hold the store: its collation is an ICU one, which does not order text byte by byte. Create it with CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' (docs/deployment.md)\n`,
    );
    await withPool(postgres.url("abeille_french"), async (pool) => {
      const { rows } = await pool.query("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'");
      expect(rows).toEqual([{ n: 0 }]);
    });

    const empty = mkdtempSync(path.join(os.tmpdir(), "abeille-db-copy-empty-"));
    try {
      const target = await postgres.createEmptyDatabase();
      const noRegistry = await copy(["copy", "--to", target], { dataDir: path.join(empty, "data") });
      expect(noRegistry).toMatchObject({ code: 1, stdout: "" });
      expect(noRegistry.stderr).toBe(
        `db: DATA_DIR (${path.join(empty, "data")}) holds no registry: ${path.join(empty, "data", "abeille.db")} does not exist\n`,
      );
      expect(existsSync(path.join(empty, "data"))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
