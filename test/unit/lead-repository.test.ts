/**
 * Lead creation, follow-ups and status against a real SQLite database (no HTTP): the 24-hour
 * window, Idempotency-Key expiry, the follow-up limit, the token-only domain functions the MCP
 * tools call, and several processes racing on the same duplicate.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { checkLeadStatus } from "../../src/domain/leads/check-lead-status.ts";
import { createLead } from "../../src/domain/leads/create-lead.ts";
import { LEAD_NOT_FOUND_MESSAGE } from "../../src/domain/leads/find-tracked-lead.ts";
import { sendLeadMessage } from "../../src/domain/leads/send-lead-message.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { setLogLevel } from "../../src/logging.ts";
import type { LeadRequest } from "../../src/schemas/leads.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { leadDeps } from "../../src/wiring.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let dataDir: string;
let app: App;
let clock = new Date("2026-11-22T10:00:00.000Z");
let abId: string;
let notified = 0;

beforeAll(async () => {
  setLogLevel("silent");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-leads-unit-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 40, seed: 11, now: new Date("2026-11-01T00:00:00Z"), dataDir });
  db.$client.close();
  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
  abId = roster.cases.active_contactable[0];
  app = createApp(loadConfig({ DATA_DIR: dataDir }), { now: () => clock });
}, 60_000);

afterAll(() => {
  app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const deps = () => ({ ...leadDeps(app), notifyOutbox: () => void notified++ });
const request = (overrides: Partial<LeadRequest> = {}): LeadRequest => ({
  ab_id: abId,
  contact_name: "Camille Martin",
  contact_email: `camille.${randomUUID()}@example.fr`,
  lead_type: "quote",
  ...overrides,
});
/** Two anonymous callers (told apart by address) and an agent. */
const callerA = { agentId: null, clientAddress: "198.51.100.7" };
const callerB = { agentId: null, clientAddress: "198.51.100.8" };
const agentCaller = { agentId: "agt_test", clientAddress: "198.51.100.7" };
const anonymous = { caller: callerA, idempotencyKey: null };
const followUpsOf = (leadId: string) =>
  app.db.$client.prepare("SELECT body FROM lead_messages WHERE lead_id = ? ORDER BY rowid").pluck().all(leadId);

const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (failure) {
    if (isServiceError(failure)) return failure;
    throw failure;
  }
  throw new Error("expected a ServiceError");
};

describe("createLead", () => {
  it("opens a 24-hour window per caller: the same caller's duplicate inside it returns the first lead, after it a new lead", async () => {
    const lead = request();
    const first = await createLead(deps(), lead, { caller: agentCaller, idempotencyKey: null });
    expect(first).toMatchObject({ status: 201, deduplicated: false, trackingStatus: "received" });
    expect(notified).toBeGreaterThan(0);
    clock = new Date(clock.getTime() + 24 * 3_600_000 - 1);
    const duplicate = await createLead(
      deps(),
      { ...lead, contact_email: ` ${lead.contact_email.toUpperCase()} ` },
      { caller: agentCaller, idempotencyKey: null },
    );
    expect(duplicate).toMatchObject({ status: 200, deduplicated: true, leadId: first.leadId });
    expect(duplicate.trackingToken).toBe(first.trackingToken);
    clock = new Date(clock.getTime() + 1);
    const later = await createLead(deps(), lead, { caller: agentCaller, idempotencyKey: null });
    expect(later.status).toBe(201);
    expect(later.leadId).not.toBe(first.leadId);
    const row = app.db.$client.prepare("SELECT agent_id FROM leads WHERE lead_id = ?").get(first.leadId);
    expect(row).toEqual({ agent_id: "agt_test" });
    expect(await app.outbox.findBySubject(first.leadId)).toHaveLength(1);
    expect(followUpsOf(first.leadId)).toEqual([]);
  });

  it("never hands a lead to another caller: another address or another agent key creates its own lead", async () => {
    const lead = request({ message: "Bonjour, un devis pour samedi." });
    const first = await createLead(deps(), lead, { caller: callerA, idempotencyKey: null });
    const otherAddress = await createLead(deps(), lead, { caller: callerB, idempotencyKey: null });
    // The same address with an agent key is another caller too: the key is the agent's identity.
    const agent = await createLead(deps(), lead, { caller: agentCaller, idempotencyKey: null });
    for (const other of [otherAddress, agent]) {
      expect(other).toMatchObject({ status: 201, deduplicated: false, trackingStatus: "received" });
      expect(other.leadId).not.toBe(first.leadId);
      expect(other.trackingToken).not.toBe(first.trackingToken);
      expect(await app.outbox.findBySubject(other.leadId)).toMatchObject([
        { kind: "lead_notification", status: "pending" },
      ]);
    }
    expect(new Set([first.leadId, otherAddress.leadId, agent.leadId]).size).toBe(3);
    // Each caller's own repeat finds its own lead.
    expect((await createLead(deps(), lead, { caller: callerB, idempotencyKey: null })).leadId).toBe(
      otherAddress.leadId,
    );
    expect((await createLead(deps(), lead, { caller: callerA, idempotencyKey: null })).leadId).toBe(first.leadId);
  });

  it("assesses the merchant again once the store changes it: suspended after a lead, it takes no more leads until reactivated", async () => {
    const contactable = (await createLead(deps(), request(), anonymous)).status;
    expect(contactable).toBe(201);
    const setStatus = app.db.$client.prepare("UPDATE merchants SET status = ? WHERE ab_id = ?");
    setStatus.run("SUSPENDED", abId);
    try {
      const refused = await failureOf(createLead(deps(), request(), anonymous));
      expect(refused.code).toBe("MERCHANT_NOT_FOUND");
      setStatus.run("PAUSED", abId);
      expect((await failureOf(createLead(deps(), request(), anonymous))).code).toBe("CONTACT_DISABLED");
      setStatus.run("ARCHIVED", abId);
      expect((await failureOf(createLead(deps(), request(), anonymous))).code).toBe("MERCHANT_NOT_FOUND");
    } finally {
      setStatus.run("ACTIVE", abId);
    }
    expect((await createLead(deps(), request(), anonymous)).status).toBe(201);
  });

  it("sends a same-caller duplicate's new message to the merchant as a follow-up, and a message already sent never twice", async () => {
    const lead = request({ message: "Bonjour, un devis pour une fuite." });
    const first = await createLead(deps(), lead, anonymous);
    const sentBefore = notified;

    const differs = await createLead(deps(), { ...lead, message: "J'ajoute : c'est sous l'évier." }, anonymous);
    expect(differs).toMatchObject({ status: 200, deduplicated: true, leadId: first.leadId });
    expect(differs.trackingToken).toBe(first.trackingToken);
    expect(followUpsOf(first.leadId)).toEqual(["J'ajoute : c'est sous l'évier."]);
    const [followUp] = app.db.$client
      .prepare("SELECT message_id FROM lead_messages WHERE lead_id = ?")
      .pluck()
      .all(first.leadId) as string[];
    expect(await app.outbox.findBySubject(followUp as string)).toMatchObject([
      { kind: "lead_follow_up", status: "pending" },
    ]);
    expect(notified).toBe(sentBefore + 1);

    // The first message, the follow-up, or no message at all: nothing new to tell the merchant.
    for (const repeat of [
      lead,
      { ...lead, message: "J'ajoute : c'est sous l'évier." },
      { ...lead, message: undefined },
    ]) {
      expect(await createLead(deps(), repeat, anonymous)).toMatchObject({ status: 200, leadId: first.leadId });
    }
    expect(followUpsOf(first.leadId)).toEqual(["J'ajoute : c'est sous l'évier."]);
    expect(notified).toBe(sentBefore + 1);
    expect(await app.outbox.findBySubject(first.leadId)).toHaveLength(1);
  });

  it("appends a new message once when the same caller's duplicates race", async () => {
    const lead = request({ message: "Premier message." });
    const first = await createLead(deps(), lead, anonymous);
    const racing = await Promise.all(
      Array.from({ length: 10 }, () => createLead(deps(), { ...lead, message: "Second message." }, anonymous)),
    );
    expect(racing.map((receipt) => `${receipt.status}:${receipt.leadId}`)).toEqual(
      Array(10).fill(`200:${first.leadId}`),
    );
    expect(followUpsOf(first.leadId)).toEqual(["Second message."]);
  });

  it("refuses a duplicate's new message past the follow-up limit with CONFLICT, writing nothing", async () => {
    const lead = request({ message: "Message 0" });
    const first = await createLead(deps(), lead, anonymous);
    for (let index = 1; index <= 20; index++) {
      await createLead(deps(), { ...lead, message: `Message ${index}` }, anonymous);
    }
    expect(followUpsOf(first.leadId)).toHaveLength(20);
    const refused = await failureOf(createLead(deps(), { ...lead, message: "Message 21" }, anonymous));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(/20 follow-up messages/);
    expect(followUpsOf(first.leadId)).toHaveLength(20);
    // A message already sent is still a plain duplicate.
    expect(await createLead(deps(), { ...lead, message: "Message 7" }, anonymous)).toMatchObject({
      status: 200,
      leadId: first.leadId,
    });
  });

  it("forgets an Idempotency-Key after 24 hours", async () => {
    const lead = request();
    const options = { caller: callerA, idempotencyKey: "k-1" };
    const first = await createLead(deps(), lead, options);
    expect(await createLead(deps(), lead, options)).toMatchObject({
      leadId: first.leadId,
      replayed: true,
      status: 201,
    });
    const other = await failureOf(createLead(deps(), { ...lead, message: "autre" }, options));
    expect(other.code).toBe("CONFLICT");
    // The same key from another caller is another key.
    const otherCaller = await createLead(deps(), request(), { caller: callerB, idempotencyKey: "k-1" });
    expect(otherCaller.status).toBe(201);
    clock = new Date(clock.getTime() + 24 * 3_600_000 + 1);
    const fresh = await createLead(deps(), { ...lead, message: "autre" }, options);
    expect(fresh.replayed).toBe(false);
  });

  it("records the brick's uuid whichever form named it, and only the sector fields given", async () => {
    const profile = await app.merchants.findProfile(abId);
    const product = profile?.products[0];
    if (!product) throw new Error("no product");
    const created = await createLead(
      deps(),
      request({ brick_id: `brk_${abId}_${product.slug}`, intent: "devis" }),
      anonymous,
    );
    const row = app.db.$client
      .prepare("SELECT brick_id, intent, metadata, intent_data FROM leads WHERE lead_id = ?")
      .get(created.leadId);
    expect(row).toEqual({ brick_id: product.brickId, intent: "devis", metadata: null, intent_data: null });
  });
});

describe("checkLeadStatus and sendLeadMessage (what the MCP tools call)", () => {
  it("work from the tracking token alone and count the follow-ups", async () => {
    const created = await createLead(deps(), request(), anonymous);
    const status = await checkLeadStatus(deps(), { trackingToken: created.trackingToken });
    expect(status.status).toMatchObject({ lead_id: created.leadId, tracking_status: "received", messages_count: 0 });
    const sent = await sendLeadMessage(deps(), { trackingToken: created.trackingToken, message: "Bonjour" });
    expect(sent.message).toMatchObject({ status: "queued", messages_count: 1, messages_remaining: 19 });
    expect((await checkLeadStatus(deps(), { trackingToken: created.trackingToken })).status.messages_count).toBe(1);
    expect((await app.outbox.findBySubject(sent.message.message_id))[0]?.kind).toBe("lead_follow_up");
  });

  it("answer NOT_FOUND with one message for a bad token, a token of another lead and an unknown lead", async () => {
    const a = await createLead(deps(), request(), anonymous);
    const b = await createLead(deps(), request(), anonymous);
    const failures = [
      await failureOf(checkLeadStatus(deps(), { trackingToken: "nope" })),
      await failureOf(checkLeadStatus(deps(), { leadId: a.leadId, trackingToken: b.trackingToken })),
      await failureOf(checkLeadStatus(deps(), { trackingToken: app.trackingTokens.issue(randomUUID()) })),
      await failureOf(sendLeadMessage(deps(), { trackingToken: `${a.leadId}.${"x".repeat(43)}`, message: "x" })),
    ];
    for (const failure of failures) {
      expect(failure.code).toBe("NOT_FOUND");
      expect(failure.message).toBe(LEAD_NOT_FOUND_MESSAGE);
    }
  });

  it("refuses the 21st follow-up with CONFLICT", async () => {
    const created = await createLead(deps(), request(), anonymous);
    for (let index = 0; index < 20; index++) {
      await sendLeadMessage(deps(), { trackingToken: created.trackingToken, message: `n° ${index}` });
    }
    const refused = await failureOf(sendLeadMessage(deps(), { trackingToken: created.trackingToken, message: "trop" }));
    expect(refused.code).toBe("CONFLICT");
  });
});

describe("several processes racing on one duplicate", () => {
  it("create exactly one lead between them", async () => {
    const email = `race.${randomUUID()}@example.fr`;
    const script = `
      const { createApp } = await import(${JSON.stringify(path.join(root, "src/app.ts"))});
      const { loadConfig } = await import(${JSON.stringify(path.join(root, "src/config/config.ts"))});
      const { createLead } = await import(${JSON.stringify(path.join(root, "src/domain/leads/create-lead.ts"))});
      const { leadDeps } = await import(${JSON.stringify(path.join(root, "src/wiring.ts"))});
      const app = createApp(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)}, LOG_LEVEL: "silent" }));
      const deps = { ...leadDeps(app), notifyOutbox: () => {} };
      const ids = [];
      const start = Date.now() + 300;
      while (Date.now() < start) {}
      for (let i = 0; i < 25; i++) {
        const receipt = await createLead(deps, { ab_id: ${JSON.stringify(abId)}, contact_name: "R", contact_email: ${JSON.stringify(email)}, lead_type: "contact" }, { caller: { agentId: null, clientAddress: "198.51.100.7" }, idempotencyKey: null });
        ids.push(receipt.status + ":" + receipt.leadId);
      }
      process.stdout.write(JSON.stringify(ids));
      app.close();
    `;
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ["--input-type=module", "-e", script], {
          cwd: root,
          env: { ...process.env, LOG_LEVEL: "silent" },
        }),
      ),
    );
    const answers = outputs.flatMap((output) => JSON.parse(output.stdout) as string[]);
    expect(answers).toHaveLength(100);
    expect(answers.filter((answer) => answer.startsWith("201:"))).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.slice(4))).size).toBe(1);
    const stored = app.db.$client.prepare("SELECT count(*) FROM leads WHERE contact_email = ?").pluck().get(email);
    expect(stored).toBe(1);
  }, 60_000);
});
