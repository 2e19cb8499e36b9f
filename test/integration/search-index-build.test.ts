/**
 * Issue 35, item 2: the first build of the embedded search index at national size. It reads the
 * store in keyset pages and writes a generation of its own (src/search/embedded/index.ts), so:
 * - a build killed midway goes on from the last page it wrote, each merchant once, in the same
 *   generation;
 * - meanwhile `npm start` serves: /api/health says the index is building and how far, a search
 *   answers from what is indexed flagged `retrieval_degraded: "index_building"`, an identifier is
 *   found from the store (item 3), resolve and a merchant's documents answer as ever; once the
 *   build is through, the index answers whole.
 * The build is held in the middle by the test (another connection holds the index catalog's
 * write lock, as a long step of another process would): what the server answers meanwhile does
 * not depend on the machine's speed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type StartedProcess, spawnStart } from "../helpers/spawn-start.ts";
import { TEST_NOW } from "../helpers/test-server.ts";
import { waitFor } from "../helpers/wait-for.ts";

const COUNT = 400;
const LISTED = "('ACTIVE', 'PROBATION', 'PAUSED')";
const seeded = mkdtempSync(path.join(os.tmpdir(), "abeille-index-build-"));
const dirs: string[] = [seeded];
let started: StartedProcess | undefined;

beforeAll(async () => {
  const db = openDatabase(path.join(seeded, "abeille.db"));
  await seedDemoRegistry(db, { count: COUNT, seed: 7, now: TEST_NOW, dataDir: seeded, searchIndex: null });
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  db.$client.close();
}, 120_000);

afterAll(() => {
  started?.child.kill("SIGTERM");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A DATA_DIR of its own with the seeded registry (and no index). */
function copyOfRegistry(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-index-build-"));
  dirs.push(dir);
  copyFileSync(path.join(seeded, "abeille.db"), path.join(dir, "abeille.db"));
  copyFileSync(path.join(seeded, "demo-roster.json"), path.join(dir, "demo-roster.json"));
  return dir;
}

/** Starts a build in a process of its own, 20 merchants a page, and kills it (SIGKILL) once `atLeast` are in. */
async function buildKilledAt(dataDir: string, atLeast: number): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, ["test/helpers/build-search-index.ts", dataDir, "20"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const killedAt = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const done = Number(/(\d+)\/\d+\n$/.exec(output)?.[1] ?? 0);
      if (done >= atLeast && child.exitCode === null) {
        child.kill("SIGKILL");
        resolve(done);
      }
    });
    child.on("exit", () => reject(new Error(`the build ended before it was killed:\n${output}`)));
  });
  await new Promise((resolve) =>
    child.exitCode === null && child.signalCode === null ? child.on("exit", resolve) : resolve(null),
  );
  return killedAt;
}

function listedIds(dataDir: string): string[] {
  const db = openDatabase(path.join(dataDir, "abeille.db"), { readonly: true });
  try {
    return db.$client
      .prepare(`SELECT ab_id FROM merchants WHERE status IN ${LISTED} AND closure IS NULL ORDER BY ab_id`)
      .pluck()
      .all() as string[];
  } finally {
    db.$client.close();
  }
}

function catalogRows(dataDir: string): { id: number; state: string; done: number; total: number }[] {
  const catalog = openDatabase(path.join(dataDir, "search-index", "catalog.db"), { readonly: true });
  try {
    return catalog.$client.prepare("SELECT id, state, done, total FROM generations ORDER BY id").all() as {
      id: number;
      state: string;
      done: number;
      total: number;
    }[];
  } finally {
    catalog.$client.close();
  }
}

function indexedIds(dataDir: string, generation: number): string[] {
  const file = path.join(dataDir, "search-index", `generation-${generation}.db`);
  const sqlite = openDatabase(file, { readonly: true }).$client;
  try {
    return sqlite.prepare("SELECT ab_id FROM search_merchants ORDER BY ab_id").pluck().all() as string[];
  } finally {
    sqlite.close();
  }
}

describe("a first build of the search index", () => {
  it("killed midway, goes on from the last page it wrote: the same generation, each merchant once", async () => {
    const dataDir = copyOfRegistry();
    const killedAt = await buildKilledAt(dataDir, 100);
    const [killed] = catalogRows(dataDir);
    expect(killed).toMatchObject({ state: "building" });
    expect(killed?.done).toBeGreaterThanOrEqual(100);
    expect(killed?.done).toBeLessThan(COUNT);
    const listed = listedIds(dataDir);

    const db = openDatabase(path.join(dataDir, "abeille.db"));
    const index = createEmbeddedSearchIndex(db, { pageSize: 20 });
    const progress: number[] = [];
    await index.rebuild((done) => progress.push(done));
    index.close();
    db.$client.close();
    // It went on from the killed build's last page (not from the start), in its generation.
    expect(progress[0]).toBeGreaterThanOrEqual(killedAt);
    expect(catalogRows(dataDir)).toEqual([expect.objectContaining({ id: killed?.id, state: "current" })]);
    expect(indexedIds(dataDir, killed?.id ?? 0)).toEqual(listed);
  }, 120_000);

  it("runs beside `npm start`, which says how far it is, answers from what is indexed, flagged, and resolves as ever", async () => {
    const dataDir = copyOfRegistry();
    await buildKilledAt(dataDir, 100);
    const listed = listedIds(dataDir);
    const [partial] = catalogRows(dataDir);
    const indexed = new Set(indexedIds(dataDir, partial?.id ?? 0));
    const notYet = listed.find((abId) => !indexed.has(abId)) as string;
    // The build is held where it is while the server answers (see the header).
    const catalog = openDatabase(path.join(dataDir, "search-index", "catalog.db"));
    catalog.$client.exec("BEGIN IMMEDIATE");
    try {
      started = await spawnStart(
        {
          DATA_DIR: dataDir,
          SERVER_PROCESSES: "1",
          RATE_LIMIT_ANON_HOURLY: "100000000",
          REFRESH_CRON: "off",
          REFRESH_ON_START: "false",
          LOG_LEVEL: "warn",
        },
        120_000,
      );
      // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field.
      const getJson = async (pathAndQuery: string): Promise<{ status: number; body: any }> => {
        const response = await fetch(`${started?.baseUrl}${pathAndQuery}`);
        return { status: response.status, body: await response.json() };
      };
      const health = await getJson("/api/health");
      expect(health.status).toBe(200);
      expect(health.body.data.search).toEqual({
        engine: "embedded",
        state: "building",
        lag: null,
        fallback: null,
        build: { done: partial?.done, total: COUNT - countUnlisted(dataDir) },
      });
      const search = await getJson("/api/registry/search?q=boulangerie&limit=50");
      expect(search.status).toBe(200);
      expect(search.body.retrieval_degraded).toBe("index_building");
      const found = (search.body.results as { merchant: { ab_id: string } }[]).map((result) => result.merchant.ab_id);
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((abId) => indexed.has(abId))).toBe(true);
      // An identifier the build has not reached is found all the same: from the store.
      const byId = await getJson(`/api/registry/search?q=${notYet.toUpperCase()}`);
      expect(byId.body.results.map((result: { merchant: { ab_id: string } }) => result.merchant.ab_id)).toEqual([
        notYet,
      ]);
      expect(byId.body.retrieval_degraded).toBeUndefined();
      expect((await getJson(`/api/registry/resolve/${notYet}`)).status).toBe(200);
      const document = await fetch(`${started?.baseUrl}/m/${notYet}/ai.md`);
      expect(document.status).toBe(200);
    } finally {
      catalog.$client.exec("ROLLBACK");
      catalog.$client.close();
    }
    // Let go, the server's follower finishes the build: the whole registry, unflagged.
    await waitFor(
      async () => {
        const response = await fetch(`${started?.baseUrl}/api/health`);
        const body = (await response.json()) as { data: { search: { state: string } } };
        return body.data.search.state === "ready" ? true : undefined;
      },
      60_000,
      "the index built",
    );
    const after = await fetch(
      `${started?.baseUrl}/api/registry/search?q=${encodeURIComponent("boulangerie")}&limit=50`,
    );
    const body = (await after.json()) as { retrieval_degraded?: string; results: unknown[] };
    expect(body.retrieval_degraded).toBeUndefined();
    const [whole] = catalogRows(dataDir);
    expect(whole).toMatchObject({ id: partial?.id, state: "current" });
    expect(indexedIds(dataDir, partial?.id ?? 0)).toEqual(listed);
  }, 240_000);
});

/** Merchants of a listed status: the build's total. */
function countUnlisted(dataDir: string): number {
  const db = openDatabase(path.join(dataDir, "abeille.db"), { readonly: true });
  try {
    return db.$client.prepare(`SELECT count(*) FROM merchants WHERE status NOT IN ${LISTED}`).pluck().get() as number;
  } finally {
    db.$client.close();
  }
}
