/**
 * How writers take the database's write lock (src/store/write-lock.ts): what SQLite does to a
 * DEFERRED transaction that reads then writes beside another writer, why every write transaction
 * is begun IMMEDIATE (and a check that every transaction in src/ and jobs/ is), and how a thread
 * that serves requests waits for the lock without sleeping.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import type { SearchQuery } from "../../src/search/search-index.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { isBusy, LOCK_TAKEN, writeLock } from "../../src/store/write-lock.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

const root = path.resolve(import.meta.dirname, "../..");
let dataDir: string;
let file: string;
let db: Db;
let other: Db;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-write-lock-"));
  file = path.join(dataDir, "abeille.db");
  db = openDatabase(file);
  db.$client.exec("CREATE TABLE probe (name TEXT PRIMARY KEY)");
  // Another process's connection, which never waits: what it can do says who holds the lock.
  other = openDatabase(file, { busyTimeoutMs: 0 });
});

afterEach(() => {
  other.$client.close();
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const names = (connection: Db = db) => connection.$client.prepare("SELECT name FROM probe ORDER BY name").pluck().all();
/** Another process writes now: "committed", or SQLite's code when it cannot. */
function otherWrites(name: string): string {
  try {
    other.$client.prepare("INSERT INTO probe (name) VALUES (?)").run(name);
    return "committed";
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe("a transaction that reads, then writes, beside another writer", () => {
  it("fails at its first write when begun DEFERRED and another connection committed since its read, whatever the busy timeout", () => {
    const readThenWrite = db.$client.transaction(() => {
      names();
      expect(otherWrites("between")).toBe("committed");
      db.$client.prepare("INSERT INTO probe (name) VALUES ('mine')").run();
    });
    expect(() => readThenWrite.deferred()).toThrowError(expect.objectContaining({ code: "SQLITE_BUSY_SNAPSHOT" }));
    expect(names()).toEqual(["between"]);
  });

  it("holds the write lock from its start when begun IMMEDIATE: the other writer waits, and nothing fails", () => {
    const readThenWrite = db.$client.transaction(() => {
      names();
      expect(otherWrites("between")).toBe("SQLITE_BUSY");
      db.$client.prepare("INSERT INTO probe (name) VALUES ('mine')").run();
    });
    readThenWrite.immediate();
    expect(otherWrites("after")).toBe("committed");
    expect(names()).toEqual(["after", "mine"]);
  });

  it("is never the embedded index's: another process writes the store while the index builds and refreshes", async () => {
    insertFixtureMerchants(db, fixtureMerchants);
    const attempts: string[] = [];
    let calls = 0;
    const index = createEmbeddedSearchIndex(db, {
      // Called while a build's page or a refresh reads the store, before it writes the index.
      now: () => {
        calls += 1;
        attempts.push(otherWrites(`during-${calls}`));
        return new Date("2026-06-01T00:00:00.000Z");
      },
    });
    await index.rebuild();
    expect(attempts.length).toBeGreaterThan(0);
    expect(new Set(attempts)).toEqual(new Set(["committed"]));
    attempts.length = 0;
    db.$client
      .prepare("UPDATE merchants SET business_name = 'Boulangerie Renommée' WHERE ab_id = ?")
      .run(FIXTURE.bakeryTrusted);
    await index.refresh([FIXTURE.bakeryTrusted]);
    expect(attempts).toEqual(["committed"]);
    const query: SearchQuery = { text: "renommee", tags: [], near: null, limit: 5 };
    expect(index.search(query).hits.map((hit) => hit.abId)).toEqual([FIXTURE.bakeryTrusted]);
    index.close();
  });
});

describe("writeLock", () => {
  it("runs the work in one IMMEDIATE transaction when the lock is free", () => {
    const lock = writeLock(db.$client);
    const answer = lock.tryNow(() => {
      db.$client.prepare("INSERT INTO probe (name) VALUES ('a')").run();
      expect(otherWrites("b")).toBe("SQLITE_BUSY");
      return "done";
    });
    expect(answer).toBe("done");
    expect(names()).toEqual(["a"]);
  });

  it("answers LOCK_TAKEN at once, with nothing run, while another connection holds the lock, and keeps the busy timeout", () => {
    const lock = writeLock(db.$client);
    expect(lock.busyTimeoutMs).toBe(5_000);
    other.$client.exec("BEGIN IMMEDIATE");
    let ran = false;
    const started = performance.now();
    const answer = lock.tryNow(() => {
      ran = true;
    });
    const waited = performance.now() - started;
    other.$client.exec("ROLLBACK");
    expect(answer).toBe(LOCK_TAKEN);
    expect(ran).toBe(false);
    expect(waited).toBeLessThan(1_000);
    expect(db.$client.pragma("busy_timeout", { simple: true })).toBe(5_000);
  });

  it("rolls back and rethrows what the work throws", () => {
    const lock = writeLock(db.$client);
    expect(() =>
      lock.tryNow(() => {
        db.$client.prepare("INSERT INTO probe (name) VALUES ('a')").run();
        throw new Error("refused");
      }),
    ).toThrowError("refused");
    expect(names()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
  });

  it("runs inside a transaction already open as a savepoint of it", () => {
    const lock = writeLock(db.$client);
    db.$client
      .transaction(() => {
        expect(lock.tryNow(() => db.$client.prepare("INSERT INTO probe (name) VALUES ('a')").run().changes)).toBe(1);
      })
      .immediate();
    expect(names()).toEqual(["a"]);
  });

  it("waits for the lock on later turns of the event loop, the thread free meanwhile, then runs once", async () => {
    const lock = writeLock(db.$client);
    other.$client.exec("BEGIN IMMEDIATE");
    other.$client.prepare("INSERT INTO probe (name) VALUES ('first')").run();
    // The other connection lets go only after this thread's timer has run five times: the write
    // can end only if it left the thread free while it waited (on a loaded machine too).
    let turns = 0;
    const ticking = setInterval(() => {
      turns += 1;
      if (turns === 5) other.$client.exec("COMMIT");
    }, 5);
    let runs = 0;
    const seen = await lock.whenFree(() => {
      runs += 1;
      db.$client.prepare("INSERT INTO probe (name) VALUES ('second')").run();
      return names();
    });
    clearInterval(ticking);
    expect(runs).toBe(1);
    expect(seen).toEqual(["first", "second"]);
    // The timer ran while the write waited: nothing slept on this thread.
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(other.$client.inTransaction).toBe(false);
  });

  it("past its patience, tries once more as SQLite does and throws SQLITE_BUSY when the lock never frees", async () => {
    const impatient = openDatabase(file, { busyTimeoutMs: 50 });
    try {
      const lock = writeLock(impatient.$client);
      other.$client.exec("BEGIN IMMEDIATE");
      const failure = await lock.whenFree(() => "never", 100).catch((error: unknown) => error);
      other.$client.exec("ROLLBACK");
      expect(isBusy(failure)).toBe(true);
      expect((failure as { code: string }).code).toBe("SQLITE_BUSY");
    } finally {
      impatient.$client.close();
    }
  });
});

/**
 * Every `.transaction(` of src/ and jobs/ begins IMMEDIATE: called with `.immediate(` where it
 * is made, or bound to a name only ever called with `.immediate(`. The exceptions (by file and the
 * name the transaction is bound to, or the function it is made in) only read, or run inside a
 * transaction already begun IMMEDIATE (a savepoint), and say so here.
 */
const NOT_WRITE_TRANSACTIONS: Record<string, string> = {
  "src/publish/publisher.ts:readTransactionOf": "reads one snapshot of the store for a batch of profiles",
  "src/store/publish-source.ts:touchedSince": "reads the touched merchants and the revision in one snapshot",
  "src/search/source.ts:inOneRead": "reads documents, or the whole registry, and the revision in one snapshot",
  "src/store/group-commit.ts:inSavepoint": "each piece of work: a savepoint inside the group's IMMEDIATE transaction",
  "src/store/pack-index.ts:readerOn": "the server reads the packs' index (its own file) in one snapshot",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

/** The index just past the parenthesis that closes the one at `open`, skipping strings and comments. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    const char = text[at];
    if (char === "/" && text[at + 1] === "/") at = text.indexOf("\n", at);
    else if (char === "/" && text[at + 1] === "*") at = text.indexOf("*/", at) + 1;
    else if (char === '"' || char === "'" || char === "`") {
      for (at++; at < text.length && text[at] !== char; at++) if (text[at] === "\\") at++;
    } else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return at + 1;
  }
  throw new Error("unbalanced parentheses");
}

describe("the rule in the sources", () => {
  it("begins every transaction of src/ and jobs/ IMMEDIATE, but those that only read or are savepoints", () => {
    const checked: string[] = [];
    const offending: string[] = [];
    for (const full of [...sourceFiles(path.join(root, "src")), ...sourceFiles(path.join(root, "jobs"))]) {
      const text = readFileSync(full, "utf8");
      const relative = path.relative(root, full);
      // PostgreSQL's transactions lock rows, not the database: SQLite's rule is not theirs.
      if (relative.startsWith("src/store/postgres/")) continue;
      for (const match of text.matchAll(/\.transaction\(/g)) {
        const at = match.index ?? 0;
        const before = text.slice(text.lastIndexOf("\n", at) + 1, at);
        const bound = /(?:const|let)\s+(\w+)\s*=/.exec(before)?.[1];
        const enclosing = [...text.slice(0, at).matchAll(/function\s+(\w+)/g)].at(-1)?.[1];
        const where = `${relative}:${bound ?? enclosing ?? "?"}`;
        checked.push(where);
        if (/^\s*\.immediate\(/.test(text.slice(closingParen(text, at + match[0].length - 1)))) continue;
        if (where in NOT_WRITE_TRANSACTIONS) continue;
        // Its calls: after it is made (a method of the same name declared earlier is no call).
        const calls = bound
          ? [...text.slice(at).matchAll(new RegExp(`\\b${bound}(\\.\\w+)?\\(`, "g"))].map((call) => call[1])
          : [];
        if (calls.length === 0 || calls.some((call) => call !== ".immediate")) offending.push(where);
      }
    }
    // The scan sees the transactions it checks (a change of style would otherwise pass unseen).
    expect(checked.length).toBeGreaterThanOrEqual(20);
    expect(checked).toEqual(expect.arrayContaining(Object.keys(NOT_WRITE_TRANSACTIONS)));
    expect(checked).toContain("src/search/embedded/index.ts:inGeneration");
    expect(offending).toEqual([]);
  });
});
