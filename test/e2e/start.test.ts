import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
    const status = await (
      await fetch(`${baseUrl}/api/leads/${leadId}`, { headers: { "x-tracking-token": token } })
    ).json();
    expect(JSON.stringify(status)).toContain('"tracking_status":"delivered"');
  });

  it("keeps personal data out of its logs", () => {
    expect(started.output()).not.toMatch(/@[a-z0-9-]+\.[a-z]{2,}/i);
  });
});
