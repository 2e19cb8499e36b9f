/**
 * Issue 23, item 6: a run after an interrupted one repairs the search index. `npm run import --
 * sirene` killed in its middle (no server runs: nothing else follows the change feed) leaves the
 * merchants it wrote in the store and the feed, not in the index, and `npm run search -- status`
 * says how far behind the index is; the same file again finds them unchanged, and still brings
 * every one of them into the index, with no lag left.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { openDatabase } from "../../src/store/db.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";
import { runJob } from "../helpers/run-job.ts";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-import-interrupted-"));
const LISTED = new Set(["ACTIVE", "PROBATION", "PAUSED"]);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** A job in its own process on DATA_DIR; `onSpawn` gets the process as it starts (to stop it midway). */
const job = (args: string[], hooks: { onSpawn?: (child: ChildProcess) => void } = {}) =>
  runJob(args, { dataDir, baseUrl: "http://abeille.test", ...hooks });

const importStock = (file: string, hooks: { onSpawn?: (child: ChildProcess) => void } = {}) =>
  job(
    ["jobs/import.ts", "sirene", "--etablissements", file, "--unites-legales", legalUnitsFileOf(file), "--json"],
    hooks,
  );

async function searchStatus(): Promise<{
  engine: string;
  state: string;
  lag: { merchants: number; revisions: number } | null;
  fallback: string | null;
}> {
  const run = await job(["jobs/search.ts", "status"]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

function merchants(): { abId: string; siret: string; status: string }[] {
  const db = openDatabase(path.join(dataDir, "abeille.db"), { readonly: true });
  try {
    return db.$client.prepare("SELECT ab_id AS abId, siret, status FROM merchants ORDER BY ab_id").all() as ReturnType<
      typeof merchants
    >;
  } finally {
    db.$client.close();
  }
}

describe("an import run again after it was killed", () => {
  it("repairs the search index: every merchant the killed run wrote is found by SIRET and ab_id, none is left behind", async () => {
    // A first, whole run: the index is built and in step.
    const first = writeStockFile(path.join(dataDir, "first.csv"), 1_000);
    const whole = await importStock(path.join(dataDir, "first.csv"));
    expect(whole.code).toBe(0);
    expect(await searchStatus()).toMatchObject({ state: "ready", lag: { merchants: 0, revisions: 0 } });
    // Every generated row of a covered trade came in (and the real rows of a covered trade, if any).
    const afterFirst = merchants().length;
    expect(merchants().filter((merchant) => first.expected.has(merchant.siret)).length).toBe(first.expected.size);

    // The same rows and many more, killed once the store holds 500 merchants of this run (it
    // writes 250 rows a transaction; about 6,000 of the 30,000 rows become merchants).
    const file = path.join(dataDir, "StockEtablissement_utf8.csv");
    const stock = writeStockFile(file, 30_000);
    const killed = await importStock(file, {
      onSpawn: (child) => {
        const watching = setInterval(() => {
          if (merchants().length - afterFirst < 500) return;
          clearInterval(watching);
          child.kill("SIGKILL");
        }, 20);
        child.once("exit", () => clearInterval(watching));
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(killed.stdout).toBe("");
    const written = merchants().length - afterFirst;
    expect(written).toBeGreaterThan(0);
    expect(afterFirst + written).toBeLessThan(stock.expected.size);
    // What it wrote is in the store and the feed, not in the index: the status says so.
    const behind = await searchStatus();
    expect(behind.state).toBe("catching_up");
    expect(behind.lag?.merchants).toBe(written);

    // The same file again: what the killed run wrote is unchanged, and searchable all the same.
    const again = await importStock(file);
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.unchanged).toBe(afterFirst + written);
    expect(report.created).toBe(merchants().length - afterFirst - written);
    expect(await searchStatus()).toMatchObject({ state: "ready", lag: { merchants: 0, revisions: 0 } });

    const db = openDatabase(path.join(dataDir, "abeille.db"), { readonly: true });
    try {
      const index = createEmbeddedSearchIndex(db);
      const search = (text: string) =>
        index
          .search({ text, tags: [], near: null, limit: 5 })
          .hits.map((hit) => hit.abId)
          .join();
      const listed = merchants().filter((merchant) => LISTED.has(merchant.status));
      expect(listed.length).toBe(report.unchanged + report.created);
      expect(listed.filter((merchant) => stock.expected.has(merchant.siret)).length).toBe(stock.expected.size);
      const missing = listed.filter(
        (merchant) => search(merchant.siret) !== merchant.abId || search(merchant.abId) !== merchant.abId,
      );
      expect(missing).toEqual([]);
    } finally {
      db.$client.close();
    }
  }, 180_000);

  it("is left by npm start to the server's follower when it has no whole generation (an earlier version's), and built by a sync", async () => {
    const catalog = openDatabase(path.join(dataDir, "search-index", "catalog.db"));
    try {
      catalog.$client.prepare("UPDATE generations SET format = 'embedded-13/an-earlier-version'").run();
    } finally {
      catalog.$client.close();
    }
    expect(await searchStatus()).toEqual({ engine: "embedded", state: "not_built", lag: null, fallback: null });
    // What `npm start`'s primary runs before it forks the server processes (jobs/start.ts): at
    // national size a build takes minutes, which the server's follower spends serving.
    const starting = await job(["jobs/seed.ts", "--if-empty"]);
    expect(starting.code).toBe(0);
    expect(starting.stderr).toContain("the search index is built by the server while it serves");
    expect(await searchStatus()).toEqual({ engine: "embedded", state: "not_built", lag: null, fallback: null });
    const sync = await job(["jobs/search.ts", "sync"]);
    expect(sync.code).toBe(0);
    expect(await searchStatus()).toEqual({
      engine: "embedded",
      state: "ready",
      lag: { merchants: 0, revisions: 0 },
      fallback: null,
    });
  }, 60_000);
});
