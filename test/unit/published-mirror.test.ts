/**
 * Published documents in the database (docs/several-machines.md), on a real PostgreSQL: a refresh
 * on one instance (its DATA_DIR) writes its files to published_documents; another instance's mirror
 * (another DATA_DIR, another pool) has them after the notice, byte-identical, with the same ETag; a
 * merchant withdrawn by a refresh disappears from the mirror; a mirror started late catches up at
 * start; a refresh whose folder is ahead of the table (a new table, another leader since) sends
 * every file. And the refresh run on PostgreSQL itself (its source, its index in the shared tables):
 * the index and the files commit together, and another instance leading next carries on from it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import { decideInRegistry } from "../../src/domain/merchants/merchant-registry.ts";
import type { ServiceError } from "../../src/errors/service-error.ts";
import { bodyHash, etagOf } from "../../src/publish/document.ts";
import { publishedPath } from "../../src/publish/documents.ts";
import { PublishFolder } from "../../src/publish/publish-folder.ts";
import { RefreshBusyError, type RefreshInput, runRefresh } from "../../src/publish/publisher.ts";
import type { PublishSettings } from "../../src/publish/settings.ts";
import { workerRunner } from "../../src/publish/worker-runner.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { openPackIndexReader } from "../../src/store/pack-index.ts";
import { copySqliteToPostgres } from "../../src/store/postgres/copy.ts";
import { leaderLockKey } from "../../src/store/postgres/leader.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresPublishIndex, postgresRefreshStore } from "../../src/store/postgres/publish-index.ts";
import { createPostgresProfileLoader, createPostgresPublishSource } from "../../src/store/postgres/publish-source.ts";
import { createPostgresPublishedDocuments } from "../../src/store/postgres/published-documents.ts";
import { type PublishedMirror, startPublishedMirror } from "../../src/store/postgres/published-mirror.ts";
import { REFRESH_LOCK } from "../../src/store/postgres/refresh-lock.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { publishedDocuments, readPublished } from "../helpers/published-packs.ts";
import { until } from "../helpers/wait-for.ts";

const NOW = new Date("2026-11-20T09:00:00.000Z");
const BASE_URL = "https://abeille.example";

let server: TestPostgres;
let scratch: string;
let db: Db;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-mirror-"));
  // The registry the leader renders from (the refresh's source engine is not what this test is about).
  db = openDatabase(path.join(scratch, "abeille.db"));
  await seedDemoRegistry(db, { count: 12, seed: 5, now: NOW, dataDir: scratch, rosterFile: null });
}, 120_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  db?.$client.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function pool(url: string): pg.Pool {
  const opened = openPostgresPool({ url, poolMax: 4, poolTimeoutMs: 5_000 });
  closers.push(() => opened.end());
  return opened;
}

async function mirror(url: string, name: string): Promise<{ dir: string; mirror: PublishedMirror }> {
  const dir = path.join(scratch, name, "publish");
  const started = await startPublishedMirror({ pool: pool(url), url, publishDir: dir, retryMs: 500 });
  closers.push(() => started.stop());
  return { dir, mirror: started };
}

/** Every document a publish folder's packs serve and every file outside its state, with its bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const relative of publishedDocuments(dir).keys()) {
    const body = readPublished(dir, relative);
    if (body) files.set(relative, body);
  }
  const walk = (folder: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".abeille") walk(full);
      } else files.set(path.relative(dir, full), readFileSync(full));
    }
  };
  walk(dir);
  return files;
}

/** What the server of a publish folder knows of each merchant it serves (its packs' serve records), one line each. */
function serveIndexOf(dir: string): string {
  const index = openPackIndexReader(path.join(dir, ".abeille"));
  if (!index) return "";
  try {
    const lines = [`publish key ${index.committed().publishKey}`];
    for (let after = ""; ; ) {
      const page = index.serveRecords(after, 1000);
      for (const [abId, record] of page) {
        lines.push(`${abId}\t${record.stamp}\t${record.until ?? "-"}\t${record.snapshotExpiresAt ?? "-"}`);
      }
      const last = page[page.length - 1];
      if (!last) break;
      after = last[0];
    }
    return lines.join("\n");
  } finally {
    index.close();
  }
}

/** A publish folder's settings with no schedule. */
function publishSettings(publishDir: string): PublishSettings {
  return {
    publishDir,
    refreshCron: null,
    refreshTimezone: null,
    refreshOnStart: false,
    snapshotRenewMarginSeconds: 3600,
    fastPath: true,
    refreshWorkers: null,
  };
}

function leader(url: string, name: string) {
  const dataDir = path.join(scratch, name);
  const settings = publishSettings(path.join(dataDir, "publish"));
  const documents = createPostgresPublishedDocuments(pool(url));
  const refresh = (now: Date) =>
    runRefresh({
      db,
      config: { baseUrl: BASE_URL, publicOrderRailEnabled: false, dataDir, databaseFile: db.$client.name },
      settings,
      now,
      nextRunAt: null,
      codeKey: "test-code",
      publishedDocuments: documents,
    });
  return { dir: settings.publishDir, refresh, documents };
}

describe("published documents in the database, mirrored by every instance", () => {
  it("carries a refresh to another instance's mirror, byte for byte; a withdrawal removes the files; a late mirror catches up", async () => {
    const url = await server.createDatabase();
    const one = leader(url, "instance-1");
    const two = await mirror(url, "instance-2");
    expect(two.mirror.revision()).toBe(0);
    await until(() => two.mirror.listening(), 10_000, "the mirror to listen");

    const first = await one.refresh(NOW);
    expect(first.merchants).toBeGreaterThan(5);
    const published = filesOf(one.dir);
    expect(published.size).toBeGreaterThan(first.merchants * 3);
    await until(() => two.mirror.revision() === 1, 10_000, "the notice of the first publication");
    const mirrored = filesOf(two.dir);
    expect([...mirrored.keys()].sort()).toEqual([...published.keys()].sort());
    for (const [relative, body] of published) {
      expect(mirrored.get(relative)?.equals(body), relative).toBe(true);
      expect(etagOf(bodyHash(mirrored.get(relative) ?? Buffer.alloc(0)))).toBe(etagOf(bodyHash(body)));
    }
    expect(serveIndexOf(two.dir)).toBe(serveIndexOf(one.dir));

    // A merchant suspended: the next refresh withdraws its files, here and in the mirror.
    const [withdrawnId] = [...published.keys()]
      .map((relative) => /^api\/merchants\/(ab_[a-z0-9]{8})\/jsonld$/.exec(relative)?.[1])
      .filter((abId): abId is string => abId !== undefined)
      .sort();
    if (!withdrawnId) throw new Error("no merchant published");
    const lifecycle = {
      registry: createMerchantRegistryRepository(db),
      communes: createCommuneLookup(),
      now: () => NOW,
    };
    await decideInRegistry(lifecycle, { abIds: [withdrawnId] }, (decision) =>
      changeMerchantStatus(decision, withdrawnId, { status: "SUSPENDED", reason: "fraude signalée" }, "operator:test"),
    );
    const second = await one.refresh(new Date(NOW.getTime() + 60_000));
    expect(second.withdrawn).toBe(1);
    await until(() => two.mirror.revision() === 2, 10_000, "the notice of the withdrawal");
    const jsonld = publishedPath("jsonld", withdrawnId);
    expect(filesOf(one.dir).has(jsonld)).toBe(false);
    const afterWithdrawal = filesOf(two.dir);
    expect(afterWithdrawal.has(jsonld)).toBe(false);
    expect([...afterWithdrawal.keys()].sort()).toEqual([...filesOf(one.dir).keys()].sort());
    expect(serveIndexOf(two.dir)).toBe(serveIndexOf(one.dir));
    expect(serveIndexOf(two.dir)).not.toContain(withdrawnId);

    // Only what changed was written in the second publication.
    const rows = await pool(url).query<{ revision: string; files: string; removed: string }>(
      `SELECT revision, count(*) AS files, count(*) FILTER (WHERE body IS NULL) AS removed
       FROM published_documents GROUP BY revision ORDER BY revision`,
    );
    const second_ = rows.rows.find((row) => Number(row.revision) === 2);
    expect(Number(second_?.removed)).toBe(published.size - filesOf(one.dir).size);

    // A mirror started now, on a third DATA_DIR: it catches up at start, without a notice.
    const three = await mirror(url, "instance-3");
    expect(three.mirror.revision()).toBe(2);
    const lateFiles = filesOf(three.dir);
    expect([...lateFiles.keys()].sort()).toEqual([...filesOf(one.dir).keys()].sort());
    for (const [relative, body] of filesOf(one.dir)) expect(lateFiles.get(relative)?.equals(body), relative).toBe(true);
  }, 60_000);

  it("shares a folder between the machine's mirror and its own refresh: neither writes while the other does", async () => {
    const url = await server.createDatabase();
    const own = leader(url, "shared-own");
    const ownMirror = await startPublishedMirror({ pool: pool(url), url, publishDir: own.dir, retryMs: 100 });
    closers.push(() => ownMirror.stop());
    await until(() => ownMirror.listening(), 10_000, "the mirror to listen");

    // This machine's refresh is writing its folder when another machine publishes: the mirror
    // leaves the folder alone until the refresh is over, then applies the publication.
    const refreshing = await lockOnceFree(own.dir, "refresh");
    await leader(url, "shared-other").refresh(NOW);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ownMirror.revision()).toBe(0);
    expect(filesOf(own.dir).size).toBe(0);
    refreshing();
    await until(() => ownMirror.revision() === 1, 10_000, "the publication applied once the refresh is over");
    expect(filesOf(own.dir).size).toBeGreaterThan(0);

    // The mirror is applying when this machine's refresh starts: the refresh waits for it.
    const applying = await lockOnceFree(own.dir, "mirror");
    let settled = false;
    const run = own.refresh(new Date(NOW.getTime() + 60_000)).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(settled).toBe(false);
    applying();
    expect((await run).failed).toBe(0);
  }, 60_000);

  it("starts a mirror while the database is down and keeps trying: it mirrors once the database is back, without a restart", async () => {
    const url = await server.createDatabase();
    const one = leader(url, "instance-10");
    await one.refresh(NOW);
    const published = filesOf(one.dir);

    await server.pause();
    const errors: unknown[] = [];
    const recovered: number[] = [];
    const dir = path.join(scratch, "instance-11", "publish");
    let started: PublishedMirror | null = null;
    try {
      started = await startPublishedMirror({
        pool: pool(url),
        url,
        publishDir: dir,
        retryMs: 200,
        onError: (error) => errors.push(error),
        onRecovered: (revision) => recovered.push(revision),
      });
      closers.push(() => started?.stop());
      expect(started.revision()).toBe(0);
      expect(errors.length).toBe(1);
      expect((errors[0] as ServiceError).code).toBe("STORE_UNAVAILABLE");
      // Tried again every retryMs while the database is gone, nothing mirrored.
      await until(() => errors.length >= 3, 10_000, "two more tries");
      expect(filesOf(dir).size).toBe(0);
    } finally {
      await server.resume();
    }
    const mirror = started;
    // The revision moves as the catch-up applies; onRecovered is told once the catch-up has ended.
    await until(
      () => mirror.revision() === 1 && recovered.length > 0,
      10_000,
      "the catch-up once the database is back",
    );
    expect(recovered).toEqual([1]);
    const mirrored = filesOf(dir);
    expect([...mirrored.keys()].sort()).toEqual([...published.keys()].sort());
    for (const [relative, body] of published) expect(mirrored.get(relative)?.equals(body), relative).toBe(true);
    expect(serveIndexOf(dir)).toBe(serveIndexOf(one.dir));
    await until(() => mirror.listening(), 10_000, "the mirror to listen again");
  }, 90_000);

  it("prunes tombstones past a week; a mirror behind the pruned ones catches up in full and removes what it missed", async () => {
    const url = await server.createDatabase();
    const admin = pool(url);
    const one = leader(url, "instance-12");
    await one.refresh(NOW);
    // A machine that mirrored the first publication, then was off for more than a week.
    const away = await mirror(url, "instance-13");
    expect(away.mirror.revision()).toBe(1);
    await away.mirror.stop();
    // And one that stays up (caught up at each notice): never behind what is pruned.
    const present = await mirror(url, "instance-14");
    await until(() => present.mirror.listening(), 10_000, "the mirror to listen");

    const suspend = async (abId: string, at: Date) => {
      await decideInRegistry(
        { registry: createMerchantRegistryRepository(db), communes: createCommuneLookup(), now: () => at },
        { abIds: [abId] },
        (decision) =>
          changeMerchantStatus(decision, abId, { status: "SUSPENDED", reason: "fraude signalée" }, "operator:test"),
      );
    };
    const [first, second] = [...filesOf(one.dir).keys()]
      .map((relative) => /^api\/merchants\/(ab_[a-z0-9]{8})\/jsonld$/.exec(relative)?.[1])
      .filter((abId): abId is string => abId !== undefined)
      .sort();
    if (!first || !second) throw new Error("two merchants must be published");
    const firstFiles = [...filesOf(one.dir).keys()].filter((relative) => relative.includes(first));
    expect(firstFiles.length).toBeGreaterThan(3);

    await suspend(first, new Date(NOW.getTime() + 60_000));
    await one.refresh(new Date(NOW.getTime() + 120_000));
    const tombstones = async () =>
      (
        await admin.query<{ path: string; revision: number }>(
          "SELECT path, revision FROM published_documents WHERE body IS NULL ORDER BY path",
        )
      ).rows;
    const atTwo = await tombstones();
    expect(atTwo.map((row) => row.path)).toEqual([...firstFiles].sort());
    expect(atTwo.every((row) => Number(row.revision) === 2)).toBe(true);
    // Every tombstone but one eight days old (past the week), that one six days old (kept).
    const day = 24 * 3600 * 1000;
    const [kept, ...aged] = atTwo.map((row) => row.path);
    await admin.query("UPDATE published_documents SET published_at = $1 WHERE path = ANY($2)", [
      new Date(Date.now() - 8 * day).toISOString(),
      aged,
    ]);
    await admin.query("UPDATE published_documents SET published_at = $1 WHERE path = $2", [
      new Date(Date.now() - 6 * day).toISOString(),
      kept,
    ]);
    expect((await one.documents.state())?.prunedRevision).toBe(0);

    // The next publication prunes the aged ones and records the revision they had.
    await suspend(second, new Date(NOW.getTime() + 180_000));
    await one.refresh(new Date(NOW.getTime() + 240_000));
    const secondFiles = [...filesOf(away.dir).keys()].filter((relative) => relative.includes(second));
    expect((await tombstones()).map((row) => row.path)).toEqual([kept, ...secondFiles].sort());
    expect(await one.documents.state()).toMatchObject({ revision: 3, prunedRevision: 2 });
    await until(() => present.mirror.revision() === 3, 10_000, "the third publication");
    expect([...filesOf(present.dir).keys()].sort()).toEqual([...filesOf(one.dir).keys()].sort());

    // The machine comes back at revision 1, below the pruned 2: a full catch-up, which removes
    // the first merchant's files although their tombstones are gone, and a file of a merchant's
    // folder the table does not have; a file Abeille does not publish stays.
    const live = /^api\/merchants\/(ab_[a-z0-9]{8})\//.exec(
      [...filesOf(one.dir).keys()].find((relative) => relative.startsWith("api/merchants/")) ?? "",
    )?.[1];
    if (!live) throw new Error("a merchant must remain published");
    mkdirSync(path.join(away.dir, "api", "merchants", live), { recursive: true });
    writeFileSync(path.join(away.dir, "api", "merchants", live, "retired-kind"), "{}");
    writeFileSync(path.join(away.dir, "operator-notes.txt"), "not Abeille's");
    // A refresh of that machine's own folder is running: the full catch-up waits for it (it would
    // delete or overwrite files the refresh has not published yet), trying again every retryMs.
    const refreshing = new PublishFolder(away.dir).lockForRun();
    const waited: unknown[] = [];
    const back = {
      dir: away.dir,
      mirror: await startPublishedMirror({
        pool: pool(url),
        url,
        publishDir: away.dir,
        retryMs: 200,
        onError: (error) => waited.push(error),
      }),
    };
    closers.push(() => back.mirror.stop());
    expect(back.mirror.revision()).toBe(1);
    // Waiting for a refresh is not a failure: nothing said.
    expect(waited).toEqual([]);
    expect(filesOf(back.dir).has(`api/merchants/${live}/retired-kind`)).toBe(true);
    refreshing();
    await until(() => back.mirror.revision() === 3, 10_000, "the full catch-up once the refresh is over");
    const local = filesOf(one.dir);
    const mirrored = filesOf(back.dir);
    expect(mirrored.get("operator-notes.txt")?.toString("utf8")).toBe("not Abeille's");
    mirrored.delete("operator-notes.txt");
    expect([...mirrored.keys()].sort()).toEqual([...local.keys()].sort());
    for (const [relative, body] of local) expect(mirrored.get(relative)?.equals(body), relative).toBe(true);
    expect(serveIndexOf(back.dir)).toBe(serveIndexOf(one.dir));
    expect(existsSync(path.join(back.dir, "refresh.lock"))).toBe(false);
    // The catch-up lets the folder go a moment after its revision moved: no lock left once it has.
    await until(
      () => !existsSync(path.join(back.dir, ".abeille", "refresh.lock")),
      10_000,
      "the mirror to let the folder go",
    );
  }, 60_000);

  it("sends every file when the table is not at the folder's last run (a new table, another leader since)", async () => {
    const before = await server.createDatabase();
    const one = leader(before, "instance-4");
    await one.refresh(NOW);
    // The same folder now publishes to an empty table: a run with nothing to render still sends everything.
    const after = await server.createDatabase();
    const moved = leader(after, "instance-4");
    const run = await moved.refresh(new Date(NOW.getTime() + 60_000));
    expect(run.rendered).toBe(0);
    const late = await mirror(after, "instance-5");
    expect(late.mirror.revision()).toBe(1);
    const local = filesOf(one.dir);
    const mirrored = filesOf(late.dir);
    expect([...mirrored.keys()].sort()).toEqual([...local.keys()].sort());
    expect(serveIndexOf(late.dir)).toBe(serveIndexOf(one.dir));
    // And the next run, with the table at its index and nothing written, publishes nothing.
    await moved.refresh(new Date(NOW.getTime() + 120_000));
    expect((await moved.documents.state())?.revision).toBe(1);
  }, 60_000);

  it("runs the refresh on PostgreSQL: index and files in one commit; the next leader carries on from the shared index", async () => {
    const url = await server.createDatabase();
    const shared = pool(url);
    await copySqliteToPostgres(db.$client, shared, { batchRows: 500 });
    const loader = createPostgresProfileLoader(shared);
    const onPostgres = (name: string, now: Date, extra: Partial<RefreshInput> = {}) => {
      const dataDir = path.join(scratch, name);
      const publishDir = path.join(dataDir, "publish");
      return {
        dir: publishDir,
        run: () =>
          runRefresh({
            store: {
              source: createPostgresPublishSource(shared),
              loadProfiles: (abIds) => loader.load(abIds),
              index: createPostgresPublishIndex(shared),
            },
            config: { baseUrl: BASE_URL, publicOrderRailEnabled: false, dataDir, databaseFile: "" },
            settings: publishSettings(publishDir),
            now,
            nextRunAt: null,
            codeKey: "test-code",
            ...extra,
          }),
      };
    };
    const watcher = await mirror(url, "instance-7");
    await until(() => watcher.mirror.listening(), 10_000, "the mirror to listen");

    const first = onPostgres("instance-6", NOW);
    const summary = await first.run();
    expect(summary.rendered).toBe(summary.merchants);
    await until(() => watcher.mirror.revision() === 1, 10_000, "the first publication");
    const published = filesOf(first.dir);
    const mirrored = filesOf(watcher.dir);
    expect([...mirrored.keys()].sort()).toEqual([...published.keys()].sort());
    for (const [relative, body] of published) expect(mirrored.get(relative)?.equals(body), relative).toBe(true);
    expect(serveIndexOf(watcher.dir)).toBe(serveIndexOf(first.dir));

    // One merchant renamed; the next run, on another instance (another DATA_DIR, nothing rendered
    // there before), renders it alone: the index it reads is the shared one.
    const [renamed] = [...published.keys()]
      .map((relative) => /^api\/merchants\/(ab_[a-z0-9]{8})\/jsonld$/.exec(relative)?.[1])
      .filter((abId): abId is string => abId !== undefined)
      .sort();
    if (!renamed) throw new Error("no merchant published");
    await shared.query("UPDATE merchants SET business_name = 'Maison Renommée', updated_at = $2 WHERE ab_id = $1", [
      renamed,
      new Date(NOW.getTime() + 30_000).toISOString(),
    ]);
    const next = onPostgres("instance-8", new Date(NOW.getTime() + 60_000));
    const second = await next.run();
    expect(second.rendered).toBe(1);
    await until(() => watcher.mirror.revision() === 2, 10_000, "the second publication");
    const jsonld = publishedPath("jsonld", renamed);
    const renderedHere = readPublished(next.dir, jsonld) ?? Buffer.alloc(0);
    expect(renderedHere.toString("utf8")).toContain("Maison Renommée");
    expect(readPublished(watcher.dir, jsonld)?.equals(renderedHere)).toBe(true);
    // This instance's packs hold what it rendered (its own mirror brings the rest from the table).
    const lineOf = (dir: string) =>
      serveIndexOf(dir)
        .split("\n")
        .find((line) => line.startsWith(renamed));
    expect(lineOf(watcher.dir)).toBe(lineOf(next.dir));
    expect(lineOf(next.dir)).toBeDefined();
    // The second publication carried the renamed merchant's files and the serve index, nothing else.
    const carried = await shared.query<{ path: string }>(
      "SELECT path FROM published_documents WHERE revision = 2 ORDER BY path",
    );
    expect(carried.rows.every((row) => row.path.includes(renamed) || row.path === ".abeille/serve-index.tsv")).toBe(
      true,
    );
    expect(carried.rows.map((row) => row.path)).toContain(jsonld);

    // A full pass in worker threads, each with its own pool to DATABASE_URL: the same bytes as the mirror holds.
    const workers = onPostgres("instance-9", new Date(NOW.getTime() + 60_000), {
      runner: workerRunner(
        {
          databaseFile: "",
          databaseUrl: url,
          dataDir: path.join(scratch, "instance-9"),
          baseUrl: BASE_URL,
          publicOrderRailEnabled: false,
        },
        { publishDir: path.join(scratch, "instance-9", "publish") },
        2,
      ),
      full: true,
    });
    const third = await workers.run();
    expect([third.rendered, third.failed]).toEqual([second.merchants, 0]);
    await watcher.mirror.catchUp();
    const fromWorkers = filesOf(workers.dir);
    const nowMirrored = filesOf(watcher.dir);
    expect([...fromWorkers.keys()].sort()).toEqual([...nowMirrored.keys()].sort());
    for (const [relative, body] of fromWorkers) expect(nowMirrored.get(relative)?.equals(body), relative).toBe(true);
  }, 60_000);
});

describe("one refresh at a time across machines (the store's advisory lock)", () => {
  /** A refresh on PostgreSQL from its own DATA_DIR; `gate` holds it inside its run (lock taken) until opened. */
  const machine = (url: string, shared: pg.Pool, name: string, gate: Promise<void> | null = null) => {
    const dataDir = path.join(scratch, name);
    const publishDir = path.join(dataDir, "publish");
    const store = postgresRefreshStore(shared);
    const source = store.source;
    return runRefresh({
      store: {
        ...store,
        source: {
          ...source,
          revision: async () => {
            await gate;
            return source.revision();
          },
        },
      },
      config: { baseUrl: BASE_URL, publicOrderRailEnabled: false, dataDir, databaseFile: "" },
      settings: publishSettings(publishDir),
      now: NOW,
      nextRunAt: null,
      codeKey: "test-code",
      full: true,
      publishedDocuments: createPostgresPublishedDocuments(pool(url)),
    });
  };
  const opened = () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { gate, open };
  };

  /** The sessions holding the refresh lock, as pg_locks shows them. */
  const holders = async (admin: pg.Pool) =>
    (
      await admin.query<{ pid: number; application_name: string }>(
        `SELECT l.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1::oid AND l.objsubid = 2`,
        [String(leaderLockKey(REFRESH_LOCK) >>> 0)],
      )
    ).rows;
  /** The one session holding it, once a run has taken it. */
  const holderOnceTaken = async (admin: pg.Pool) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [holder] = await holders(admin);
      if (holder) return holder;
      if (Date.now() > deadline) throw new Error("no run took the refresh lock within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it("refuses a second refresh from another DATA_DIR while the first runs, allows it after; a dead holder frees the lock", async () => {
    const url = await server.createDatabase();
    const shared = pool(url);
    await copySqliteToPostgres(db.$client, shared, { batchRows: 500 });
    const admin = pool(url);

    // Machine A's run holds the lock (stopped inside its run); machine B's is refused, as a second run on one machine is.
    const first = opened();
    const startedA = Date.now();
    const runA = machine(url, pool(url), "lock-a", first.gate);
    const holderA = await holderOnceTaken(admin);
    expect(holderA.application_name).toBe(`abeille refresh ${os.hostname()} pid ${process.pid}`.slice(0, 63));
    const refused = await machine(url, pool(url), "lock-b").then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RefreshBusyError);
    const said = /^another refresh is running on this deployment \((.+), since (\S+)\)$/.exec(
      (refused as Error).message,
    );
    expect(said?.[1]).toBe(holderA.application_name);
    // Since the lock was taken (not since its pooled connection was opened).
    const since = Date.parse(said?.[2] ?? "");
    expect(since).toBeGreaterThanOrEqual(startedA - 50);
    expect(since).toBeLessThanOrEqual(Date.now());
    // Refused before touching its folder.
    expect(existsSync(path.join(scratch, "lock-b", "publish", ".abeille", "serve-index.tsv"))).toBe(false);

    first.open();
    const summaryA = await runA;
    expect(summaryA.failed).toBe(0);
    expect(await holders(admin)).toEqual([]);
    const summaryB = await machine(url, pool(url), "lock-b");
    expect([summaryB.rendered, summaryB.failed]).toEqual([summaryA.merchants, 0]);
    expect(await holders(admin)).toEqual([]);

    // Machine C's run holds the lock and its connection dies (its machine vanished): the server
    // frees the lock, machine D runs, and C's commit refuses to publish over D's.
    const third = opened();
    const runC = machine(url, pool(url), "lock-c", third.gate);
    const caught = runC.then(
      () => null,
      (error: unknown) => error,
    );
    const holderC = await holderOnceTaken(admin);
    await admin.query("SELECT pg_terminate_backend($1)", [holderC.pid]);
    const revisionBefore = (await createPostgresPublishedDocuments(admin).state())?.revision;
    const summaryD = await machine(url, pool(url), "lock-d");
    expect(summaryD.failed).toBe(0);
    const revisionAfterD = (await createPostgresPublishedDocuments(admin).state())?.revision;
    expect(revisionAfterD).toBe((revisionBefore ?? 0) + 1);
    third.open();
    const failure = await caught;
    expect((failure as Error).message).toBe(
      "refresh: the deployment's refresh lock was lost during the run (its connection to PostgreSQL ended); nothing was committed, run it again",
    );
    expect((await createPostgresPublishedDocuments(admin).state())?.revision).toBe(revisionAfterD);
    expect(await holders(admin)).toEqual([]);
  }, 120_000);
});

/**
 * The publish folder's lock, taken as soon as it is free: a mirror lets the folder go a moment
 * after its revision moves (its start's catch-up, an apply), and the test must not race it.
 */
async function lockOnceFree(dir: string, kind: "refresh" | "mirror"): Promise<() => void> {
  const taken: { release?: () => void } = {};
  await until(
    () => {
      try {
        taken.release = new PublishFolder(dir).lockForRun(kind);
        return true;
      } catch (error) {
        if (error instanceof RefreshBusyError) return false;
        throw error;
      }
    },
    10_000,
    `the folder's lock (${kind})`,
  );
  if (!taken.release) throw new Error(`the folder's lock (${kind}) was not taken`);
  return taken.release;
}
