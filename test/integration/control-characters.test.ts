/**
 * Control characters in names and one-line fields: refused at the door with the field named,
 * kept (line breaks) in messages, and shown escaped when an operator command prints what an
 * agent wrote before the rule existed.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const root = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 40, env: { RATE_LIMIT_ANON_HOURLY: "100000" } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const post = (route: string, body: unknown) =>
  server.getJson(route, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("control characters", () => {
  it("are refused in an agent's name, naming the field", async () => {
    const { status, body } = await post("/api/agents/register", {
      agent_name: "Agent\u001b[2J\u001b[HApproved",
      contact_email: "dev@example.org",
      requested_level: 1,
    });
    expect(status).toBe(400);
    expect(body.data.issues).toEqual([
      { path: "agent_name", message: "must be one line of text, without control characters" },
    ]);
  });

  it("are refused in a lead's contact name (no forged lines in the merchant's email), and line breaks stay in its message", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const lead = {
      ab_id: abId,
      contact_name: "Camille Martin\r\nBcc: someone@example.org",
      contact_email: "camille@example.org",
      lead_type: "quote",
      message: "Bonjour,\r\nun devis pour samedi ?\n\tMerci",
    };
    const refused = await post("/api/contact/brick", lead);
    expect(refused.status).toBe(400);
    expect(refused.body.data.issues).toEqual([
      { path: "contact_name", message: "must be one line of text, without control characters" },
    ]);
    const accepted = await post("/api/contact/brick", { ...lead, contact_name: "Camille Martin" });
    expect(accepted.status).toBe(201);
    const bell = await post("/api/contact/brick", { ...lead, contact_name: "Camille", message: "Allô\u0007" });
    expect(bell.body.data.issues).toEqual([
      { path: "message", message: "must not contain control characters other than line breaks and tabs" },
    ]);
  });

  it("written before the rule are printed escaped by npm run agents -- list", () => {
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    db.$client
      .prepare(
        `INSERT INTO agents (agent_id, agent_name, agent_url, contact_email, requested_level, certification_level,
           status, capabilities, key_hash, key_prefix, created_at, updated_at)
         VALUES ('agt_escape', ?, NULL, 'dev@example.org', 1, 1, 'active', '[]', 'hash-escape', 'abk_escape', ?, ?)`,
      )
      .run("Evil\u001b[2J\nagt_fake  active  level 4/4", "2026-11-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z");
    db.$client.close();
    const listed = execFileSync(process.execPath, ["jobs/agents.ts", "list"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
      encoding: "utf8",
    });
    const line = listed.split("\n").find((row) => row.startsWith("agt_escape"));
    expect(line).toBe(
      "agt_escape  active                level 1/1  abk_escape…  Evil\\u001b[2J\\u000aagt_fake  active  level 4/4 <dev@example.org>",
    );
    expect(listed).not.toContain("\u001b");
  });
});
