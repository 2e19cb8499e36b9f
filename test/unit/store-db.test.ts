/**
 * The one query builder of the shared repositories (src/store/store-db.ts): the SQL drizzle's
 * SQLite dialect writes, as PostgreSQL reads it, and a transaction's work run at once on SQLite,
 * rolled back whole when a statement fails. (The repositories' contract on both engines:
 * store-engines-small-ports.test.ts.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { eq } from "../../src/store/drizzle.ts";
import { postgresText } from "../../src/store/postgres/store-db.ts";
import { merchantEvents, settings } from "../../src/store/schema.ts";
import { inTransaction, rows, run } from "../../src/store/store-db.ts";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-store-db-"));
const sqliteDb = openDatabase(path.join(dataDir, "statements.db"));
afterAll(() => {
  sqliteDb.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("postgresText", () => {
  it("numbers the parameters in order, leaves quoted ones alone, and unqualifies an ON CONFLICT target", () => {
    expect(postgresText(`select "a" from "t" where "t"."a" = ? and "b" <> '?' and "c?" = ? limit ?`)).toBe(
      `select "a" from "t" where "t"."a" = $1 and "b" <> '?' and "c?" = $2 limit $3`,
    );
    expect(
      postgresText(
        `insert into "settings" ("key", "value") values (?, ?) on conflict ("settings"."key") do update set "value" = ?`,
      ),
    ).toBe(`insert into "settings" ("key", "value") values ($1, $2) on conflict ("key") do update set "value" = $3`);
    expect(postgresText(`insert into "t" ("a") values (?) on conflict ("t"."a", "t"."b") do nothing`)).toBe(
      `insert into "t" ("a") values ($1) on conflict ("a", "b") do nothing`,
    );
  });

  it("writes DEFAULT for a rowid an insert leaves out, and PostgreSQL's expression for a SQLite SQL default", () => {
    const events = sqliteDb.insert(merchantEvents).values({
      abId: "ab_1",
      at: "t",
      actor: "a",
      action: "x",
      changes: "{}",
      reason: null,
      revision: 1,
    });
    expect(postgresText(events.toSQL().sql)).toBe(
      `insert into "merchant_events" ("event_id", "ab_id", "at", "actor", "action", "changes", "reason", "revision") values (default, $1, $2, $3, $4, $5, $6, $7)`,
    );
    const setting = sqliteDb.insert(settings).values({ key: "k", value: "v" });
    expect(postgresText(setting.toSQL().sql)).toBe(
      `insert into "settings" ("key", "value", "updated_at") values ($1, $2, (to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`,
    );
  });
});

describe("inTransaction on SQLite", () => {
  const open = (): Db => openDatabase(path.join(dataDir, `store-${Math.random().toString(36).slice(2)}.db`));
  const at = "2026-12-08T00:00:00.000Z";

  it("runs the work's statements in one IMMEDIATE transaction and answers what it returns", async () => {
    const db = open();
    const answer = await inTransaction(db, function* (tx) {
      yield* run(tx.insert(settings).values({ key: "a", value: "1", updatedAt: at }));
      return yield* rows(tx.select({ value: settings.value }).from(settings).where(eq(settings.key, "a")));
    });
    expect(answer).toEqual([{ value: "1" }]);
    db.$client.close();
  });

  it("keeps nothing of the work when one of its statements fails", async () => {
    const db = open();
    await expect(
      inTransaction(db, function* (tx) {
        yield* run(tx.insert(settings).values({ key: "b", value: "1", updatedAt: at }));
        yield* run(tx.insert(settings).values({ key: "b", value: "2", updatedAt: at }));
      }),
    ).rejects.toThrow(/UNIQUE constraint failed: settings.key/);
    expect(db.select().from(settings).all()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
    db.$client.close();
  });

  it("refuses a statement that answers a Promise: nothing may wait inside better-sqlite3's transaction", async () => {
    const db = open();
    await expect(
      inTransaction(db, function* () {
        yield () => Promise.resolve();
      }),
    ).rejects.toThrow("a statement of a SQLite transaction answered a Promise");
    db.$client.close();
  });
});
