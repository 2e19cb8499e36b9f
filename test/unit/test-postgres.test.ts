/**
 * The tests' throwaway PostgreSQL (test/helpers/postgres.ts): a database per caller, migrated
 * from a template or empty; stop() ends the server and removes its folder; and a test process
 * killed outright (SIGKILL: no afterAll, no exit handler) leaves no postgres running and no folder.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sqliteTables } from "../../src/store/postgres/derive-schema.ts";
import { POSTGRES_ONLY_TABLES } from "../helpers/migration-files.ts";
import { startTestPostgres } from "../helpers/postgres.ts";

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  return condition();
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

const TABLES = "SELECT count(*)::int AS tables FROM information_schema.tables WHERE table_schema = 'public'";

describe("the tests' PostgreSQL", () => {
  it("gives each caller its own migrated or empty database, and stop() removes everything", async () => {
    const server = await startTestPostgres();
    try {
      expect(server.url("x")).toBe(`postgres://postgres@127.0.0.1:${server.port}/x`);
      const [first, second] = [await server.createDatabase(), await server.createDatabase()];
      const empty = await server.createEmptyDatabase();
      expect(new Set([first, second, empty]).size).toBe(3);
      expect(await query(first, TABLES)).toEqual([{ tables: sqliteTables().length + 1 + POSTGRES_ONLY_TABLES.length }]);
      expect(await query(empty, TABLES)).toEqual([{ tables: 0 }]);
      await query(first, "INSERT INTO settings (key, value) VALUES ('kill_switch', 'on')");
      expect(await query(first, "SELECT value FROM settings")).toEqual([{ value: "on" }]);
      expect(await query(second, "SELECT value FROM settings")).toEqual([]);
      // Runs as an unprivileged user: root cannot run initdb.
      const [owner] = await query<{ user: string }>(server.url("postgres"), "SELECT current_user AS user");
      expect(owner).toEqual({ user: "postgres" });
      expect(running(server.pid)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(running(server.pid)).toBe(false);
    expect(existsSync(server.folder)).toBe(false);
  });

  it("pauses and resumes: gone in between, back on the same port with the same data", async () => {
    const server = await startTestPostgres();
    try {
      const url = await server.createDatabase();
      await query(url, "INSERT INTO settings (key, value) VALUES ('kept', 'yes')");
      const before = server.pid;
      await server.pause();
      expect(running(before)).toBe(false);
      await expect(query(url, "SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
      expect(existsSync(server.folder)).toBe(true);
      await server.resume();
      expect(server.pid).not.toBe(before);
      expect(running(server.pid)).toBe(true);
      expect(await query(url, "SELECT value FROM settings WHERE key = 'kept'")).toEqual([{ value: "yes" }]);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.folder)).toBe(false);
  });

  it("stop() waits for the folder to be gone, even when nothing else keeps the process running", async () => {
    const helper = path.resolve("test/helpers/postgres.ts");
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { existsSync } from "node:fs";
           import { startTestPostgres } from ${JSON.stringify(helper)};
           const server = await startTestPostgres();
           await server.stop();
           console.log(JSON.stringify({ stopped: true, folderLeft: existsSync(server.folder) }));`,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let text = "";
      child.stdout?.on("data", (data: Buffer) => {
        text += data.toString();
      });
      child.stderr?.on("data", (data: Buffer) => {
        text += data.toString();
      });
      child.once("error", reject);
      child.once("exit", () => resolve(text.trim()));
    });
    expect(output).toBe('{"stopped":true,"folderLeft":false}');
  });

  it("leaves no postgres and no folder behind when the test process is killed", async () => {
    const helper = path.resolve("test/helpers/postgres.ts");
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { startTestPostgres } from ${JSON.stringify(helper)};
         const server = await startTestPostgres();
         console.log(JSON.stringify({ pid: server.pid, folder: server.folder }));
         setInterval(() => {}, 60_000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const started = await new Promise<{ pid: number; folder: string }>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (data: Buffer) => {
        output += data.toString();
        if (output.includes("\n")) resolve(JSON.parse(output) as { pid: number; folder: string });
      });
      child.once("exit", (code) => reject(new Error(`the test process exited with ${code} before PostgreSQL started`)));
    });
    expect(running(started.pid)).toBe(true);
    expect(existsSync(started.folder)).toBe(true);
    child.kill("SIGKILL");
    expect(await until(() => !running(started.pid), 10_000)).toBe(true);
    expect(await until(() => !existsSync(started.folder), 10_000)).toBe(true);
  });
});
