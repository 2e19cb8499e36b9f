/**
 * Who checkpoints the WAL: under `npm start` the primary does (src/store/wal-checkpoints.ts), so
 * the server processes' connections checkpoint only past a backstop of 10,000 pages; anywhere
 * else SQLite's automatic checkpoint after 1,000 pages stays.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { startWalCheckpoints } from "../../src/store/wal-checkpoints.ts";

let dataDir: string;
let file: string;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-wal-"));
  file = path.join(dataDir, "abeille.db");
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** 1,200 commits of one new 4 KB page each: past SQLite's automatic checkpoint (1,000 pages). */
function writePages(db: ReturnType<typeof openDatabase>): void {
  const sqlite = db.$client;
  sqlite.exec("CREATE TABLE IF NOT EXISTS filler (body BLOB NOT NULL)");
  const insert = sqlite.prepare("INSERT INTO filler (body) VALUES (zeroblob(4000))");
  for (let i = 0; i < 1_200; i++) insert.run();
}

const databaseBytes = () => statSync(file).size;
const walBytes = () => statSync(`${file}-wal`).size;

describe("WAL checkpoints", () => {
  it("are SQLite's own by default: the database file takes the pages past 1,000 in the WAL", () => {
    const db = openDatabase(file);
    const before = databaseBytes();
    writePages(db);
    expect(databaseBytes() - before).toBeGreaterThanOrEqual(1_000 * 4096);
    db.$client.close();
  });

  it("are left to the primary by a server process's connection: 1,200 pages stay in the WAL", () => {
    const db = openDatabase(file, { checkpoints: "primary" });
    const before = databaseBytes();
    writePages(db);
    expect(databaseBytes()).toBe(before);
    expect(walBytes()).toBeGreaterThanOrEqual(1_200 * 4096);
    db.$client.close();
  });

  it("are run by the primary within its interval, on its own connection", async () => {
    const db = openDatabase(file, { checkpoints: "primary" });
    const failures: Error[] = [];
    const checkpoints = startWalCheckpoints(file, (error) => failures.push(error), 20);
    try {
      const before = databaseBytes();
      writePages(db);
      const deadline = Date.now() + 15_000;
      while (databaseBytes() - before < 1_200 * 4096 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(databaseBytes() - before).toBeGreaterThanOrEqual(1_200 * 4096);
      expect(failures).toEqual([]);
    } finally {
      checkpoints.stop();
      db.$client.close();
    }
  });
});
