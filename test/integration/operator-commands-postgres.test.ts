/**
 * Every operator command honours DATABASE_URL (issue 26): on a migrated PostgreSQL database
 * (test/helpers/postgres.ts) seeded by `npm run seed` itself, each command is run as its own
 * process with DATABASE_URL (test/helpers/run-job.ts) and what it wrote is read back IN PostgreSQL:
 * the seed's merchants, a status change and its audit event, an import's merchants, a verify's
 * signal, claims listed and revoked, a batch of letters (PDF and rows), a refresh's published
 * documents, the search engine's status and rebuild. DATA_DIR's SQLite file is never created. A
 * PostgreSQL that does not answer, or was never migrated, is said in one line without a stack trace.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { recordClaim } from "../../src/domain/merchant-space/claims.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { postgresStore } from "../../src/store/postgres/store.ts";
import { type FakeRechercheEntreprises, startFakeRechercheEntreprises } from "../helpers/fake-recherche-entreprises.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { readPublished } from "../helpers/published-packs.ts";
import { runJob } from "../helpers/run-job.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "../helpers/sirene-stock.ts";
import { freePort } from "../helpers/spawn-start.ts";

const BASE_URL = "http://abeille.test";
const SEEDED = 40;

let postgres: TestPostgres;
let fake: FakeRechercheEntreprises;
let url: string;
let pool: pg.Pool;
let dataDir: string;

/** Runs `jobs/<script>.ts` as `npm run` does, on DATA_DIR, with DATABASE_URL (unless another is given). */
const command = (script: string, args: string[], env: Record<string, string> = {}) =>
  runJob(jobArgv(`jobs/${script}.ts`, ...args), {
    dataDir,
    baseUrl: BASE_URL,
    env: {
      DATABASE_URL: url,
      RECHERCHE_ENTREPRISES_URL: fake.url,
      RECHERCHE_ENTREPRISES_TIMEOUT_MS: "2000",
      ...env,
    },
  });

const rows = async <Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
  (await pool.query<Row>(sql, params)).rows;

/** A listed merchant's ab_id of the given status, the first by ab_id. */
const oneWithStatus = async (status: string) =>
  ((await rows<{ ab_id: string }>("SELECT ab_id FROM merchants WHERE status = $1 ORDER BY ab_id LIMIT 1", [status]))[0]
    ?.ab_id ?? "") as string;

beforeAll(async () => {
  [postgres, fake] = await Promise.all([startTestPostgres(), startFakeRechercheEntreprises()]);
  url = await postgres.createDatabase();
  pool = openPostgresPool({ url, poolMax: 2, poolTimeoutMs: 5_000 });
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-commands-pg-"));
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await Promise.all([postgres?.stop(), fake?.close()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("operator commands with DATABASE_URL", () => {
  it("npm run seed seeds the demo into PostgreSQL, refuses a second seed, and --force reseeds", async () => {
    const seeded = await command("seed", ["--count", String(SEEDED), "--seed", "7"]);
    expect([seeded.code, seeded.stderr.includes("Error")]).toEqual([0, false]);
    expect(seeded.stdout).toMatch(new RegExp(`^Seeded ${SEEDED} merchants \\(seed 7, `));
    expect(seeded.stdout).toContain("search index: not rebuilt");
    expect((await rows<{ n: number }>("SELECT count(*)::int AS n FROM merchants"))[0]?.n).toBe(SEEDED);

    const again = await command("seed", ["--count", "5"]);
    expect([again.code, again.stderr]).toEqual([
      1,
      "seed: the PostgreSQL database (DATABASE_URL) already holds merchants; pass --force to clear and reseed\n",
    ]);

    const forced = await command("seed", ["--count", String(SEEDED), "--seed", "7", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/^Cleared the existing registry \(.*merchants 40.*\)\n/m);
    expect((await rows<{ n: number }>("SELECT count(*)::int AS n FROM merchants"))[0]?.n).toBe(SEEDED);
  }, 120_000);

  it("merchants status pauses a merchant in PostgreSQL with its audit event; list and show read PostgreSQL", async () => {
    const abId = await oneWithStatus("ACTIVE");
    expect(abId).toMatch(/^ab_[a-z0-9]{8}$/);
    const [before] = await rows<{ revision: number }>("SELECT revision FROM merchants WHERE ab_id = $1", [abId]);
    const paused = await command("merchants", [
      "status",
      abId,
      "paused",
      "--reason",
      "closed for works",
      "--actor",
      "operator:test",
    ]);
    const revision = (before?.revision ?? 0) + 1;
    expect([paused.code, paused.stdout, paused.stderr]).toEqual([
      0,
      `${abId} ACTIVE -> PAUSED (revision ${revision})\n`,
      "",
    ]);
    expect(await rows("SELECT status, revision FROM merchants WHERE ab_id = $1", [abId])).toEqual([
      { status: "PAUSED", revision },
    ]);
    const events = await rows<{ actor: string; action: string; reason: string; changes: string; revision: number }>(
      "SELECT actor, action, reason, changes, revision FROM merchant_events WHERE ab_id = $1 ORDER BY event_id DESC LIMIT 1",
      [abId],
    );
    expect(events.map((event) => ({ ...event, changes: JSON.parse(event.changes) }))).toEqual([
      {
        actor: "operator:test",
        action: "status_changed",
        reason: "closed for works",
        changes: { status: { from: "ACTIVE", to: "PAUSED" } },
        revision,
      },
    ]);

    const listed = await command("merchants", ["list", "--status", "PAUSED", "--json"]);
    const pausedIds = (await rows<{ ab_id: string }>("SELECT ab_id FROM merchants WHERE status = 'PAUSED'")).map(
      (row) => row.ab_id,
    );
    expect((JSON.parse(listed.stdout) as { abId: string }[]).map((row) => row.abId).sort()).toEqual(pausedIds.sort());
    const shown = JSON.parse((await command("merchants", ["show", abId, "--json"])).stdout) as {
      revision: number;
      events: { action: string }[];
    };
    expect([shown.revision, shown.events.at(-1)?.action]).toEqual([revision, "status_changed"]);
  }, 60_000);

  const fournil = {
    siret: makeSiret(makeSiren("71122233"), "0001"),
    name: "LE FOURNIL DES PENTES",
  };

  it("npm run import writes its merchants into PostgreSQL", async () => {
    const processed = new Date(Date.now() - 30 * 24 * 3_600_000).toISOString().slice(0, 19);
    const row = stockRow({
      siren: fournil.siret.slice(0, 9),
      nic: fournil.siret.slice(9),
      siret: fournil.siret,
      statutDiffusionEtablissement: "O",
      dateCreationEtablissement: "2011-09-15",
      dateDernierTraitementEtablissement: processed,
      numeroVoieEtablissement: "14",
      typeVoieEtablissement: "AV",
      libelleVoieEtablissement: "ROGER SALENGRO",
      codePostalEtablissement: "69100",
      libelleCommuneEtablissement: "VILLEURBANNE",
      codeCommuneEtablissement: "69266",
      etatAdministratifEtablissement: "A",
      enseigne1Etablissement: fournil.name,
      activitePrincipaleEtablissement: "10.71C",
      nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
    });
    const establishments = path.join(dataDir, "StockEtablissement_pg.csv");
    writeFileSync(establishments, `${ESTABLISHMENT_HEADER.join(",")}\r\n${row}\r\n`);
    const units = path.join(dataDir, "StockUniteLegale_pg.csv");
    writeFileSync(units, legalUnitsCsv([publicCompany(fournil.siret.slice(0, 9), `SARL ${fournil.name}`)]));
    const imported = await command("import", [
      "sirene",
      "--etablissements",
      establishments,
      "--unites-legales",
      units,
      "--json",
    ]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ read: 1, created: 1, updated: 0, rejected: [] });
    expect(
      await rows("SELECT business_name, status, postal_code FROM merchants WHERE siret = $1", [fournil.siret]),
    ).toEqual([{ business_name: fournil.name, status: "PROBATION", postal_code: "69100" }]);
    expect((await rows<{ n: number }>("SELECT count(*)::int AS n FROM merchants"))[0]?.n).toBe(SEEDED + 1);
  }, 60_000);

  it("npm run verify records the official check in PostgreSQL and reports it", async () => {
    const [merchant] = await rows<{ ab_id: string }>("SELECT ab_id FROM merchants WHERE siret = $1", [fournil.siret]);
    const abId = merchant?.ab_id as string;
    fake.script(fournil.siret, {
      kind: "found",
      establishment: {
        siret: fournil.siret,
        name: fournil.name,
        nafCode: "10.71C",
        address: "14 AVENUE ROGER SALENGRO 69100 VILLEURBANNE",
        postalCode: "69100",
        city: "VILLEURBANNE",
        communeCode: "69266",
        createdOn: "2011-09-15",
      },
    });
    const verified = await command("verify", [abId, "--json"]);
    expect([verified.code, JSON.parse(verified.stdout), verified.stderr]).toEqual([
      0,
      {
        selected: 1,
        checked: 1,
        verified: 1,
        not_found: 0,
        closed: 0,
        not_public: 0,
        archived: 0,
        errors: [],
        results: [{ ab_id: abId, outcome: "verified", url: `${fake.url}/search?q=${fournil.siret}`, archived: false }],
      },
      "",
    ]);
    expect(
      await rows("SELECT status, proof_status, source FROM signals WHERE ab_id = $1 AND key = 'siret_verified'", [
        abId,
      ]),
    ).toEqual([{ status: "verified", proof_status: "official_source_verified", source: "official_api" }]);
  }, 60_000);

  it("merchants claims lists a listing's claims from PostgreSQL; revoke-claim revokes it there", async () => {
    const abId = await oneWithStatus("ACTIVE");
    const [merchant] = await rows<{ siret: string }>("SELECT siret FROM merchants WHERE ab_id = $1", [abId]);
    const claim = await recordClaim(
      { store: createMerchantSpaceRepository(postgresStore(pool).storeDb), now: () => new Date() },
      {
        abId,
        siren: (merchant?.siret ?? "").slice(0, 9),
        subject: "letter:pg-test",
        email: "gerante@exemple.fr",
        via: "letter",
        basis: "letter",
        acr: null,
        amr: null,
        idpId: null,
      },
    );
    const listed = await command("merchants", ["claims", abId, "--json"]);
    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as { claimId: string; revokedAt: string | null }[]).map((row) => [
        row.claimId,
        row.revokedAt,
      ]),
    ).toEqual([[claim.claimId, null]]);
    const revoked = await command("merchants", [
      "revoke-claim",
      claim.claimId,
      "--reason",
      "not the owner",
      "--actor",
      "operator:test",
    ]);
    expect([revoked.code, revoked.stdout, revoked.stderr]).toEqual([
      0,
      `${claim.claimId} on ${abId} revoked, with the person's other claims on it; its person's sessions are ended\n`,
      "",
    ]);
    const [row] = await rows<{ revoked_at: string | null; revoked_by: string; revoked_reason: string }>(
      "SELECT revoked_at, revoked_by, revoked_reason FROM merchant_claims WHERE claim_id = $1",
      [claim.claimId],
    );
    expect([row?.revoked_at !== null, row?.revoked_by, row?.revoked_reason]).toEqual([
      true,
      "operator:test",
      "not the owner",
    ]);
  }, 60_000);

  it("merchants letters writes the PDF and records the letters in PostgreSQL", async () => {
    const abIds = (
      await rows<{ ab_id: string }>("SELECT ab_id FROM merchants WHERE status = 'ACTIVE' ORDER BY ab_id LIMIT 2")
    ).map((row) => row.ab_id);
    const out = path.join(dataDir, "letters.pdf");
    const printed = await command("merchants", [
      "letters",
      ...abIds.flatMap((abId) => ["--ab-id", abId]),
      "--out",
      out,
      "--json",
    ]);
    expect(printed.code).toBe(0);
    const report = JSON.parse(printed.stdout) as { batch_id: string; letters: number; out: string };
    expect([report.letters, report.out]).toEqual([2, out]);
    expect(readFileSync(out).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(
      (
        await rows<{ ab_id: string }>("SELECT ab_id FROM letter_codes WHERE batch_id = $1 ORDER BY ab_id", [
          report.batch_id,
        ])
      ).map((row) => row.ab_id),
    ).toEqual([...abIds].sort());
  }, 60_000);

  it("npm run refresh publishes into PostgreSQL's published documents, the same bytes as its folder", async () => {
    const refreshed = await command("refresh", ["--json", "--workers", "1"]);
    expect([refreshed.code, refreshed.stderr]).toEqual([0, ""]);
    const summary = JSON.parse(refreshed.stdout) as { merchants: number; failed: number };
    const published = (
      await rows<{ ab_id: string }>(
        "SELECT ab_id FROM merchants WHERE status IN ('ACTIVE', 'PROBATION', 'PAUSED') ORDER BY ab_id",
      )
    ).map((row) => row.ab_id);
    expect([summary.merchants, summary.failed]).toEqual([published.length, 0]);
    const documents = await rows<{ path: string; sha256: string }>(
      "SELECT path, sha256 FROM published_documents WHERE path LIKE 'api/merchants/%/jsonld' AND body IS NOT NULL ORDER BY path",
    );
    expect(documents.map((document) => document.path)).toEqual(
      published.map((abId) => `api/merchants/${abId}/jsonld`).sort(),
    );
    for (const document of documents) {
      const local = readPublished(path.join(dataDir, "publish"), document.path);
      expect(
        createHash("sha256")
          .update(local ?? "")
          .digest("base64"),
      ).toBe(document.sha256);
    }
  }, 120_000);

  it("npm run refresh --workers 2 renders in threads that each open their own pool to DATABASE_URL", async () => {
    const refreshed = await command("refresh", ["--json", "--workers", "2", "--full"]);
    expect([refreshed.code, refreshed.stderr]).toEqual([0, ""]);
    const summary = JSON.parse(refreshed.stdout) as { merchants: number; rendered: number; failed: number };
    expect([summary.rendered, summary.failed]).toEqual([summary.merchants, 0]);
    const [{ n } = { n: -1 }] = await rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM published_documents WHERE path LIKE 'api/merchants/%/jsonld' AND body IS NOT NULL",
    );
    expect(n).toBe(summary.merchants);
  }, 120_000);

  it("npm run search rebuilds and reports this machine's own index over PostgreSQL", async () => {
    const rebuilt = await command("search", ["rebuild"]);
    expect([rebuilt.code, rebuilt.stderr]).toEqual([0, ""]);
    expect(rebuilt.stdout).toMatch(/^Rebuilt the embedded index in \d+\.\d s\.\n$/);
    expect(existsSync(path.join(dataDir, "search-index", "catalog.db"))).toBe(true);
    const status = await command("search", ["status"]);
    const [revision] = await rows<{ revision: number }>('SELECT revision FROM "store_revision" WHERE id = 1');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      engine: "embedded",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
    });
    expect(revision?.revision).toBeGreaterThan(0);
  }, 60_000);

  it("kill-switch, agents, retention and outbox work on PostgreSQL", async () => {
    const on = await command("kill-switch", ["on"]);
    expect([on.code, on.stderr]).toEqual([0, ""]);
    expect(on.stdout).toMatch(/^operator kill switch: ON \(agent access suspended\) since \d{4}-\d\d-\d\dT/);
    expect(await rows("SELECT key, value FROM settings WHERE key = 'agent_access_suspended'")).toEqual([
      { key: "agent_access_suspended", value: "on" },
    ]);
    expect((await command("kill-switch", ["off"])).code).toBe(0);
    expect(await rows("SELECT value FROM settings WHERE key = 'agent_access_suspended'")).toEqual([{ value: "off" }]);

    const agents = await command("agents", ["list"]);
    expect([agents.code, agents.stdout, agents.stderr]).toEqual([0, "no agents\n", ""]);

    const retention = await command("retention", []);
    expect([retention.code, retention.stderr]).toEqual([0, ""]);
    expect(retention.stdout).toMatch(/^retention \(before [^)]+\): 0 leads, 0 messages, /);

    const outbox = await command("outbox-worker", ["--once"]);
    expect([outbox.code, outbox.stderr]).toEqual([0, ""]);
    // The one email waiting: the notice of the claim recorded above, to its listing's lead address.
    expect(outbox.stdout).toMatch(/^outbox: 1 sent, 0 to retry, 0 failed; rows by status \{"sent":1\} /);
    expect(await rows("SELECT kind, status FROM outbox")).toEqual([{ kind: "space_notice", status: "sent" }]);
  }, 60_000);

  it("never created DATA_DIR's SQLite file", () => {
    expect(existsSync(path.join(dataDir, "abeille.db"))).toBe(false);
  });

  it("says in one line when PostgreSQL does not answer, or holds no schema", async () => {
    const port = await freePort();
    const down = await command("merchants", ["list"], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/abeille`,
      DATABASE_POOL_TIMEOUT_MS: "3000",
    });
    expect([down.code, down.stdout, down.stderr]).toEqual([
      1,
      "",
      `merchants: PostgreSQL (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED)\n`,
    ]);
    const empty = await postgres.createEmptyDatabase();
    const unmigrated = await command("merchants", ["list"], { DATABASE_URL: empty });
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.stderr).toMatch(
      /^merchants: PostgreSQL \(DATABASE_URL\): relation "[a-z_]+" does not exist \(42P01\): apply the migrations first, npm run db -- migrate\n$/,
    );
    // Through the query builder too, which wraps the driver's error.
    const shown = await command("merchants", ["status", "ab_00000000", "PAUSED"], { DATABASE_URL: empty });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(
      /^merchants: PostgreSQL \(DATABASE_URL\): relation "[a-z_]+" does not exist \(42P01\): apply the migrations first, npm run db -- migrate\n$/,
    );
    expect(existsSync(path.join(dataDir, "abeille.db"))).toBe(false);
  }, 60_000);
});
