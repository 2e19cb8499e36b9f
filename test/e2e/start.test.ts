import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The start command as `npm start` runs it after the build: seed an empty DATA_DIR, then serve. */
let child: ChildProcess;
let baseUrl: string;
let output = "";
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-e2e-"));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ["--import", "tsx", "jobs/start.ts"], {
    env: {
      ...process.env,
      // vitest exports Vite's BASE_URL ("/"); the server needs an absolute one.
      BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      DEMO_SEED_COUNT: "120",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`start never became healthy:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 120_000);

afterAll(() => {
  child?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the built server started like npm start", () => {
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

  it("keeps personal data out of its logs", () => {
    expect(output).not.toMatch(/@[a-z0-9-]+\.[a-z]{2,}/i);
  });
});
