import http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { compose } from "../../src/mail/dispatch-outbox.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 200, env: { RATE_LIMIT_ANON_HOURLY: "100000" } });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string, index = 0) => {
  const id = server.roster.cases[name]?.[index];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

let emailCounter = 0;
const uniqueEmail = () => `client.${Date.now()}.${++emailCounter}@example.fr`;

const postLead = async (body: unknown, headers: Record<string, string> = {}) => {
  const response = await server.get("/api/contact/brick", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as JsonObject };
};

/**
 * A lead posted by another anonymous client: from a second loopback address (the server listens
 * on 127.0.0.1 and, without TRUST_PROXY, tells anonymous callers apart by their socket address).
 */
const postLeadFrom = (localAddress: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: JsonObject }>((resolve, reject) => {
    const payload = JSON.stringify(body);
    const request = http.request(
      `${server.url}/api/contact/brick`,
      {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      },
    );
    request.on("error", reject);
    request.end(payload);
  });

/** A registered agent's key (levels 1-2 are active at once; level 2 may send leads). */
const agentKey = async () => {
  const { body } = await server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      agent_name: `Lead agent ${++emailCounter}`,
      contact_email: "ops@agent.example",
      requested_level: 2,
    }),
  });
  return body.api_key as string;
};

const leadStatus = (leadId: string, token: string) =>
  server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": token } });

/** The outbox rows of a lead's follow-ups, each with the email the worker would send. */
const followUpEmails = async (leadId: string) => {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  const rows = db
    .prepare(
      `SELECT o.message_id, o.kind, o.subject_id, o.status, o.attempts, o.next_attempt_at, o.last_error,
              o.created_at, o.sent_at
       FROM outbox o JOIN lead_messages m ON m.message_id = o.subject_id
       WHERE m.lead_id = ? ORDER BY m.rowid`,
    )
    .all(leadId) as JsonObject[];
  db.close();
  const app = createApp(loadConfig());
  try {
    // Awaited here: the app closes after every email is composed.
    return await Promise.all(
      rows.map(async (row) => ({
        kind: row.kind,
        status: row.status,
        email: await compose(
          {
            leads: app.leads,
            platformContacts: app.platformContacts,
            platformTeamEmail: "equipe@abeille.test",
            leadEmailConfirmations: app.leadEmailConfirmations,
            leadEmailTokens: app.leadEmailTokens,
            spaceNotices: app.spaceNotices,
            baseUrl: app.config.baseUrl,
          },
          {
            messageId: row.message_id,
            kind: row.kind,
            subjectId: row.subject_id,
            status: row.status,
            attempts: row.attempts,
            nextAttemptAt: row.next_attempt_at,
            lastError: row.last_error,
            createdAt: row.created_at,
            sentAt: row.sent_at,
          },
        ),
      })),
    );
  } finally {
    app.close();
  }
};

const merchantEmail = (abId: string) => {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  const email = db.prepare("SELECT email FROM merchants WHERE ab_id = ?").pluck().get(abId) as string;
  db.close();
  return email;
};

const baseLead = (overrides: Record<string, unknown> = {}) => ({
  ab_id: first("active_contactable"),
  contact_name: "Camille Martin",
  contact_email: uniqueEmail(),
  lead_type: "contact",
  ...overrides,
});

describe("POST /api/contact/brick: creation", () => {
  it("creates a lead: 201 with lead_id, tracking_token, tracking_status received, _actions by rel, _state", async () => {
    const abId = first("active_contactable");
    const { status, headers, body } = await postLead(baseLead({ message: "Bonjour, un devis SVP." }));
    expect(status).toBe(201);
    expect(body.success).toBe(true);
    expectMeta(body);
    expect(body.lead_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.tracking_token).toMatch(new RegExp(`^${body.lead_id}\\.[A-Za-z0-9_-]{43}$`));
    expect(body.tracking_status).toBe("received");
    expect(body.deduplicated).toBe(false);
    expect(body.data).toBeNull();
    expect(Array.isArray(body._actions)).toBe(false);
    expect(body._actions.lead_status.href).toBe(`${TEST_BASE_URL}/api/leads/${body.lead_id}`);
    expect(body._actions.send_message.method).toBe("POST");
    expect(body._actions.merchant.href).toBe(`${TEST_BASE_URL}/api/registry/resolve/${abId}`);
    expect(body._state.can_contact).toBe(true);
    expect(body._state.merchant_status).toMatch(/ACTIVE|PROBATION/);
    expect(headers.get("location")).toBe(`${TEST_BASE_URL}/api/leads/${body.lead_id}`);
    expect(headers.get("cache-control")).toBe("no-store");
  });
});

const decisionCard = async (abId: string) => {
  const { status, body } = await server.getJson(`/api/merchants/${abId}/decision-card`);
  expect(status).toBe(200);
  return body.data as JsonObject;
};

describe("POST /api/contact/brick: the lead contract", () => {
  it("accepts the example_payload of every contactable merchant's decision card as it stands", async () => {
    const merchants = (server.roster.cases.active_contactable ?? []).slice(0, 8);
    const sectors = new Set<string>();
    for (const abId of merchants) {
      const card = await decisionCard(abId);
      sectors.add(card.identity.sector);
      const { status, body } = await postLead(card.lead_contract.example_payload);
      expect([201, 200]).toContain(status);
      expect(body.success).toBe(true);
    }
    expect(sectors.size).toBeGreaterThan(1);
  });

  it("accepts brick_id as the brick's uuid, the product id, or brk_<ab_id>_<slug>, and intent", async () => {
    const abId = first("active_contactable");
    const card = await decisionCard(abId);
    const brick = card.decision_card.bricks_inventory[0];
    for (const brickId of [brick.brick_id, brick.product_id, brick.brick_id.toUpperCase()]) {
      const { status } = await postLead(baseLead({ ab_id: abId, brick_id: brickId, intent: "request_quote" }));
      expect(status).toBe(201);
    }
  });

  it("maps the spec's example shape brk_<ab_id>_<slug> to the product's slug", async () => {
    const abId = first("active_contactable");
    const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
    const slug = db.prepare("SELECT slug FROM products WHERE ab_id = ? ORDER BY position LIMIT 1").pluck().get(abId);
    db.close();
    const { status, body } = await postLead(baseLead({ ab_id: abId, brick_id: `brk_${abId}_${String(slug)}` }));
    expect(status, JSON.stringify(body.data)).toBe(201);
  });

  it("refuses a brick of another merchant or an unknown brick with 400 VALIDATION_ERROR naming brick_id", async () => {
    const abId = first("active_contactable");
    const other = first("active_contactable", 1);
    const otherCard = await decisionCard(other);
    for (const brickId of [
      otherCard.decision_card.bricks_inventory[0].brick_id,
      `brk_${other}_${"x"}`,
      `brk_${abId}_no-such-brick`,
      "00000000-0000-4000-8000-000000000000",
      "not a brick",
    ]) {
      const { status, body } = await postLead(baseLead({ ab_id: abId, brick_id: brickId }));
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues.map((issue: JsonObject) => issue.path)).toContain("brick_id");
    }
  });

  it("checks metadata against the merchant's sector fields: unknown keys and wrong types are refused", async () => {
    const abId = first("active_contactable");
    const card = await decisionCard(abId);
    const fields = card.lead_contract.sector_fields as JsonObject[];
    const numberField = fields.find((field) => field.type === "number");
    const payload = baseLead({ ab_id: abId, metadata: { not_a_field: "x" } });
    const unknown = await postLead(payload);
    expect(unknown.status).toBe(400);
    expectErrorEnvelope(unknown.body, "VALIDATION_ERROR");
    expect(unknown.body.data.issues[0].path).toBe("metadata.not_a_field");
    expect(unknown.body.data.issues[0].message).toMatch(/allowed fields/);
    if (numberField) {
      const wrong = await postLead(baseLead({ ab_id: abId, metadata: { [numberField.name]: "beaucoup" } }));
      expect(wrong.status).toBe(400);
      expect(wrong.body.data.issues[0].path).toBe(`metadata.${numberField.name}`);
    }
    const notObject = await postLead(baseLead({ ab_id: abId, metadata: [1, 2] }));
    expect(notObject.status).toBe(400);
    expect(notObject.body.data.issues[0].path).toBe("metadata");
  });
});

describe("POST /api/contact/brick: validation", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["ab_id missing", { ab_id: undefined }, "ab_id"],
    ["ab_id malformed", { ab_id: "AB_123" }, "ab_id"],
    ["contact_name missing", { contact_name: undefined }, "contact_name"],
    ["contact_name empty", { contact_name: "   " }, "contact_name"],
    ["contact_name too long", { contact_name: "n".repeat(101) }, "contact_name"],
    ["contact_email missing", { contact_email: undefined }, "contact_email"],
    ["contact_email invalid", { contact_email: "pas-un-email" }, "contact_email"],
    ["contact_email too long", { contact_email: `${"a".repeat(250)}@example.fr` }, "contact_email"],
    ["contact_phone too long", { contact_phone: "+33 6 12 34 56 78 90 12" }, "contact_phone"],
    ["contact_phone letters", { contact_phone: "appelez-moi" }, "contact_phone"],
    ["lead_type missing", { lead_type: undefined }, "lead_type"],
    ["lead_type unknown", { lead_type: "order" }, "lead_type"],
    ["message too long", { message: "m".repeat(5001) }, "message"],
    ["message not a string", { message: 42 }, "message"],
    ["ai_context too long", { ai_context: "c".repeat(5001) }, "ai_context"],
    ["intent_data not an object", { intent_data: "urgent" }, "intent_data"],
    ["intent_data.urgency unknown", { intent_data: { urgency: "yesterday" } }, "intent_data.urgency"],
    [
      "intent_data.preferred_contact unknown",
      { intent_data: { preferred_contact: "fax" } },
      "intent_data.preferred_contact",
    ],
    [
      "intent_data.budget_range too long",
      { intent_data: { budget_range: "b".repeat(201) } },
      "intent_data.budget_range",
    ],
    [
      "intent_data.project_type too long",
      { intent_data: { project_type: "p".repeat(201) } },
      "intent_data.project_type",
    ],
    ["intent_data.timeline too long", { intent_data: { timeline: "t".repeat(201) } }, "intent_data.timeline"],
    ["intent_data unknown key", { intent_data: { mood: "happy" } }, "intent_data.mood"],
    ["intent too long", { intent: "i".repeat(101) }, "intent"],
    ["brick_id not a string", { brick_id: 12 }, "brick_id"],
    ["unknown top-level field", { customer_name: "x" }, "customer_name"],
  ];
  for (const [name, overrides, path] of cases) {
    it(`answers 400 VALIDATION_ERROR when ${name}`, async () => {
      const { status, body } = await postLead(baseLead(overrides));
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues.map((issue: JsonObject) => issue.path)).toContain(path);
    });
  }

  it("names the allowed fields when an unknown top-level field is sent", async () => {
    const { body } = await postLead(baseLead({ email: "x@example.fr", name: "x" }));
    const paths = body.data.issues.map((issue: JsonObject) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["email", "name"]));
    expect(body.data.issues[0].message).toMatch(/allowed fields: ab_id, contact_name, contact_email/);
  });

  it("accepts every optional field at its limit and null for optional fields", async () => {
    const { status } = await postLead(
      baseLead({
        contact_name: "é".repeat(100),
        contact_phone: "+33 (0)6 12.34-56 78",
        message: "m".repeat(5000),
        ai_context: "c".repeat(5000),
        intent_data: {
          urgency: "within_week",
          budget_range: "b".repeat(200),
          project_type: "p".repeat(200),
          timeline: "t".repeat(200),
          preferred_contact: "whatsapp",
        },
        intent: "i".repeat(100),
        metadata: null,
        brick_id: null,
      }),
    );
    expect(status).toBe(201);
  });

  it("answers 400 for malformed JSON, a body that is not an object, and a wrong content type", async () => {
    const malformed = await postLead("{ not json");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    const array = await postLead([baseLead()]);
    expect(array.status).toBe(400);
    expectErrorEnvelope(array.body, "VALIDATION_ERROR");
    const wrongType = await postLead(JSON.stringify(baseLead()), { "content-type": "text/plain" });
    expect(wrongType.status).toBe(400);
    expectErrorEnvelope(wrongType.body, "VALIDATION_ERROR");
  });

  it("answers 413 PAYLOAD_TOO_LARGE for a body over 64 KiB", async () => {
    const { status, body } = await postLead(baseLead({ message: "x".repeat(70 * 1024) }));
    expect(status).toBe(413);
    expectErrorEnvelope(body, "PAYLOAD_TOO_LARGE");
  });

  it("counts a chunked body (no Content-Length) as it arrives: accepted within 64 KiB, 413 beyond", async () => {
    const chunked = async (text: string) => {
      const bytes = new TextEncoder().encode(text);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let start = 0; start < bytes.length; start += 8_192)
            controller.enqueue(bytes.slice(start, start + 8_192));
          controller.close();
        },
      });
      const response = await server.get("/api/contact/brick", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit);
      return { status: response.status, body: (await response.json()) as JsonObject };
    };
    const small = await chunked(JSON.stringify(baseLead({ message: "Bonjour, envoyé par morceaux." })));
    expect(small.status).toBe(201);
    const large = await chunked(JSON.stringify(baseLead({ message: "x".repeat(70 * 1024) })));
    expect(large.status).toBe(413);
    expectErrorEnvelope(large.body, "PAYLOAD_TOO_LARGE");
  });

  it("answers 405 with Allow for other methods", async () => {
    const response = await server.get("/api/contact/brick");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expectErrorEnvelope((await response.json()) as JsonObject, "METHOD_NOT_ALLOWED");
  });
});

describe("POST /api/contact/brick: merchants that cannot take the lead", () => {
  it("answers 404 MERCHANT_NOT_FOUND for an unknown, suspended or archived merchant", async () => {
    for (const abId of ["ab_zzzzzzzz", first("suspended"), first("archived")]) {
      const { status, body } = await postLead(baseLead({ ab_id: abId }));
      expect(status).toBe(404);
      expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
    }
  });

  it("answers 400 CONTACT_DISABLED with blocked_because for unreviewed and paused merchants", async () => {
    const expected: Record<string, string> = {
      contact_disabled: "",
      paused: "merchant_paused",
    };
    for (const [rosterCase, reason] of Object.entries(expected)) {
      const { status, body } = await postLead(baseLead({ ab_id: first(rosterCase) }));
      expect(status).toBe(400);
      expectErrorEnvelope(body, "CONTACT_DISABLED");
      expect(body.error.blocked_because.length).toBeGreaterThan(0);
      expect(body.error.blocked_because).not.toContain("order_rail_disabled");
      if (reason) expect(body.error.blocked_because).toContain(reason);
      expect(body._actions.map((action: JsonObject) => action.rel)).toContain("merchant");
    }
  });
});

describe("POST /api/contact/brick: duplicates and Idempotency-Key", () => {
  it("answers the same caller's duplicate within 24 hours with 200, the first lead's id and token, deduplicated true", async () => {
    const email = uniqueEmail();
    const created = await postLead(baseLead({ contact_email: email, lead_type: "quote", message: "Un devis SVP." }));
    expect(created.status).toBe(201);
    const again = await postLead(
      baseLead({ contact_email: `  ${email.toUpperCase()} `, lead_type: "quote", message: "Un devis SVP." }),
    );
    expect(again.status).toBe(200);
    expect(again.body.deduplicated).toBe(true);
    expect(again.body.lead_id).toBe(created.body.lead_id);
    expect(again.body.tracking_token).toBe(created.body.tracking_token);
    expect(again.body._state.can_contact).toBe(true);
    expect(again.headers.get("location")).toBeNull();
    // The same message again: nothing new reaches the merchant.
    expect(await followUpEmails(created.body.lead_id)).toEqual([]);
    // Another lead type or another merchant is another lead.
    const otherType = await postLead(baseLead({ contact_email: email, lead_type: "rdv" }));
    expect(otherType.status).toBe(201);
    const otherMerchant = await postLead(
      baseLead({ contact_email: email, lead_type: "quote", ab_id: first("active_contactable", 1) }),
    );
    expect(otherMerchant.status).toBe(201);
  });

  it("gives another anonymous client posting the same email a new lead and never the first lead's id or token", async () => {
    const payload = baseLead({ lead_type: "quote", message: "Bonjour, je voudrais un devis." });
    const victim = await postLead(payload);
    expect(victim.status).toBe(201);

    const other = await postLeadFrom("127.0.0.2", payload);
    expect(other.status).toBe(201);
    expect(other.body.deduplicated).toBe(false);
    expect(other.body.lead_id).not.toBe(victim.body.lead_id);
    expect(other.body.tracking_token).not.toBe(victim.body.tracking_token);
    expect(JSON.stringify(other.body)).not.toContain(victim.body.lead_id);
    // Its token opens its own lead only.
    expect((await leadStatus(other.body.lead_id, other.body.tracking_token)).status).toBe(200);
    expect((await leadStatus(victim.body.lead_id, other.body.tracking_token)).status).toBe(404);

    // Whoever posts first, the other caller's request is not dropped: the victim's own repeat is
    // still answered with the victim's lead, the other client's with its own.
    const victimAgain = await postLead(payload);
    expect(victimAgain.status).toBe(200);
    expect(victimAgain.body.lead_id).toBe(victim.body.lead_id);
    const otherAgain = await postLeadFrom("127.0.0.2", payload);
    expect(otherAgain.status).toBe(200);
    expect(otherAgain.body.lead_id).toBe(other.body.lead_id);
    expect(otherAgain.body.tracking_token).toBe(other.body.tracking_token);
  });

  it("tells an agent key from the anonymous client at the same address: a new lead, not the anonymous one", async () => {
    const payload = baseLead({ lead_type: "estimation" });
    const anonymous = await postLead(payload);
    expect(anonymous.status).toBe(201);
    const key = await agentKey();
    const agent = await postLead(payload, { authorization: `Bearer ${key}` });
    expect(agent.status).toBe(201);
    expect(agent.body.lead_id).not.toBe(anonymous.body.lead_id);
    expect(agent.body.tracking_token).not.toBe(anonymous.body.tracking_token);
    // The same key from another address is the same caller.
    const agentElsewhere = await postLeadFrom("127.0.0.3", payload, { "x-api-key": key });
    expect(agentElsewhere.status).toBe(200);
    expect(agentElsewhere.body.deduplicated).toBe(true);
    expect(agentElsewhere.body.lead_id).toBe(agent.body.lead_id);
  });

  it("emails the merchant a same-caller repeat whose message differs, as a follow-up on the first lead", async () => {
    const abId = first("active_contactable");
    const payload = baseLead({ lead_type: "rdv", message: "Un rendez-vous mardi ?" });
    const created = await postLead(payload);
    expect(created.status).toBe(201);
    const differs = await postLead({ ...payload, message: "Finalement plutôt jeudi matin." });
    expect(differs.status).toBe(200);
    expect(differs.body.deduplicated).toBe(true);
    expect(differs.body.lead_id).toBe(created.body.lead_id);
    expect(differs.body.tracking_token).toBe(created.body.tracking_token);

    const [followUp, ...none] = await followUpEmails(created.body.lead_id);
    expect(none).toEqual([]);
    expect(followUp).toMatchObject({ kind: "lead_follow_up", status: "pending" });
    expect(followUp?.email.to).toBe(merchantEmail(abId));
    expect(followUp?.email.replyTo).toEqual({ name: "Camille Martin", address: payload.contact_email });
    expect(followUp?.email.subject).toBe("Nouveau message au sujet d'une demande de rendez-vous reçue via Abeille");
    expect(followUp?.email.text).toContain("Finalement plutôt jeudi matin.");
    const status = await leadStatus(created.body.lead_id, created.body.tracking_token);
    expect(status.body.data.messages_count).toBe(1);

    // Sent once: the same repeat again adds nothing.
    const repeated = await postLead({ ...payload, message: "Finalement plutôt jeudi matin." });
    expect(repeated.status).toBe(200);
    expect(await followUpEmails(created.body.lead_id)).toHaveLength(1);
  });

  it("creates exactly one lead from ten identical concurrent submissions", async () => {
    const payload = baseLead({ contact_email: uniqueEmail(), lead_type: "estimation" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => postLead(payload)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.lead_id)).size).toBe(1);
    expect(answers.filter((answer) => answer.body.deduplicated === true)).toHaveLength(9);
  });

  it("replays the first answer for the same Idempotency-Key and body, 409 CONFLICT for another body", async () => {
    const key = `key-${Date.now()}`;
    const payload = baseLead();
    const first201 = await postLead(payload, { "idempotency-key": key });
    expect(first201.status).toBe(201);
    const replay = await postLead(payload, { "idempotency-key": key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.lead_id).toBe(first201.body.lead_id);
    expect(replay.body.tracking_token).toBe(first201.body.tracking_token);
    expect(replay.body.tracking_status).toBe("received");
    // Key order does not make another body.
    const reordered = Object.fromEntries(Object.entries(payload).reverse());
    expect((await postLead(reordered, { "idempotency-key": key })).body.lead_id).toBe(first201.body.lead_id);
    const conflict = await postLead({ ...payload, message: "autre" }, { "idempotency-key": key });
    expect(conflict.status).toBe(409);
    expectErrorEnvelope(conflict.body, "CONFLICT");
    expect(conflict.body.error.message).toMatch(/Idempotency-Key/);
  });

  it("replays a deduplicated answer as 200 and concurrent same-key requests as one lead", async () => {
    const payload = baseLead();
    await postLead(payload);
    const key = `dup-${Date.now()}`;
    const dedup = await postLead(payload, { "idempotency-key": key });
    expect(dedup.status).toBe(200);
    const replay = await postLead(payload, { "idempotency-key": key });
    expect(replay.status).toBe(200);
    expect(replay.body.deduplicated).toBe(true);

    const fresh = baseLead();
    const concurrent = await Promise.all(
      Array.from({ length: 5 }, () => postLead(fresh, { "idempotency-key": `c-${fresh.contact_email}` })),
    );
    expect(new Set(concurrent.map((answer) => answer.body.lead_id)).size).toBe(1);
    expect(concurrent.every((answer) => answer.status === 201)).toBe(true);
  });

  it("refuses a malformed Idempotency-Key with 400", async () => {
    for (const key of ["k".repeat(256), "clé-non-ascii"]) {
      const { status, body } = await postLead(baseLead(), { "idempotency-key": key });
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues[0].path).toBe("Idempotency-Key");
    }
  });
});
