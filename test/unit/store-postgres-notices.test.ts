/**
 * Notices from the database (src/store/postgres/notices.ts and migration 0002_revision_notices),
 * on a real PostgreSQL: a transaction that moves the store revision sends one notice on
 * abeille_revision when it commits, however many rows it wrote, and none when it rolls back; a
 * listener whose connection the server ends says it stopped listening, listens again by itself,
 * and receives what is sent afterwards; a restart of PostgreSQL likewise.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForNotices, type NoticeListener } from "../../src/store/postgres/notices.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { until } from "../helpers/wait-for.ts";

const RETRY_MS = 100;
let server: TestPostgres;
let url: string;
let admin: pg.Client;
const listeners: NoticeListener[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.stop()));
  await admin?.end().catch(() => undefined);
  await server?.stop();
});

function listen(name: string) {
  const notices: string[] = [];
  const states: boolean[] = [];
  const listener = listenForNotices({
    url,
    channels: ["abeille_revision"],
    retryMs: RETRY_MS,
    applicationName: `notices-test-${name}`,
    onNotice: (channel, payload) => notices.push(`${channel}:${payload}`),
    onListening: (listening) => states.push(listening),
  });
  listeners.push(listener);
  return { listener, notices, states };
}

/** Waits long enough for a notice that would come (several heartbeats). */
const quietly = () => new Promise((resolve) => setTimeout(resolve, RETRY_MS * 5));

describe("notices of the store's revision", () => {
  it("one notice per committed transaction that moves the revision, none for a rolled-back one", async () => {
    const { listener, notices, states } = listen("commit");
    await until(() => listener.listening());
    expect(states).toEqual([true]);

    await admin.query("BEGIN");
    for (let write = 0; write < 3; write++) {
      await admin.query(`UPDATE store_revision SET revision = revision + 1 WHERE id = 1`);
    }
    await admin.query("COMMIT");
    await until(() => notices.length === 1);
    await admin.query("BEGIN");
    await admin.query(`UPDATE store_revision SET revision = revision + 1 WHERE id = 1`);
    await admin.query("ROLLBACK");
    await quietly();
    expect(notices).toEqual(["abeille_revision:"]);
  });

  it("says it stopped listening when the server ends its connection, listens again, and hears what follows", async () => {
    const { listener, notices, states } = listen("terminated");
    await until(() => listener.listening());
    const ended = await admin.query<{ ended: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'notices-test-terminated'",
    );
    expect(ended.rows.map((row) => row.ended)).toEqual([true]);
    await until(() => states.length === 3);
    expect(states).toEqual([true, false, true]);
    await admin.query(`UPDATE store_revision SET revision = revision + 1 WHERE id = 1`);
    await until(() => notices.length === 1);
    expect(notices).toEqual(["abeille_revision:"]);
  });

  it("listens again after a restart of PostgreSQL, without being restarted itself", async () => {
    const { listener, notices, states } = listen("restart");
    await until(() => listener.listening());
    await admin.end();
    await server.pause();
    await until(() => !listener.listening());
    await server.resume();
    await until(() => listener.listening());
    expect(states).toEqual([true, false, true]);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`UPDATE store_revision SET revision = revision + 1 WHERE id = 1`);
    await until(() => notices.length === 1);
  }, 60_000);

  it("refuses a channel name it would have to quote", () => {
    expect(() => listenForNotices({ url, channels: ["Abeille-Revision"], onNotice: () => undefined })).toThrow(
      "notice channel Abeille-Revision must match",
    );
  });
});
