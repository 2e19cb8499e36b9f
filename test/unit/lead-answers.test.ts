/**
 * The merchant's side of its leads (issue 25) against a real SQLite database, without HTTP: the
 * answer recorded with its outbox row and emailed to the person, handled/declined, the limits, a
 * lead of another listing, what check_lead_status and /suivi show, and retention.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { checkLeadStatus } from "../../src/domain/leads/check-lead-status.ts";
import { createLead } from "../../src/domain/leads/create-lead.ts";
import {
  findMerchantLead,
  listMerchantLeads,
  MERCHANT_LEADS_PAGE_SIZE,
} from "../../src/domain/leads/merchant-leads.ts";
import {
  LEAD_ANSWERS_PER_LISTING_HOURLY,
  type ListingAccess,
  MAX_ANSWERS_PER_LEAD,
  MERCHANT_LEAD_NOT_FOUND_MESSAGE,
  nextMerchantStatus,
  respondToLead,
} from "../../src/domain/leads/respond-to-lead.ts";
import { sendLeadMessage } from "../../src/domain/leads/send-lead-message.ts";
import { anonymizeExpired } from "../../src/domain/privacy/anonymize-expired.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { setLogLevel } from "../../src/logging.ts";
import { compose, type DispatchDeps, dispatchDueMessages } from "../../src/mail/dispatch-outbox.ts";
import type { MailTransport, OutgoingMail } from "../../src/mail/transport.ts";
import { renderTrackingPage } from "../../src/publish/lead-tracking.ts";
import { LEAD_ANSWER_MAX, type LeadResponse, leadResponseSchema } from "../../src/schemas/leads.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ANONYMIZED_TEXT } from "../../src/store/retention-repository.ts";
import { leadDeps } from "../../src/wiring.ts";

let dataDir: string;
let app: App;
let clock = new Date("2026-11-22T10:00:00.000Z");
let abId: string;
let otherAbId: string;
let merchantEmail: string;
let notified = 0;

beforeAll(async () => {
  setLogLevel("silent");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-lead-answers-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 40, seed: 11, now: new Date("2026-11-01T00:00:00Z"), dataDir });
  db.$client.close();
  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8"));
  [abId, otherAbId] = roster.cases.active_contactable;
  app = createApp(loadConfig({ DATA_DIR: dataDir }), { now: () => clock });
  merchantEmail = app.db.$client.prepare("SELECT email FROM merchants WHERE ab_id = ?").pluck().get(abId) as string;
}, 60_000);

afterAll(() => {
  app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const listing = (id = abId): ListingAccess => ({ abId: id, actor: `merchant:claim-${id}` });
const respondDeps = () => ({
  leads: app.leads,
  limiter: app.access.limiter,
  now: app.now,
  notifyOutbox: () => void notified++,
});
const response = (fields: Record<string, unknown>): LeadResponse => leadResponseSchema.parse(fields);

async function newLead(to = abId, message = "Bonjour, un devis pour samedi ?") {
  const created = await createLead(
    { ...leadDeps(app), notifyOutbox: () => {} },
    {
      ab_id: to,
      contact_name: "Camille Martin",
      contact_email: `camille.${randomUUID()}@example.fr`,
      lead_type: "quote",
      message,
    },
    { caller: { agentId: null, clientAddress: `198.51.100.${Math.floor(Math.random() * 250)}` }, idempotencyKey: null },
  );
  return created;
}

const status = async (trackingToken: string) =>
  (
    await checkLeadStatus(
      { leads: app.leads, trackingTokens: app.trackingTokens, baseUrl: "https://abeille.test" },
      {
        trackingToken,
      },
    )
  ).status;

const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (failure) {
    if (isServiceError(failure)) return failure;
    throw failure;
  }
  throw new Error("expected a ServiceError");
};

function recordingTransport(): MailTransport & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return {
    kind: "smtp",
    sent,
    async send(mail) {
      sent.push(mail);
      return {};
    },
    reset() {},
    close() {},
  };
}
const dispatchDeps = (transport: MailTransport): DispatchDeps => ({
  outbox: app.outbox,
  leads: app.leads,
  platformContacts: app.platformContacts,
  transport,
  platformTeamEmail: "equipe@abeille.test",
  leadEmailConfirmations: app.leadEmailConfirmations,
  leadEmailTokens: app.leadEmailTokens,
  spaceNotices: app.spaceNotices,
  baseUrl: app.config.baseUrl,
  now: () => clock,
  batchSize: 10_000,
});
const answersRows = (leadId: string) =>
  app.db.$client
    .prepare(
      "SELECT direction, body, status, author FROM lead_messages WHERE lead_id = ? AND direction = 'merchant_to_person'",
    )
    .all(leadId);

describe("the response form's schema", () => {
  it("needs an answer to answer, takes none to close, counts an empty answer as none and bounds its length", () => {
    expect(leadResponseSchema.safeParse({ outcome: "answered", answer: "  " }).error?.issues).toMatchObject([
      { path: ["answer"], message: "is required to answer" },
    ]);
    expect(response({ outcome: "handled", answer: "" })).toEqual({ outcome: "handled" });
    expect(response({ outcome: "declined", answer: " Désolé, complet. " })).toEqual({
      outcome: "declined",
      answer: "Désolé, complet.",
    });
    expect(leadResponseSchema.safeParse({ outcome: "answered", answer: "é".repeat(LEAD_ANSWER_MAX) }).success).toBe(
      true,
    );
    expect(
      leadResponseSchema.safeParse({ outcome: "answered", answer: "é".repeat(LEAD_ANSWER_MAX + 1) }).error?.issues,
    ).toMatchObject([{ path: ["answer"], message: `must be at most ${LEAD_ANSWER_MAX} characters` }]);
    expect(leadResponseSchema.safeParse({ outcome: "archived" }).error?.issues).toMatchObject([
      { path: ["outcome"], message: "must be one of: answered, handled, declined" },
    ]);
  });

  it("keeps a lead the merchant closed closed when it answers again; closing decides", () => {
    expect(nextMerchantStatus(null, "answered")).toBe("answered");
    expect(nextMerchantStatus("handled", "answered")).toBe("handled");
    expect(nextMerchantStatus("declined", "answered")).toBe("declined");
    expect(nextMerchantStatus("answered", "handled")).toBe("handled");
    expect(nextMerchantStatus("declined", "handled")).toBe("handled");
  });
});

describe("respondToLead", () => {
  it("records the answer, emails it to the person with the merchant as Reply-To, and check_lead_status shows it", async () => {
    const lead = await newLead();
    expect((await status(lead.trackingToken)).merchant_response).toEqual({
      status: "none",
      updated_at: null,
      answers: [],
    });
    const before = notified;
    const result = await respondToLead(respondDeps(), listing(), lead.leadId, {
      outcome: "answered",
      answer: "Bonjour,\nc'est possible samedi à 10 h.",
    });
    expect(result).toMatchObject({ leadId: lead.leadId, status: "answered", answersCount: 1 });
    expect(notified).toBe(before + 1);
    expect(answersRows(lead.leadId)).toEqual([
      {
        direction: "merchant_to_person",
        body: "Bonjour,\nc'est possible samedi à 10 h.",
        status: "pending",
        author: `merchant:claim-${abId}`,
      },
    ]);
    expect(await app.outbox.findBySubject(result.answerId as string)).toMatchObject([
      { kind: "lead_answer", status: "pending" },
    ]);

    const queued = await status(lead.trackingToken);
    expect(queued.merchant_response).toEqual({
      status: "answered",
      updated_at: clock.toISOString(),
      answers: [
        {
          answer_id: result.answerId,
          message: "Bonjour,\nc'est possible samedi à 10 h.",
          created_at: clock.toISOString(),
          delivery: "queued",
        },
      ],
    });
    // The merchant's answer is not one of the agent's follow-ups.
    expect(queued).toMatchObject({ messages_count: 0, messages_remaining: 20 });

    const transport = recordingTransport();
    await dispatchDueMessages(dispatchDeps(transport));
    const mail = transport.sent.find(
      (sent) => sent.headers?.["X-Abeille-Lead-Id"] === lead.leadId && sent.to !== merchantEmail,
    );
    const merchantName = app.db.$client
      .prepare("SELECT business_name FROM merchants WHERE ab_id = ?")
      .pluck()
      .get(abId);
    expect(mail?.to).toMatch(/^camille\..+@example\.fr$/);
    expect(mail?.replyTo).toEqual({ name: merchantName, address: merchantEmail });
    expect(mail?.subject).toBe(`Réponse de ${merchantName} à votre demande de devis`);
    expect(mail?.text).toContain("Bonjour,\nc'est possible samedi à 10 h.");
    expect(mail?.text).toContain("Bonjour, un devis pour samedi ?");
    expect((await status(lead.trackingToken)).merchant_response.answers[0]?.delivery).toBe("sent");

    // An agent's follow-up after the answer is still follow-up n° 1 for the merchant.
    const followUp = await sendLeadMessage(
      { ...leadDeps(app), notifyOutbox: () => {} },
      { trackingToken: lead.trackingToken, message: "Merci, samedi 10 h me va." },
    );
    expect(followUp.message.messages_count).toBe(1);
    expect((await app.leads.findFollowUpForDelivery(followUp.message.message_id))?.position).toBe(1);
    expect(await app.leads.findFollowUpForDelivery(result.answerId as string)).toBeNull();
  });

  it("emails an answer without Reply-To when the merchant has no lead address, and says where to reach it", async () => {
    const lead = await newLead();
    const { answerId } = await respondToLead(respondDeps(), listing(), lead.leadId, {
      outcome: "answered",
      answer: "Oui, nous livrons.",
    });
    const row = (await app.outbox.findBySubject(answerId as string))[0];
    if (!row) throw new Error("no outbox row for the answer");
    const setEmail = app.db.$client.prepare("UPDATE merchants SET email = ? WHERE ab_id = ?");
    setEmail.run(null, abId);
    try {
      const mail = await compose(dispatchDeps(recordingTransport()), row);
      expect(mail.replyTo).toBeUndefined();
      expect(mail.text).toContain(`Pour lui répondre, utilisez les coordonnées de sa fiche sur Abeille (${abId}).`);
    } finally {
      setEmail.run(merchantEmail, abId);
    }
  });

  it("marks a lead handled or declined without an answer (no email), and an answer later leaves it closed", async () => {
    const lead = await newLead();
    const before = notified;
    clock = new Date(clock.getTime() + 60_000);
    expect(await respondToLead(respondDeps(), listing(), lead.leadId, response({ outcome: "declined" }))).toEqual({
      leadId: lead.leadId,
      status: "declined",
      answerId: null,
      answersCount: 0,
    });
    expect(notified).toBe(before);
    expect(answersRows(lead.leadId)).toEqual([]);
    expect((await status(lead.trackingToken)).merchant_response).toEqual({
      status: "declined",
      updated_at: clock.toISOString(),
      answers: [],
    });
    const answered = await respondToLead(respondDeps(), listing(), lead.leadId, {
      outcome: "answered",
      answer: "Nous sommes complets ce mois-ci, désolés.",
    });
    expect(answered).toMatchObject({ status: "declined", answersCount: 1 });
    expect(await respondToLead(respondDeps(), listing(), lead.leadId, response({ outcome: "handled" }))).toMatchObject({
      status: "handled",
      answersCount: 1,
    });
    expect(
      app.db.$client.prepare("SELECT merchant_status_by FROM leads WHERE lead_id = ?").pluck().get(lead.leadId),
    ).toBe(`merchant:claim-${abId}`);
  });

  it("answers NOT_FOUND for another listing's lead and an unknown lead, the same way, and writes nothing", async () => {
    const lead = await newLead(otherAbId);
    for (const leadId of [lead.leadId, randomUUID()]) {
      const refused = await failureOf(
        respondToLead(respondDeps(), listing(), leadId, { outcome: "answered", answer: "Je prends !" }),
      );
      expect(refused.code).toBe("NOT_FOUND");
      expect(refused.message).toBe(MERCHANT_LEAD_NOT_FOUND_MESSAGE);
    }
    expect(answersRows(lead.leadId)).toEqual([]);
    expect((await status(lead.trackingToken)).merchant_response.status).toBe("none");
    await expect(findMerchantLead(app, listing(), lead.leadId)).rejects.toThrow(MERCHANT_LEAD_NOT_FOUND_MESSAGE);
    expect((await findMerchantLead(app, listing(otherAbId), lead.leadId)).lead.leadId).toBe(lead.leadId);
  });

  it(`takes at most ${MAX_ANSWERS_PER_LEAD} answers per lead (CONFLICT beyond, nothing written)`, async () => {
    const lead = await newLead();
    for (let n = 1; n <= MAX_ANSWERS_PER_LEAD; n++) {
      await respondToLead(respondDeps(), listing(), lead.leadId, { outcome: "answered", answer: `Réponse ${n}` });
    }
    const refused = await failureOf(
      respondToLead(respondDeps(), listing(), lead.leadId, { outcome: "answered", answer: "Une de trop" }),
    );
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toBe(
      `This lead already carries ${MAX_ANSWERS_PER_LEAD} answers, the most it accepts; go on by email with the person`,
    );
    expect(answersRows(lead.leadId)).toHaveLength(MAX_ANSWERS_PER_LEAD);
    // Closing it still works: it emails nobody.
    expect(await respondToLead(respondDeps(), listing(), lead.leadId, response({ outcome: "handled" }))).toMatchObject({
      status: "handled",
      answersCount: MAX_ANSWERS_PER_LEAD,
    });
  });

  it(`limits a listing to ${LEAD_ANSWERS_PER_LISTING_HOURLY} answers an hour, whoever writes them; closing is not counted`, async () => {
    await app.access.limiter.clear();
    const leads = await Promise.all([1, 2, 3, 4].map(() => newLead()));
    let sent = 0;
    for (const lead of leads) {
      for (let n = 0; n < 8 && sent < LEAD_ANSWERS_PER_LISTING_HOURLY; n++, sent++) {
        await respondToLead(respondDeps(), listing(), lead.leadId, { outcome: "answered", answer: `Réponse ${sent}` });
      }
    }
    const last = leads[3]?.leadId as string;
    const refused = await failureOf(
      respondToLead(respondDeps(), { abId, actor: "merchant:another-claim" }, last, {
        outcome: "answered",
        answer: "Encore une",
      }),
    );
    expect(refused.code).toBe("RATE_LIMITED");
    expect(refused.details.retryAfterSeconds).toBe(120);
    expect(await respondToLead(respondDeps(), listing(), last, response({ outcome: "handled" }))).toMatchObject({
      status: "handled",
    });
    // Another listing has its own budget.
    const other = await newLead(otherAbId);
    expect(
      await respondToLead(respondDeps(), listing(otherAbId), other.leadId, { outcome: "answered", answer: "Oui" }),
    ).toMatchObject({ status: "answered" });
    clock = new Date(clock.getTime() + 3_600_000);
    await app.access.limiter.clear();
  });
});

describe("the merchant's list of leads", () => {
  it("shows its own leads only, newest first, by pages", async () => {
    const third = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")).cases.active_contactable[2];
    const created: string[] = [];
    for (let n = 0; n <= MERCHANT_LEADS_PAGE_SIZE; n++) {
      clock = new Date(clock.getTime() + 1000);
      created.push((await newLead(third, `Demande ${n}`)).leadId);
    }
    await newLead(abId);
    const newestFirst = created.reverse();
    const first = await listMerchantLeads(app, listing(third), 1);
    expect(first).toMatchObject({ page: 1, pages: 2, total: MERCHANT_LEADS_PAGE_SIZE + 1 });
    expect(first.leads.map((lead) => lead.leadId)).toEqual(newestFirst.slice(0, MERCHANT_LEADS_PAGE_SIZE));
    expect(first.leads[0]).toMatchObject({
      abId: third,
      leadType: "quote",
      contactName: "Camille Martin",
      message: `Demande ${MERCHANT_LEADS_PAGE_SIZE}`,
      channel: "api",
      merchantStatus: null,
      followUpsCount: 0,
      answersCount: 0,
      anonymizedAt: null,
    });
    const second = await listMerchantLeads(app, listing(third), 2);
    expect(second.leads.map((lead) => lead.leadId)).toEqual(newestFirst.slice(MERCHANT_LEADS_PAGE_SIZE));
    expect((await listMerchantLeads(app, listing(third), 0)).page).toBe(1);
    expect(await listMerchantLeads(app, listing(third), 3)).toMatchObject({ page: 3, pages: 2, leads: [] });
  });
});

describe("retention", () => {
  it("anonymises the merchant's answers with their lead: the status keeps the dates, not the text", async () => {
    clock = new Date("2026-11-23T10:00:00.000Z");
    const lead = await newLead();
    const answered = await respondToLead(respondDeps(), listing(), lead.leadId, {
      outcome: "handled",
      answer: "Votre devis : 480 € TTC, Mme Martin, 12 rue des Lilas.",
    });
    await dispatchDueMessages(dispatchDeps(recordingTransport()));
    clock = new Date("2028-12-01T10:00:00.000Z");
    await anonymizeExpired({ retention: app.retention, now: app.now, retentionMonths: 24, pruneMailFiles: () => 0 });
    expect(answersRows(lead.leadId)).toEqual([
      { direction: "merchant_to_person", body: ANONYMIZED_TEXT, status: "sent", author: `merchant:claim-${abId}` },
    ]);
    const after = await status(lead.trackingToken);
    expect(after.anonymized).toBe(true);
    expect(after.merchant_response).toEqual({
      status: "handled",
      updated_at: "2026-11-23T10:00:00.000Z",
      answers: [
        { answer_id: answered.answerId, message: null, created_at: "2026-11-23T10:00:00.000Z", delivery: "sent" },
      ],
    });
    const page = Buffer.from(renderTrackingPage({ kind: "found", status: after }).body).toString();
    expect(page).not.toContain("480 €");
    expect(page).toContain("Le texte de cette réponse a été effacé au terme de sa durée de conservation.");
    const refused = await failureOf(
      respondToLead(respondDeps(), listing(), lead.leadId, { outcome: "answered", answer: "Encore là ?" }),
    );
    expect(refused.code).toBe("CONFLICT");
    expect((await findMerchantLead(app, listing(), lead.leadId)).lead).toMatchObject({
      contactName: "Anonymisé",
      anonymizedAt: "2028-12-01T10:00:00.000Z",
    });
  });
});

describe("/suivi", () => {
  it("shows the merchant's status and answers, escaped, with its line breaks kept by the page's style", async () => {
    clock = new Date("2028-12-02T10:00:00.000Z");
    const lead = await newLead();
    const before = Buffer.from(
      renderTrackingPage({ kind: "found", status: await status(lead.trackingToken) }).body,
    ).toString();
    expect(before).toContain("Le commerçant n'a pas encore répondu depuis son espace Abeille.");
    await respondToLead(respondDeps(), listing(), lead.leadId, {
      outcome: "answered",
      answer: "Oui <b>samedi</b>,\nà 10 h.",
    });
    const page = Buffer.from(
      renderTrackingPage({ kind: "found", status: await status(lead.trackingToken) }).body,
    ).toString();
    expect(page).toContain("Le commerçant a répondu à votre demande, le ");
    expect(page).toContain('<blockquote class="answer-text">Oui &lt;b&gt;samedi&lt;/b&gt;,\nà 10 h.</blockquote>');
    expect(page).not.toContain("<b>samedi</b>");
  });
});
