/**
 * No acknowledged lead is lost when the server dies: the server runs as a child process (as
 * `npm start` runs it), a burst of lead POSTs is fired, the process is SIGKILLed mid-burst, and
 * every lead that was answered 201 must be in the database with its outbox row.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnStart } from "../helpers/spawn-start.ts";

let child: ChildProcess;
let baseUrl: string;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-crash-"));

beforeAll(async () => {
  const started = await spawnStart({
    DATA_DIR: dataDir,
    DEMO_SEED_COUNT: "60",
    RATE_LIMIT_ANON_HOURLY: "1000000",
    LOG_LEVEL: "warn",
  });
  child = started.child;
  baseUrl = started.baseUrl;
}, 120_000);

afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a server killed during a burst of leads", () => {
  it("loses none of the leads it acknowledged", async () => {
    const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
    const merchants: string[] = roster.cases.active_contactable.slice(0, 5);
    const acknowledged: string[] = [];
    let sent = 0;
    let killed = false;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

    const client = async (clientIndex: number) => {
      while (!killed) {
        const index = sent++;
        try {
          const response = await fetch(`${baseUrl}/api/contact/brick`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              ab_id: merchants[index % merchants.length],
              contact_name: `Client ${index}`,
              contact_email: `burst.${clientIndex}.${index}@example.fr`,
              lead_type: "quote",
              message: "Demande envoyée pendant la rafale.",
            }),
          });
          const body = (await response.json()) as { lead_id?: string };
          if (response.status === 201 && body.lead_id) acknowledged.push(body.lead_id);
        } catch {
          // the server died under this request: it was never acknowledged
        }
      }
    };
    const clients = Array.from({ length: 16 }, (_, index) => client(index));
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill("SIGKILL");
    killed = true;
    await Promise.all(clients);
    await exited;
    expect(child.signalCode).toBe("SIGKILL");

    const db = new Database(path.join(dataDir, "abeille.db"));
    const leadExists = db.prepare("SELECT count(*) FROM leads WHERE lead_id = ?").pluck();
    const outboxRow = db
      .prepare("SELECT count(*) FROM outbox WHERE subject_id = ? AND kind = 'lead_notification'")
      .pluck();
    const missing = acknowledged.filter((leadId) => leadExists.get(leadId) !== 1 || outboxRow.get(leadId) !== 1);
    const stored = db.prepare("SELECT count(*) FROM leads").pluck().get() as number;
    db.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    expect(missing).toEqual([]);
    expect(stored).toBeGreaterThanOrEqual(acknowledged.length);
    process.stdout.write(
      `crash test: ${sent} sent, ${acknowledged.length} acknowledged with 201, ${stored} stored, 0 lost\n`,
    );
  }, 60_000);
});
