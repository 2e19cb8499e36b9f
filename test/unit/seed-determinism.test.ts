import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");
const TABLES: [table: string, orderBy: string][] = [
  ["merchants", "ab_id"],
  ["territorial_proofs", "ab_id"],
  ["products", "product_id"],
  ["signals", "ab_id, key"],
  ["qa_clusters", "cluster_id"],
  ["qa_nodes", "node_id"],
];

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

async function seededCopy(count: number, seed: number): Promise<{ db: Db; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-seed-"));
  directories.push(dataDir);
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count, seed, now: NOW, dataDir });
  return { db, dataDir };
}

/** A digest of every row of the registry tables, in primary-key order. */
function registryDigest(db: Db): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const [table, orderBy] of TABLES) {
    const hash = createHash("sha256");
    for (const row of db.$client.prepare(`SELECT * FROM ${table} ORDER BY ${orderBy}`).raw().iterate()) {
      hash.update(JSON.stringify(row));
      hash.update("\n");
    }
    digests[table] = hash.digest("hex");
  }
  return digests;
}

describe("demo seed determinism", () => {
  it("writes byte-identical rows and the same roster for the same seed, count and now", async () => {
    const first = await seededCopy(250, 42);
    const second = await seededCopy(250, 42);
    expect(registryDigest(second.db)).toEqual(registryDigest(first.db));
    const roster = (dir: string) => readFileSync(path.join(dir, "demo-roster.json"), "utf8");
    expect(roster(second.dataDir)).toBe(roster(first.dataDir));
    first.db.$client.close();
    second.db.$client.close();
  });

  it("writes a different registry for a different seed", async () => {
    const first = await seededCopy(60, 1);
    const second = await seededCopy(60, 2);
    const a = registryDigest(first.db);
    const b = registryDigest(second.db);
    for (const [table] of TABLES) expect(b[table], table).not.toBe(a[table]);
    first.db.$client.close();
    second.db.$client.close();
  });

  it("reports the row counts it wrote", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-seed-"));
    directories.push(dataDir);
    const db = openDatabase(path.join(dataDir, "abeille.db"));
    const summary = await seedDemoRegistry(db, { count: 80, seed: 5, now: NOW, dataDir, searchIndex: null });
    const count = (table: string) =>
      (db.$client.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(summary.merchants).toBe(count("merchants"));
    expect(summary.products).toBe(count("products"));
    expect(summary.signals).toBe(count("signals"));
    expect(summary.clusters).toBe(count("qa_clusters"));
    expect(summary.nodes).toBe(count("qa_nodes"));
    expect(summary.searchIndexRebuilt).toBe(false);
    db.$client.close();
  });
});
