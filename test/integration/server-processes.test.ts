import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardCodeKey } from "../../src/publish/code-key.ts";
import { childPids, type StartedProcess, spawnStart } from "../helpers/spawn-start.ts";
import { waitFor } from "../helpers/wait-for.ts";

/**
 * `npm start` with two server processes on one port and one DATA_DIR: limits, delivery and
 * supervision hold for the whole server, whichever process answers.
 */
let started: StartedProcess;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-processes-"));

beforeAll(async () => {
  started = await spawnStart({
    DATA_DIR: dataDir,
    DEMO_SEED_COUNT: "60",
    SERVER_PROCESSES: "2",
    RATE_LIMIT_ANON_HOURLY: "12",
    // Far longer than the test: a lead is delivered this quickly only if its commit woke the outbox.
    OUTBOX_POLL_MS: "600000",
    REFRESH_CRON: "off",
    REFRESH_ON_START: "false",
  });
}, 120_000);

afterAll(() => {
  started?.child.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

/** One request on a connection of its own: the primary hands each new connection to the next process. */
function request(
  pathname: string,
  init: { method?: string; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${started.baseUrl}${pathname}`,
      {
        agent: false,
        method: init.method ?? "GET",
        headers: init.body ? { "content-type": "application/json" } : {},
      },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}

describe("the server with two processes", () => {
  it("runs two server processes under one primary", () => {
    expect(childPids(started.child.pid ?? 0)).toHaveLength(2);
  });

  it("keeps every merchant's search result card in the store, from the process that owns the background work", async () => {
    const db = new Database(path.join(dataDir, "abeille.db"), { readonly: true });
    try {
      const merchants = db.prepare("SELECT count(*) FROM merchants").pluck().get();
      const kept = await waitFor(() => {
        const count = db.prepare("SELECT count(*) FROM kept_cards").pluck().get();
        return count === merchants ? count : undefined;
      }, 10_000);
      expect(kept).toBe(60);
      // Built with the code key npm start's primary computed from the sources and handed down.
      expect(db.prepare("SELECT format, revision FROM kept_card_cursors").raw().all()).toEqual([
        [
          cardCodeKey(path.resolve(import.meta.dirname, "../../src")),
          db.prepare("SELECT revision FROM store_revision").pluck().get(),
        ],
      ]);
    } finally {
      db.close();
    }
  });

  it("delivers leads taken by either process at once, through the one outbox thread", async () => {
    const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
    const abId: string = roster.cases.active_contactable[0];
    const outbox = path.join(dataDir, "outbox");
    const emails = () => (existsSync(outbox) ? readdirSync(outbox).filter((name) => name.endsWith(".eml")) : []);
    // One at a time, each delivered before the next: the leads the other process takes (every
    // second one) arrive only if its commits wake the owner's outbox thread.
    const delivered: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await request("/api/contact/brick", {
        method: "POST",
        body: JSON.stringify({
          ab_id: abId,
          contact_name: "Camille Martin",
          contact_email: `camille.${i}@example.fr`,
          lead_type: "quote",
          message: "Bonjour, je souhaite un devis.",
        }),
      });
      expect(answer.status).toBe(201);
      delivered.push(await waitFor(() => (emails().length === i + 1 ? i + 1 : undefined), 3_000));
    }
    expect(delivered).toEqual([1, 2, 3, 4]);
  });

  it("counts one quota for the whole server, whichever process answers", async () => {
    // 4 leads above spent 4 of the 12 anonymous units; every new connection goes to the other process.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await request("/api/registry/search?q=boulangerie")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
  });

  it("replaces a server process that dies, and keeps answering meanwhile", async () => {
    const primary = started.child.pid ?? 0;
    const [victim] = childPids(primary);
    process.kill(victim ?? 0, "SIGKILL");
    // Once the primary has reaped it, the other process takes every connection until the replacement is up.
    await waitFor(() => (childPids(primary).includes(victim ?? 0) ? undefined : true), 5_000);
    const meanwhile = await Promise.all([1, 2, 3].map(() => request("/api/health")));
    expect(meanwhile.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const replaced = await waitFor(() => {
      const now = childPids(primary);
      return now.length === 2 && !now.includes(victim ?? 0) ? now : undefined;
    }, 10_000);
    expect(replaced).toHaveLength(2);
    expect(started.output()).toContain('"message":"server process exited; replacing it"');
  });

  it("stops every process on SIGTERM", async () => {
    const primary = started.child.pid ?? 0;
    const processes = childPids(primary);
    const exited = new Promise<number | null>((resolve) => started.child.once("exit", (code) => resolve(code)));
    started.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (const pid of processes) expect(existsSync(`/proc/${pid}`)).toBe(false);
  });
});
