import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RETENTION_CRON, startRetentionSchedule } from "../../jobs/retention.ts";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { checkLeadStatus } from "../../src/domain/leads/check-lead-status.ts";
import { createLead } from "../../src/domain/leads/create-lead.ts";
import { sendLeadMessage } from "../../src/domain/leads/send-lead-message.ts";
import { submitPlatformContact } from "../../src/domain/platform-contact/submit-platform-contact.ts";
import { anonymizeExpired, retentionCutoff } from "../../src/domain/privacy/anonymize-expired.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { setLogLevel } from "../../src/logging.ts";
import { pruneMailFiles } from "../../src/mail/outbox-files.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ANONYMIZED_EMAIL, ANONYMIZED_NAME, ANONYMIZED_TEXT } from "../../src/store/retention-repository.ts";
import { leadDeps } from "../../src/wiring.ts";

const run = promisify(execFile);
/** This environment without BASE_URL, which vitest sets to "/" (Vite's base): not a setting of ours. */
const childEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "BASE_URL"));
const root = path.resolve(import.meta.dirname, "../..");
let dataDir: string;
let app: App;
let clock = new Date("2024-09-01T08:00:00.000Z");
let abId: string;

beforeAll(async () => {
  setLogLevel("silent");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-retention-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 30, seed: 13, now: new Date("2024-08-01T00:00:00Z"), dataDir });
  db.$client.close();
  abId = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")).cases.active_contactable[0];
  app = createApp(loadConfig({ DATA_DIR: dataDir }), { now: () => clock });
}, 60_000);

afterAll(() => {
  app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("retentionCutoff", () => {
  it("goes back whole calendar months, clamped to the end of shorter months", async () => {
    expect(retentionCutoff(new Date("2026-11-22T07:00:00.000Z"), 24).toISOString()).toBe("2024-11-22T07:00:00.000Z");
    expect(retentionCutoff(new Date("2026-03-31T12:00:00.000Z"), 1).toISOString()).toBe("2026-02-28T12:00:00.000Z");
    expect(retentionCutoff(new Date("2024-02-29T00:00:00.000Z"), 12).toISOString()).toBe("2023-02-28T00:00:00.000Z");
    expect(retentionCutoff(new Date("2026-01-15T00:00:00.000Z"), 13).toISOString()).toBe("2024-12-15T00:00:00.000Z");
  });
});

describe("anonymizeExpired", () => {
  it("anonymises leads, their messages and platform contacts past the period, keeps what statistics need", async () => {
    const deps = { ...leadDeps(app), notifyOutbox: () => {} };
    const old = await createLead(
      deps,
      {
        ab_id: abId,
        contact_name: "Zéphyrine Quatremain",
        contact_email: "zephyrine@exemple-prive.fr",
        contact_phone: "+33 6 98 76 54 32",
        lead_type: "quote",
        message: "Texte privé",
        ai_context: "Contexte privé",
        intent_data: { urgency: "within_week", budget_range: "10 000 €", preferred_contact: "phone" },
        intent: "request_quote",
      },
      { caller: { agentId: "agt_stats", clientAddress: "127.0.0.1" }, idempotencyKey: "old-key" },
    );
    const message = await sendLeadMessage(deps, { trackingToken: old.trackingToken, message: "Message privé" });
    const contact = submitPlatformContact(
      { platformContacts: app.platformContacts, now: app.now, notifyOutbox: () => {} },
      {
        type: "support",
        name: "Octave",
        email: "octave@exemple-prive.fr",
        phone: "0612345678",
        company: "SARL",
        message: "Aide",
      },
    );
    const mailDir = app.config.mail.outboxDir;
    mkdirSync(mailDir, { recursive: true });
    const oldFile = path.join(mailDir, "old.eml");
    writeFileSync(oldFile, "From: x");
    utimesSync(oldFile, clock, clock);

    clock = new Date("2026-11-22T08:00:00.000Z");
    const recent = await createLead(
      deps,
      { ab_id: abId, contact_name: "Récent", contact_email: `r.${randomUUID()}@example.fr`, lead_type: "rdv" },
      { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
    );
    const recentFile = path.join(mailDir, "recent.eml");
    writeFileSync(recentFile, "From: y");

    const report = anonymizeExpired({
      retention: app.retention,
      now: app.now,
      retentionMonths: 24,
      pruneMailFiles: (cutoff) => pruneMailFiles(mailDir, cutoff),
    });
    expect(report).toMatchObject({
      cutoff: "2024-11-22T08:00:00.000Z",
      leads: 1,
      leadMessages: 1,
      platformContacts: 1,
      idempotencyKeys: 1,
      mailFiles: 1,
    });
    expect(report.dedupWindows).toBeGreaterThanOrEqual(1);
    expect(existsSync(oldFile)).toBe(false);
    expect(existsSync(recentFile)).toBe(true);

    const sqlite = app.db.$client;
    const lead = sqlite.prepare("SELECT * FROM leads WHERE lead_id = ?").get(old.leadId) as Record<string, unknown>;
    expect(lead).toMatchObject({
      lead_id: old.leadId,
      ab_id: abId,
      lead_type: "quote",
      agent_id: "agt_stats",
      contact_name: ANONYMIZED_NAME,
      contact_email: ANONYMIZED_EMAIL,
      contact_phone: null,
      message: ANONYMIZED_TEXT,
      ai_context: null,
      intent: null,
      metadata: null,
      anonymized_at: "2026-11-22T08:00:00.000Z",
    });
    expect(JSON.parse(String(lead.intent_data))).toEqual({ urgency: "within_week", preferred_contact: "phone" });
    expect(lead.created_at).toBe("2024-09-01T08:00:00.000Z");
    expect(
      sqlite
        .prepare("SELECT body, anonymized_at FROM lead_messages WHERE message_id = ?")
        .get(message.message.message_id),
    ).toEqual({ body: ANONYMIZED_TEXT, anonymized_at: "2026-11-22T08:00:00.000Z" });
    expect(
      sqlite
        .prepare("SELECT name, email, phone, company, message, type FROM platform_contacts WHERE contact_id = ?")
        .get(contact.contact_id),
    ).toEqual({
      name: ANONYMIZED_NAME,
      email: ANONYMIZED_EMAIL,
      phone: null,
      company: null,
      message: ANONYMIZED_TEXT,
      type: "support",
    });
    const everything = JSON.stringify(sqlite.prepare("SELECT * FROM leads WHERE lead_id = ?").get(old.leadId));
    expect(everything).not.toMatch(/exemple-prive|Zéphyrine|98 76|privé/);
    expect(
      sqlite
        .prepare("SELECT count(*) FROM lead_dedup_windows WHERE email_normalized LIKE '%exemple-prive%'")
        .pluck()
        .get(),
    ).toBe(0);

    const untouched = sqlite
      .prepare("SELECT contact_name, anonymized_at FROM leads WHERE lead_id = ?")
      .get(recent.leadId);
    expect(untouched).toEqual({ contact_name: "Récent", anonymized_at: null });

    // The token still answers the status (nothing personal in it); follow-ups are refused.
    expect(checkLeadStatus(deps, { trackingToken: old.trackingToken }).status.anonymized).toBe(true);
    try {
      await sendLeadMessage(deps, { trackingToken: old.trackingToken, message: "encore" });
      throw new Error("expected a refusal");
    } catch (failure) {
      expect(isServiceError(failure) && failure.code).toBe("CONFLICT");
    }

    // Idempotent.
    const again = anonymizeExpired({ retention: app.retention, now: app.now, retentionMonths: 24 });
    expect(again).toMatchObject({ leads: 0, leadMessages: 0, platformContacts: 0 });
  });

  it("anonymises orders past the period: the buyer's email, address and notes go, the sale stays", async () => {
    const sqlite = app.db.$client;
    const insert = sqlite.prepare(
      `INSERT INTO orders (order_id, ab_id, items, amount_cents, currency, fulfillment_type, delivery_address,
         user_email, customer_notes, status, payment_provider, created_at)
       VALUES (?, ?, '[{"product_id":"p1","quantity":2,"unit_cents":450}]', 900, 'EUR', 'delivery',
         '{"street":"12 rue Privée","city":"Lyon"}', 'acheteuse@exemple-prive.fr', 'Sonner deux fois', 'paid',
         'stripe', ?)`,
    );
    const oldOrder = randomUUID();
    const recentOrder = randomUUID();
    insert.run(oldOrder, abId, "2024-06-01T10:00:00.000Z");
    insert.run(recentOrder, abId, "2026-11-01T10:00:00.000Z");
    const counts = app.retention.anonymizeBefore({
      cutoff: "2024-11-22T08:00:00.000Z",
      now: "2026-11-22T08:00:00.000Z",
      idempotencyCutoff: "2026-11-21T08:00:00.000Z",
      sessionCutoff: "2026-10-23T08:00:00.000Z",
    });
    expect(counts.orders).toBe(1);
    const read = sqlite.prepare(
      "SELECT user_email, delivery_address, customer_notes, items, amount_cents, status, anonymized_at FROM orders WHERE order_id = ?",
    );
    expect(read.get(oldOrder)).toEqual({
      user_email: ANONYMIZED_EMAIL,
      delivery_address: null,
      customer_notes: ANONYMIZED_TEXT,
      items: '[{"product_id":"p1","quantity":2,"unit_cents":450}]',
      amount_cents: 900,
      status: "paid",
      anonymized_at: "2026-11-22T08:00:00.000Z",
    });
    expect(read.get(recentOrder)).toMatchObject({ user_email: "acheteuse@exemple-prive.fr", anonymized_at: null });
  });

  it("runs as `npm run retention` (jobs/retention.ts) and prints its counts", async () => {
    const { stdout } = await run(process.execPath, ["jobs/retention.ts"], {
      cwd: root,
      env: { ...childEnv(), DATA_DIR: dataDir, LOG_LEVEL: "silent", LEAD_RETENTION_MONTHS: "1" },
    });
    expect(stdout).toMatch(
      /^retention \(before .*\): \d+ leads, \d+ messages, \d+ platform contacts, \d+ orders anonymised/,
    );
  });
});

describe("what retention leaves on disk", () => {
  it("leaves no erased text readable in the database file or its WAL, and keeps DATA_DIR and its databases private", async () => {
    const deps = { ...leadDeps(app), notifyOutbox: () => {} };
    const secret = `Ligne-privee-${randomUUID()}`;
    clock = new Date("2024-10-01T08:00:00.000Z");
    // Enough leads and follow-ups that pages fill, split and move, as on a real server.
    for (let index = 0; index < 150; index++) {
      const lead = await createLead(
        deps,
        {
          ab_id: abId,
          contact_name: "Personne Privée",
          contact_email: `p.${index}.${randomUUID()}@example.fr`,
          lead_type: "quote",
          message: `${secret} ${index} ${"détails ".repeat(index % 40)}`,
        },
        { caller: { agentId: null, clientAddress: "127.0.0.2" }, idempotencyKey: null },
      );
      if (index % 3 === 0)
        await sendLeadMessage(deps, { trackingToken: lead.trackingToken, message: `${secret} suite ${index}` });
    }
    const file = path.join(dataDir, "abeille.db");
    const onDisk = () =>
      [file, `${file}-wal`]
        .filter((candidate) => existsSync(candidate))
        .map((candidate) => readFileSync(candidate))
        .some((bytes) => bytes.includes(Buffer.from(secret, "utf8")));
    expect(onDisk()).toBe(true);

    clock = new Date("2026-12-01T08:00:00.000Z");
    const report = anonymizeExpired({ retention: app.retention, now: app.now, retentionMonths: 24 });
    expect(report.leads).toBe(150);
    expect(report.leadMessages).toBe(50);
    expect(onDisk()).toBe(false);

    const mode = (target: string) => statSync(target).mode & 0o777;
    expect([mode(dataDir), mode(file), mode(`${file}-shm`), mode(path.join(dataDir, "limits.db"))]).toEqual([
      0o700, 0o600, 0o600, 0o600,
    ]);
  });
});

describe("startRetentionSchedule", () => {
  it("schedules the run daily at 03:17 Paris time", async () => {
    const task = startRetentionSchedule(app);
    try {
      expect(RETENTION_CRON).toBe("17 3 * * *");
      const next = task.getNextRun();
      expect(next).not.toBeNull();
      const paris = new Intl.DateTimeFormat("fr-FR", { timeZone: "Europe/Paris", hour: "2-digit", minute: "2-digit" });
      expect(paris.format(next as Date)).toBe("03:17");
      expect((next as Date).getTime() - Date.now()).toBeLessThanOrEqual(24 * 3_600_000 + 3_600_000);
    } finally {
      await task.stop();
      await task.destroy();
    }
  });
});
