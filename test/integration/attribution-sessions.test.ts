import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attributionConversionSchema, attributionSessionSchema } from "../../src/schemas/attribution.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let abId: string;
const root = path.resolve(import.meta.dirname, "../..");
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
  abId = server.roster.cases.active_contactable?.[0] ?? "";
});
afterAll(async () => {
  await server?.close();
});

/** SQL on the server's database from another process (never open it in this one: POSIX locks). */
function sql(query: string, ...params: string[]): void {
  const script = `const db = new (require("better-sqlite3"))(process.argv[1]); db.prepare(process.argv[2]).run(...JSON.parse(process.argv[3]));`;
  execFileSync(
    process.execPath,
    ["-e", script, path.join(server.dataDir, "abeille.db"), query, JSON.stringify(params)],
    {
      cwd: root,
    },
  );
}

/** A lead as the lead service stores it; attribution only needs it to exist for its merchant. */
function insertLead(merchant: string): string {
  const leadId = randomUUID();
  sql(
    "INSERT INTO leads (lead_id, ab_id, lead_type, contact_name, contact_email, tracking_status, created_at) VALUES (?, ?, 'contact', 'Test', 'test@example.fr', 'received', ?)",
    leadId,
    merchant,
    new Date().toISOString(),
  );
  return leadId;
}

const post = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  server.getJson(pathname, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const open = (body: unknown, headers: Record<string, string> = {}) => post("/api/attribution/session", body, headers);
const convert = (body: unknown, headers: Record<string, string> = {}) =>
  post("/api/attribution/convert", body, headers);

describe("POST /api/attribution/session", () => {
  it("opens a session on a known AI-agent User-Agent (the strongest evidence)", async () => {
    const { status, body, headers } = await open(
      { ab_id: abId, referrer: "https://chatgpt.com/", utm_source: "chatgpt.com" },
      {
        "user-agent":
          "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
      },
    );
    expect(status).toBe(201);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.success).toBe(true);
    expectMeta(body);
    expect(attributionSessionSchema.safeParse(body.data).error).toBeUndefined();
    expect(body.data).toMatchObject({
      evidence_level: "bot_user_agent",
      evidence: ["bot_user_agent", "campaign", "referrer"],
      user_agent_family: "ChatGPT-User",
      ab_id: abId,
      agent_id: null,
    });
    expect(body.data.session_id).toMatch(/^[0-9a-f-]{36}$/);
    const lifetime = Date.parse(body.data.expires_at) - Date.parse(body.data.created_at);
    expect(lifetime).toBe(30 * 24 * 3600 * 1000);
    expect(body._actions[0]).toMatchObject({ rel: "convert", href: `${TEST_BASE_URL}/api/attribution/convert` });
  });

  it("falls back to campaign parameters (fields, object or landing URL), then to the referrer", async () => {
    const browser = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" };
    const cases: [JsonObject, string][] = [
      [{ utm_source: "perplexity", utm_campaign: "spring" }, "campaign"],
      [{ campaign: { source: "newsletter", name: "juin" } }, "campaign"],
      [{ landing_url: "https://abeille.test/m/x/?utm_source=claude.ai&utm_medium=referral" }, "campaign"],
      [{ referrer: "https://www.perplexity.ai/search?q=boulanger" }, "referrer"],
    ];
    for (const [body, level] of cases) {
      const { status, body: answer } = await open(body, browser);
      expect(status, JSON.stringify(body)).toBe(201);
      expect(answer.data.evidence_level).toBe(level);
    }
  });

  it("records the agent when a key is presented", async () => {
    const registration = await post("/api/agents/register", {
      agent_name: "Attributed",
      contact_email: "a@agent.example",
      requested_level: 2,
    });
    const { status, body } = await open(
      { utm_source: "agent" },
      { authorization: `Bearer ${registration.body.api_key}` },
    );
    expect(status).toBe(201);
    expect(body.data.agent_id).toBe(registration.body.agent_id);
  });

  it("answers 400 without evidence, for invalid fields, and 404 for an unknown merchant", async () => {
    const none = await open({ ab_id: abId }, { "user-agent": "curl/8.5.0" });
    expect(none.status).toBe(400);
    expectErrorEnvelope(none.body, "VALIDATION_ERROR");
    expect(none.body.error.message).toMatch(/referrer/);
    for (const invalid of [
      { referrer: "not a url" },
      { utm_source: "" },
      { utm_source: "a", campaign: { source: "b" } },
      { ab_id: "AB-1", utm_source: "x" },
      { utm_source: "x", surprise: true },
    ]) {
      const { status, body } = await open(invalid);
      expect(status, JSON.stringify(invalid)).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
    }
    const unknown = await open({ ab_id: "ab_zzzzzzzz", utm_source: "x" });
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "MERCHANT_NOT_FOUND");
  });
});

describe("POST /api/attribution/convert", () => {
  it("converts a session by a lead (200), then answers 409 CONFLICT", async () => {
    const session = (await open({ ab_id: abId, utm_source: "chatgpt.com" })).body.data;
    const leadId = insertLead(abId);
    const { status, body } = await convert({ session_id: session.session_id, lead_id: leadId });
    expect(status).toBe(200);
    expect(attributionConversionSchema.safeParse(body.data).error).toBeUndefined();
    expect(body.data).toMatchObject({
      session_id: session.session_id,
      conversion: "lead",
      lead_id: leadId,
      order_id: null,
      evidence_level: "campaign",
      ab_id: abId,
    });
    expect(Number.isNaN(Date.parse(body.data.converted_at))).toBe(false);

    const again = await convert({ session_id: session.session_id, lead_id: leadId });
    expect(again.status).toBe(409);
    expectErrorEnvelope(again.body, "CONFLICT");
    expect(again.body.error.blocked_because).toEqual(["session_already_converted"]);
  });

  it("answers 404 NOT_FOUND for an unknown session, lead or order", async () => {
    const unknownSession = await convert({ session_id: randomUUID(), lead_id: insertLead(abId) });
    expect(unknownSession.status).toBe(404);
    expectErrorEnvelope(unknownSession.body, "NOT_FOUND");
    const session = (await open({ utm_source: "x" })).body.data;
    for (const body of [
      { session_id: session.session_id, lead_id: randomUUID() },
      { session_id: session.session_id, order_id: randomUUID() },
    ]) {
      const answer = await convert(body);
      expect(answer.status).toBe(404);
      expectErrorEnvelope(answer.body, "NOT_FOUND");
    }
  });

  it("answers 404 without naming a merchant for a lead of another merchant, and 409 for an expired session", async () => {
    const session = (await open({ ab_id: abId, utm_source: "x" })).body.data;
    const otherMerchant = server.roster.cases.active_contactable?.[1] ?? "";
    const mismatch = await convert({ session_id: session.session_id, lead_id: insertLead(otherMerchant) });
    expect(mismatch.status).toBe(404);
    expectErrorEnvelope(mismatch.body, "NOT_FOUND");
    expect(JSON.stringify(mismatch.body)).not.toContain(otherMerchant);

    sql(
      "UPDATE attribution_sessions SET expires_at = ? WHERE session_id = ?",
      "2020-01-01T00:00:00.000Z",
      session.session_id,
    );
    const expired = await convert({ session_id: session.session_id, lead_id: insertLead(abId) });
    expect(expired.status).toBe(409);
    expectErrorEnvelope(expired.body, "CONFLICT");
    expect(expired.body.error.blocked_because).toEqual(["session_expired"]);
  });

  it("answers 400 unless exactly one of lead_id and order_id is given", async () => {
    const session = (await open({ utm_source: "x" })).body.data;
    for (const body of [
      { session_id: session.session_id },
      { session_id: session.session_id, lead_id: randomUUID(), order_id: randomUUID() },
      { session_id: "abc", lead_id: randomUUID() },
      {},
    ]) {
      const answer = await convert(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expectErrorEnvelope(answer.body, "VALIDATION_ERROR");
    }
  });
});
