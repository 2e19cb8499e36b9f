import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { groupCommit } from "../../src/store/group-commit.ts";

let dataDir: string;
let db: Db;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-group-commit-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  db.$client.exec("CREATE TABLE probe (name TEXT PRIMARY KEY)");
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const names = () => db.$client.prepare("SELECT name FROM probe ORDER BY name").pluck().all();

describe("group commit", () => {
  it("runs the writes asked for in one turn in one transaction, each seeing the ones before it", async () => {
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    const count = (connection: Db) => connection.$client.prepare("SELECT count(*) FROM probe").pluck().get();
    const seen: unknown[] = [];
    const seenByOther: unknown[] = [];
    const insert = groupCommit(db.$client, (name: string) => {
      seen.push(count(db));
      seenByOther.push(count(other));
      db.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name);
      return name.toUpperCase();
    });
    try {
      const answers = await Promise.all(["a", "b", "c"].map(insert));
      expect(answers).toEqual(["A", "B", "C"]);
      expect(seen).toEqual([0, 1, 2]);
      // Nothing was committed before the group's one commit.
      expect(seenByOther).toEqual([0, 0, 0]);
      expect(count(other)).toBe(3);
    } finally {
      other.$client.close();
    }
  });

  it("rolls back a failing write alone: the others of its group are committed", async () => {
    const insert = groupCommit(db.$client, (name: string) => {
      db.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name);
      if (name === "bad") throw new Error("refused");
      return name;
    });
    const results = await Promise.allSettled(["a", "bad", "c"].map(insert));
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(names()).toEqual(["a", "c"]);
  });

  it("acknowledges nothing when the commit itself fails", async () => {
    db.$client.pragma("busy_timeout = 50");
    const insert = groupCommit(db.$client, (name: string) =>
      db.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name),
    );
    // Another connection holds the write lock past the busy timeout: the group cannot begin.
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    other.$client.exec("BEGIN IMMEDIATE");
    try {
      const results = await Promise.allSettled(["a", "b"].map(insert));
      expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    } finally {
      other.$client.exec("ROLLBACK");
      other.$client.close();
    }
    expect(names()).toEqual([]);
  });

  it("waits for a write lock held elsewhere without blocking the event loop, then commits", async () => {
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    const insert = groupCommit(db.$client, (name: string) => {
      db.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name);
      return name;
    });
    try {
      other.$client.exec("BEGIN IMMEDIATE");
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 5);
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          other.$client.exec("COMMIT");
          resolve();
        }, 120),
      );
      const started = performance.now();
      const answer = await insert("held");
      const waited = performance.now() - started;
      clearInterval(ticking);
      await released;
      expect(answer).toBe("held");
      expect(names()).toEqual(["held"]);
      // Committed once released: SQLite's busy handler would have slept on this thread through the
      // release (5 s, then SQLITE_BUSY), and timers kept firing meanwhile.
      expect(waited).toBeGreaterThanOrEqual(100);
      expect(waited).toBeLessThan(2000);
      expect(ticks).toBeGreaterThanOrEqual(3);
    } finally {
      other.$client.close();
    }
  });

  it("fails the group once the lock stays taken past the busy timeout", async () => {
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    db.$client.pragma("busy_timeout = 150");
    const insert = groupCommit(db.$client, (name: string) => {
      db.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name);
      return name;
    });
    try {
      other.$client.exec("BEGIN IMMEDIATE");
      await expect(insert("never")).rejects.toMatchObject({ code: "SQLITE_BUSY" });
      other.$client.exec("ROLLBACK");
      expect(names()).toEqual([]);
      expect(db.$client.pragma("busy_timeout", { simple: true })).toBe(150);
    } finally {
      other.$client.close();
    }
  });
});
