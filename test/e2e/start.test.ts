import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
    expect(started.output()).not.toMatch(/@[a-z0-9-]+\.[a-z]{2,}/i);
  });
});
