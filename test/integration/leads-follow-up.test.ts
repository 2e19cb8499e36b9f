import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 150, env: { RATE_LIMIT_ANON_HOURLY: "100000" } });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

let counter = 0;
const call = async (pathAndQuery: string, init: RequestInit = {}) => {
  const response = await server.get(pathAndQuery, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as JsonObject };
};

const createLead = async () => {
  const { status, body } = await call("/api/contact/brick", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ab_id: first("active_contactable"),
      contact_name: "Léa Dubois",
      contact_email: `lea.${Date.now()}.${++counter}@example.fr`,
      lead_type: "quote",
    }),
  });
  expect(status).toBe(201);
  return { leadId: body.lead_id as string, token: body.tracking_token as string };
};

const status = (leadId: string, token: string | null, via: "header" | "query" = "header") =>
  call(
    via === "query" && token !== null
      ? `/api/leads/${leadId}?token=${encodeURIComponent(token)}`
      : `/api/leads/${leadId}`,
    { headers: via === "header" && token !== null ? { "x-tracking-token": token } : {} },
  );

const sendMessage = (leadId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/api/leads/${leadId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("GET /api/leads/{lead_id}", () => {
  it("answers the lead's status to the holder of its tracking token (header or ?token=)", async () => {
    const lead = await createLead();
    for (const via of ["header", "query"] as const) {
      const answer = await status(lead.leadId, lead.token, via);
      expect(answer.status).toBe(200);
      expectMeta(answer.body);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.body.data).toMatchObject({
        lead_id: lead.leadId,
        tracking_status: "received",
        lead_type: "quote",
        delivered_at: null,
        merchant: { ab_id: first("active_contactable"), name: expect.any(String) },
        messages_count: 0,
        messages_remaining: 20,
        anonymized: false,
      });
      expect(Number.isNaN(Date.parse(answer.body.data.created_at))).toBe(false);
      expect(answer.body._actions.map((action: JsonObject) => action.rel)).toEqual(
        expect.arrayContaining(["lead_status", "send_message", "merchant"]),
      );
      expect(answer.body._links.canonical).toBe(`${TEST_BASE_URL}/api/leads/${lead.leadId}`);
    }
  });

  it("answers a wrong token exactly like an unknown lead: 404 NOT_FOUND, same message", async () => {
    const lead = await createLead();
    const other = await createLead();
    const [, mac] = lead.token.split(".");
    const flipped = `${lead.leadId}.${mac?.[0] === "A" ? "B" : "A"}${mac?.slice(1)}`;
    const unknownLead = "3f1c2a9e-0b7d-4c55-9a1e-5d2f8c7b6a40";
    const attempts = [
      await status(lead.leadId, flipped),
      await status(lead.leadId, other.token), // a real token, for another lead
      await status(lead.leadId, `${lead.leadId}.${"A".repeat(43)}`),
      await status(lead.leadId, "guess"),
      await status(unknownLead, `${unknownLead}.${mac}`),
      await status(unknownLead, lead.token),
    ];
    const messages = new Set<string>();
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expectErrorEnvelope(attempt.body, "NOT_FOUND");
      messages.add(attempt.body.error.message);
    }
    expect(messages.size).toBe(1);
  });

  it("answers 400 without a token or with a malformed lead id", async () => {
    const lead = await createLead();
    const missing = await status(lead.leadId, null);
    expect(missing.status).toBe(400);
    expectErrorEnvelope(missing.body, "VALIDATION_ERROR");
    expect(missing.body.data.issues[0].path).toBe("tracking_token");
    const malformed = await status("not-a-uuid", lead.token);
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
  });

  it("answers 405 for other methods", async () => {
    const lead = await createLead();
    const answer = await call(`/api/leads/${lead.leadId}`, { method: "DELETE" });
    expect(answer.status).toBe(405);
    expectErrorEnvelope(answer.body, "METHOD_NOT_ALLOWED");
  });
});

describe("POST /api/leads/{lead_id}/messages", () => {
  it("queues a follow-up message (token in the body or the header) and counts it on the lead", async () => {
    const lead = await createLead();
    const inBody = await sendMessage(lead.leadId, {
      tracking_token: lead.token,
      message: "Êtes-vous disponible jeudi ?",
    });
    expect(inBody.status).toBe(201);
    expect(inBody.body.data).toMatchObject({
      lead_id: lead.leadId,
      status: "queued",
      messages_count: 1,
      messages_remaining: 19,
    });
    expect(inBody.body.data.message_id).toMatch(/^[0-9a-f-]{36}$/);
    const inHeader = await sendMessage(lead.leadId, { message: "Merci !" }, { "x-tracking-token": lead.token });
    expect(inHeader.status).toBe(201);
    expect((await status(lead.leadId, lead.token)).body.data.messages_count).toBe(2);
  });

  it("refuses a wrong token like an unknown lead (404 NOT_FOUND)", async () => {
    const lead = await createLead();
    const other = await createLead();
    const answer = await sendMessage(lead.leadId, { tracking_token: other.token, message: "Bonjour" });
    expect(answer.status).toBe(404);
    expectErrorEnvelope(answer.body, "NOT_FOUND");
    expect(answer.body.error.message).toBe((await status(lead.leadId, other.token)).body.error.message);
  });

  it("validates the message: required, 1 to 2000 characters, no unknown fields, token given once", async () => {
    const lead = await createLead();
    const cases: [unknown, string][] = [
      [{ tracking_token: lead.token }, "message"],
      [{ tracking_token: lead.token, message: "  " }, "message"],
      [{ tracking_token: lead.token, message: "x".repeat(2001) }, "message"],
      [{ tracking_token: lead.token, message: "ok", cc: "x" }, "cc"],
      [{ message: "ok" }, "tracking_token"],
    ];
    for (const [body, path] of cases) {
      const answer = await sendMessage(lead.leadId, body);
      expect(answer.status).toBe(400);
      expectErrorEnvelope(answer.body, "VALIDATION_ERROR");
      expect(answer.body.data.issues.map((issue: JsonObject) => issue.path)).toContain(path);
    }
    const twoTokens = await sendMessage(
      lead.leadId,
      { tracking_token: lead.token, message: "ok" },
      { "x-tracking-token": `${lead.leadId}.${"A".repeat(43)}` },
    );
    expect(twoTokens.status).toBe(400);
    expect((await sendMessage(lead.leadId, { tracking_token: lead.token, message: "x".repeat(2000) })).status).toBe(
      201,
    );
  });

  it("accepts at most 20 messages per lead, then 409 CONFLICT", async () => {
    const lead = await createLead();
    for (let index = 0; index < 20; index++) {
      const answer = await sendMessage(lead.leadId, { tracking_token: lead.token, message: `Message ${index + 1}` });
      expect(answer.status).toBe(201);
    }
    const refused = await sendMessage(lead.leadId, { tracking_token: lead.token, message: "Un de trop" });
    expect(refused.status).toBe(409);
    expectErrorEnvelope(refused.body, "CONFLICT");
    expect(refused.body.error.message).toMatch(/20/);
    expect((await status(lead.leadId, lead.token)).body.data.messages_remaining).toBe(0);
  });
});
