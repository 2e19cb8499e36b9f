import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, spawnStart } from "../helpers/spawn-start.ts";

/** The start command as `npm start` runs it after the build: seed an empty DATA_DIR, then serve. */
let started: StartedProcess;
let baseUrl: string;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-e2e-"));

beforeAll(async () => {
  started = await spawnStart({ DATA_DIR: dataDir, DEMO_SEED_COUNT: "120" });
  baseUrl = started.baseUrl;
}, 120_000);

afterAll(() => {
  started?.child.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the start command to its exit: its code and everything it wrote. */
function startUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["jobs/start.ts"], {
      env: { ...process.env, BASE_URL: "http://127.0.0.1:4321", HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("a start that cannot serve", () => {
  it("stops with one line naming PORT when the port is taken", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const address = holder.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const empty = mkdtempSync(path.join(os.tmpdir(), "abeille-busy-"));
    try {
      const { code, output } = await startUntilExit({ PORT: String(port), DATA_DIR: empty });
      expect(code).toBe(1);
      expect(output).toBe(
        `Abeille cannot start: port ${port} on 127.0.0.1 is already in use; stop the program using it or set PORT to a free port (e.g. PORT=${port + 1} npm start).\n`,
      );
      // Nothing was seeded into DATA_DIR: the check comes first.
      expect(existsSync(path.join(empty, "abeille.db"))).toBe(false);
    } finally {
      holder.close();
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it("stops with one line naming MAIL_FROM when it is no address", async () => {
    const { code, output } = await startUntilExit({ PORT: "0", MAIL_FROM: "abeille" });
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toHaveLength(1);
    expect(output).toMatch(/^Abeille cannot start: Invalid configuration: MAIL_FROM: must be an email address/);
  }, 60_000);
});

describe("the built server started like npm start", () => {
  it("says what to try next once it listens", async () => {
    // The primary prints it once every server process listens, maybe after the first answered.
    for (let waited = 0; waited < 10_000 && !started.output().includes("Try next:"); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const output = started.output();
    expect(output).toContain("Try next:");
    expect(output).toMatch(/http:\/\/127\.0\.0\.1:\d+\/ {12}the front door/);
    expect(output).toContain("/llms.txt");
    expect(output).toContain("demo-roster.json    demo merchants by case");
  });

  it("seeds the empty DATA_DIR with the demo registry and its roster", () => {
    expect(existsSync(path.join(dataDir, "abeille.db"))).toBe(true);
    const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
    expect(roster.cases.active_contactable.length).toBeGreaterThan(0);
  });

  it("serves search and resolve over HTTP", async () => {
    const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
    const abId: string = roster.cases.active_contactable[0];
    const resolved = await (await fetch(`${baseUrl}/api/registry/resolve/${abId}`)).json();
    expect(resolved.merchant.ab_id).toBe(abId);
    const search = await fetch(`${baseUrl}/api/registry/search?q=${encodeURIComponent(resolved.merchant.name)}`);
    expect(search.status).toBe(200);
    const body = await search.json();
    expect(body.results.map((result: { merchant: { ab_id: string } }) => result.merchant.ab_id)).toContain(abId);
  });

  it("delivers a lead as a French .eml in DATA_DIR/outbox, through its outbox thread, and marks it delivered", async () => {
    const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
    const response = await fetch(`${baseUrl}/api/contact/brick`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ab_id: roster.cases.active_contactable[0],
        contact_name: "Camille Martin",
        contact_email: "camille.e2e@example.fr",
        lead_type: "quote",
        message: "Bonjour, je souhaite un devis.",
      }),
    });
    expect(response.status).toBe(201);
    const { lead_id: leadId, tracking_token: token } = await response.json();
    const outbox = path.join(dataDir, "outbox");
    const deadline = Date.now() + 15_000;
    let email: string | undefined;
    while (!email && Date.now() < deadline) {
      const file = existsSync(outbox) ? readdirSync(outbox).find((name) => name.endsWith(".eml")) : undefined;
      if (file) email = readFileSync(path.join(outbox, file), "utf8");
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(email?.toLowerCase()).toContain(`x-abeille-lead-id: ${leadId}`);
    expect(email).toMatch(/^Subject: Nouvelle demande /m);
    // The thread writes the email, then records the delivery: on a busy machine the status can
    // still say received when the file is there. Wait for the record, as long as for the file.
    let status = "";
    while (Date.now() < deadline) {
      const lead = await (
        await fetch(`${baseUrl}/api/leads/${leadId}`, { headers: { "x-tracking-token": token } })
      ).json();
      status = lead.data.tracking_status;
      if (status !== "received") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("delivered");
  });

  it("keeps personal data out of its logs", () => {
    expect(started.output()).not.toMatch(/@[a-z0-9-]+\.[a-z]{2,}/i);
  });
});
