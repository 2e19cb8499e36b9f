/**
 * Lead delivery through a real SMTP server (smtp-server, started here): the first delivery is
 * refused, the outbox retries after its backoff and the lead turns delivered; a message refused
 * at every attempt turns the lead failed. The worker runs in this process on its own App with a
 * clock the test moves forward.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { setLogLevel } from "../../src/logging.ts";
import { RETRY_DELAYS_MS } from "../../src/mail/backoff.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { subjectOf, textPart } from "../helpers/eml.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
const refusals: string[] = [];
const refuse = { rcpt: 0, data: 0, rcptFor: null as string | null };
let smtp: SMTPServer;
let server: TestServer;
let app: App;
let worker: OutboxWorker;
let offsetMs = 0;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.rcpt > 0 || (refuse.rcptFor !== null && address.address === refuse.rcptFor)) {
        refuse.rcpt = Math.max(0, refuse.rcpt - 1);
        refusals.push("rcpt");
        const error = new Error("4.3.2 Mailbox temporarily unavailable, try again later") as Error & {
          responseCode: number;
        };
        error.responseCode = 451;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refuse.data > 0) {
          refuse.data -= 1;
          refusals.push("data");
          const error = new Error("4.7.0 Temporary failure, retry later") as Error & { responseCode: number };
          error.responseCode = 452;
          callback(error);
          return;
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const { port } = smtp.server.address() as AddressInfo;
  server = await startTestServer({
    count: 120,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: "Abeille <leads@abeille.test>",
      PLATFORM_TEAM_EMAIL: "equipe@abeille.test",
      RATE_LIMIT_ANON_HOURLY: "100000",
    },
  });
  setLogLevel("silent");
  app = createApp(loadConfig(), { now: () => new Date(Date.now() + offsetMs) });
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
});

afterAll(async () => {
  await worker?.stop();
  app?.close();
  await server?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

const postJson = async (pathName: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await server.get(pathName, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as JsonObject };
};

const leadStatus = async (leadId: string, token: string) =>
  (await server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": token } })).body.data as JsonObject;

const outboxRows = (subjectId: string) => {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  const rows = db.prepare("SELECT * FROM outbox WHERE subject_id = ?").all(subjectId) as JsonObject[];
  db.close();
  return rows;
};

const merchantEmail = (abId: string) => {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  const email = db.prepare("SELECT email FROM merchants WHERE ab_id = ?").pluck().get(abId) as string;
  db.close();
  return email;
};

describe("lead delivery over SMTP", () => {
  it("retries a refused delivery after the backoff and marks the lead delivered", async () => {
    const abId = first("active_contactable");
    refuse.rcpt = 1;
    const created = await postJson("/api/contact/brick", {
      ab_id: abId,
      contact_name: "Camille Martin",
      contact_email: "camille.martin@example.fr",
      contact_phone: "+33 6 12 34 56 78",
      lead_type: "quote",
      message: "Bonjour, nous organisons un séminaire et souhaitons une proposition.",
      ai_context: "L'utilisatrice compare trois prestataires.",
      intent_data: { urgency: "within_month", budget_range: "5 000 à 8 000 €", preferred_contact: "phone" },
    });
    expect(created.status).toBe(201);
    const { lead_id: leadId, tracking_token: token } = created.body;

    await worker.runNow();
    expect(refusals).toEqual(["rcpt"]);
    expect(received).toHaveLength(0);
    const [pending] = outboxRows(leadId);
    expect(pending).toMatchObject({ kind: "lead_notification", status: "pending", attempts: 1 });
    expect(pending?.last_error).toMatch(/451/);
    expect(pending?.last_error).not.toMatch(/@/);
    const due = Date.parse(pending?.next_attempt_at) - Date.now();
    expect(due).toBeGreaterThan(RETRY_DELAYS_MS[0] - 5_000);
    expect(due).toBeLessThanOrEqual(RETRY_DELAYS_MS[0] + 1_000);
    expect((await leadStatus(leadId, token)).tracking_status).toBe("received");

    await worker.runNow(); // not due yet
    expect(received).toHaveLength(0);

    offsetMs += RETRY_DELAYS_MS[0] + 1_000;
    await worker.runNow();
    expect(received).toHaveLength(1);
    const [sent] = outboxRows(leadId);
    expect(sent).toMatchObject({ status: "sent", attempts: 2 });
    const status = await leadStatus(leadId, token);
    expect(status.tracking_status).toBe("delivered");
    expect(status.delivered_at).not.toBeNull();

    const mail = received[0] as Received;
    expect(mail.to).toEqual([merchantEmail(abId)]);
    expect(mail.from).toBe("leads@abeille.test");
    expect(subjectOf(mail.raw)).toBe("Nouvelle demande de devis via Abeille");
    expect(mail.raw).toMatch(/^Reply-To: Camille Martin <camille\.martin@example\.fr>\r?$/m);
    expect(mail.raw).toMatch(new RegExp(`^Message-ID: <${sent?.message_id}@abeille\\.test>`, "m"));
    expect(mail.raw).toMatch(/^Content-Type: text\/html/m);
    expect(mail.raw).not.toMatch(/<img|src=/i);
    const text = textPart(mail.raw);
    expect(text).toContain("Bonjour,");
    expect(text).toContain("Nom : Camille Martin");
    expect(text).toContain("Téléphone : +33 6 12 34 56 78");
    expect(text).toContain("Moyen de contact préféré : Téléphone");
    expect(text).toContain("Urgence : Dans le mois");
    expect(text).toContain("Budget : 5 000 à 8 000 €");
    expect(text).toContain("Contexte transmis par le logiciel qui a envoyé la demande");
    expect(text).toContain("Comment répondre");
    expect(text).toContain(leadId);
  });

  it("retries a delivery refused at DATA", async () => {
    refuse.data = 1;
    const before = received.length;
    const created = await postJson("/api/contact/brick", {
      ab_id: first("active_contactable"),
      contact_name: "Paul Leroy",
      contact_email: "paul.leroy@example.fr",
      lead_type: "rdv",
    });
    await worker.runNow();
    expect(refusals.at(-1)).toBe("data");
    expect(outboxRows(created.body.lead_id)[0]).toMatchObject({ status: "pending", attempts: 1 });
    offsetMs += RETRY_DELAYS_MS[0] + 1_000;
    await worker.runNow();
    expect(received.length).toBe(before + 1);
    expect(subjectOf(received.at(-1)?.raw ?? "")).toBe("Nouvelle demande de rendez-vous via Abeille");
    expect((await leadStatus(created.body.lead_id, created.body.tracking_token)).tracking_status).toBe("delivered");
  });

  it("marks the lead failed once every attempt was refused (six attempts over the backoff schedule)", async () => {
    const abId = server.roster.cases.active_contactable?.[1] ?? first("active_contactable");
    refuse.rcptFor = merchantEmail(abId);
    const created = await postJson("/api/contact/brick", {
      ab_id: abId,
      contact_name: "Nina Petit",
      contact_email: "nina.petit@example.fr",
      lead_type: "contact",
    });
    const { lead_id: leadId, tracking_token: token } = created.body;
    await worker.runNow();
    for (const delay of RETRY_DELAYS_MS) {
      expect((await leadStatus(leadId, token)).tracking_status).toBe("received");
      offsetMs += delay + 1_000;
      await worker.runNow();
    }
    const [row] = outboxRows(leadId);
    expect(row).toMatchObject({ status: "failed", attempts: 6 });
    const status = await leadStatus(leadId, token);
    expect(status.tracking_status).toBe("failed");
    expect(status.failed_at).not.toBeNull();
    refuse.rcptFor = null;
  });

  it("delivers follow-up messages and platform messages through the same outbox", async () => {
    const created = await postJson("/api/contact/brick", {
      ab_id: first("active_contactable"),
      contact_name: "Hugo Bernard",
      contact_email: "hugo.bernard@example.fr",
      lead_type: "estimation",
    });
    await worker.runNow();
    const sentMessage = await postJson(
      `/api/leads/${created.body.lead_id}/messages`,
      { message: "Pouvez-vous passer mardi matin ?" },
      { "x-tracking-token": created.body.tracking_token },
    );
    expect(sentMessage.status).toBe(201);
    await worker.runNow();
    const followUp = received.at(-1) as Received;
    expect(subjectOf(followUp.raw)).toBe("Nouveau message au sujet d'une demande d'estimation reçue via Abeille");
    expect(textPart(followUp.raw)).toContain("Pouvez-vous passer mardi matin ?");
    expect(outboxRows(sentMessage.body.data.message_id)[0]).toMatchObject({ kind: "lead_follow_up", status: "sent" });

    const contact = await postJson("/api/contact/platform", {
      type: "partnership",
      name: "Agence Soleil",
      email: "contact@soleil.example",
      company: "Soleil SAS",
      message: "Nous aimerions proposer un partenariat.",
    });
    expect(contact.status).toBe(201);
    await worker.runNow();
    const note = received.at(-1) as Received;
    expect(note.to).toEqual(["equipe@abeille.test"]);
    expect(subjectOf(note.raw)).toBe("[Abeille] Nouveau message : partenariat (Soleil SAS)");
    expect(note.raw).toMatch(/^Reply-To: Agence Soleil <contact@soleil\.example>/m);
    expect(outboxRows(contact.body.contact_id)[0]).toMatchObject({ kind: "platform_contact", status: "sent" });
  });

  it("is woken by the commit itself (nudge), without waiting for the poll interval", async () => {
    const before = received.length;
    await postJson("/api/contact/brick", {
      ab_id: first("active_contactable"),
      contact_name: "Inès Garcia",
      contact_email: `ines.${Date.now()}@example.fr`,
      lead_type: "quote",
    });
    const deadline = Date.now() + 15_000;
    while (received.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received.length).toBe(before + 1);
  });
});
