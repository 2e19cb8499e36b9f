/**
 * The leads of a listing in the merchant space (issue 25), over HTTP against the running server,
 * signed in through a real OpenID provider configured like ProConnect: the list and one lead,
 * the answer (-> the .eml to the person -> /suivi -> check_lead_status, REST and MCP), handled
 * and declined, and one security test per rule: CSRF on every POST, another merchant's lead and
 * listing are 404, signed out is nothing, an agent's key opens nothing, answers are limited.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { LEAD_ANSWERS_PER_LISTING_HOURLY } from "../../src/domain/leads/respond-to-lead.ts";
import { anonymizeExpired } from "../../src/domain/privacy/anonymize-expired.ts";
import { setLogLevel } from "../../src/logging.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { LEAD_ANSWER_MAX } from "../../src/schemas/leads.ts";
import { registeredKey } from "../helpers/agents.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import { sendLead as sendLeadTo } from "../helpers/leads.ts";
import { type SignedIn, signInThroughProConnect, startProConnect, type TestProConnect } from "../helpers/proconnect.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let provider: TestProConnect;
let server: TestServer;
let app: App;
let worker: OutboxWorker;
let abId: string;
let otherAbId: string;
let merchant: SignedIn;
let otherMerchant: SignedIn;

const siretOf = (id: string) =>
  app.db.$client.prepare("SELECT siret FROM merchants WHERE ab_id = ?").pluck().get(id) as string;

async function claim(person: SignedIn, id: string) {
  const response = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: id } });
  expect(response.status).toBe(303);
}

const sendLead = (to: string, name: string, email: string, message: string) =>
  sendLeadTo(server, to, { contact_name: name, contact_email: email, message });

const answersOf = (leadId: string) =>
  app.db.$client
    .prepare("SELECT body FROM lead_messages WHERE lead_id = ? AND direction = 'merchant_to_person'")
    .pluck()
    .all(leadId);

beforeAll(async () => {
  provider = await startProConnect();
  server = await startTestServer({
    count: 60,
    env: { ...provider.env, SMTP_URL: "", SMTP_HOST: "", RATE_LIMIT_ANON_HOURLY: "100000" },
  });
  app = createApp(loadConfig());
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
  [abId, otherAbId] = server.roster.cases.active_contactable as [string, string];
  merchant = await signInThroughProConnect(server.url, provider, {
    siret: siretOf(abId),
    siren: siretOf(abId).slice(0, 9),
    email: "gerant@exemple-commerce.fr",
    givenName: "Paul",
    usualName: "Gérant",
  });
  await claim(merchant, abId);
  otherMerchant = await signInThroughProConnect(server.url, provider, {
    siret: siretOf(otherAbId),
    siren: siretOf(otherAbId).slice(0, 9),
    email: "autre@exemple-commerce.fr",
  });
  await claim(otherMerchant, otherAbId);
}, 120_000);

afterAll(async () => {
  setLogLevel("silent");
  await worker?.stop();
  app?.close();
  await server?.close();
  await provider?.close();
});

const ANSWER = "Bonjour,\nnous passons mardi à 14 h ; comptez 90 € pour le déplacement.";

describe("a listing's leads in the merchant space", () => {
  it("lists them newest first, opens one, answers it: the person gets the email, /suivi and check_lead_status show it", async () => {
    const older = await sendLead(abId, "Hugo Perrin", "hugo.perrin@exemple-prive.fr", "Un devis pour un chauffe-eau ?");
    const lead = await sendLead(abId, "Inès Carpentier", "ines.carpentier@exemple-prive.fr", "Fuite sous l'évier.");
    await worker.runNow();

    const list = await merchant.fetch(`/pro/${abId}/demandes`);
    expect(list.status).toBe(200);
    expect(list.headers.get("cache-control")).toBe("no-store");
    const listPage = await list.text();
    const newer = listPage.indexOf(`/pro/${abId}/demandes/${lead.leadId}`);
    expect(newer).toBeGreaterThan(0);
    expect(listPage.indexOf(`/pro/${abId}/demandes/${older.leadId}`)).toBeGreaterThan(newer);
    expect(listPage).toContain("Inès Carpentier : « Fuite sous l&#39;évier. »");
    expect(listPage).toContain('<strong class="pro-lead-status">À traiter</strong> · reçue aussi par e-mail');

    const one = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`);
    expect(one.status).toBe(200);
    const onePage = await one.text();
    expect(onePage).toContain('<a href="mailto:ines.carpentier@exemple-prive.fr">ines.carpentier@exemple-prive.fr</a>');
    expect(onePage).toContain(`<input type="hidden" name="csrf" value="${merchant.csrfToken}">`);
    expect(onePage).toContain(
      `<form class="pro-form" method="post" action="/pro/${abId}/demandes/${lead.leadId}" novalidate>`,
    );

    const posted = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: ANSWER, outcome: "answered" },
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`/pro/${abId}/demandes/${lead.leadId}?fait=answered`);
    const after = await (await merchant.fetch(posted.headers.get("location") as string)).text();
    expect(after).toContain(
      '<p class="lead-status lead-success" role="status">Votre réponse est enregistrée ; elle part par e-mail à la personne dans quelques instants.</p>',
    );
    expect(after).toContain(`<blockquote class="answer-text">${ANSWER.replace("'", "&#39;")}</blockquote>`);

    await worker.runNow();
    const outboxDir = path.join(server.dataDir, "outbox");
    const files = readdirSync(outboxDir).filter((name) => name.includes("-lead_answer-"));
    expect(files).toHaveLength(1);
    const raw = readFileSync(path.join(outboxDir, files[0] as string), "utf8");
    expect(raw).toMatch(/^To: ines\.carpentier@exemple-prive\.fr\r?$/m);
    expect(decodeQuotedPrintable(raw)).toContain("nous passons mardi à 14 h ; comptez 90 € pour le déplacement.");

    const suivi = await server.get("/suivi", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code: lead.token }).toString(),
    });
    const suiviPage = await suivi.text();
    expect(suiviPage).toContain('<p class="merchant-response-state">Le commerçant a répondu à votre demande, le ');
    expect(suiviPage).toContain(`<blockquote class="answer-text">${ANSWER.replace("'", "&#39;")}</blockquote>`);

    const rest = await server.getJson(`/api/leads/${lead.leadId}`, { headers: { "x-tracking-token": lead.token } });
    expect(rest.body.data.merchant_response).toMatchObject({
      status: "answered",
      answers: [{ message: ANSWER, delivery: "sent" }],
    });
    const client = new Client({ name: "abeille-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
    try {
      const result = await client.callTool({
        name: "check_lead_status",
        arguments: { lead_id: lead.leadId, tracking_token: lead.token },
      });
      expect((result.structuredContent as JsonObject).data.merchant_response).toEqual(rest.body.data.merchant_response);
    } finally {
      await client.close();
    }

    // Handled, without an answer: no new email; the list says so.
    const handled = await merchant.fetch(`/pro/${abId}/demandes/${older.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: "", outcome: "handled" },
    });
    expect(handled.headers.get("location")).toBe(`/pro/${abId}/demandes/${older.leadId}?fait=handled`);
    expect(answersOf(older.leadId)).toEqual([]);
    expect(await (await merchant.fetch(`/pro/${abId}/demandes`)).text()).toContain(
      '<strong class="pro-lead-status">Traitée</strong>',
    );
  });

  it("shows a field to correct next to it, in French, keeping what was typed, and writes nothing", async () => {
    const lead = await sendLead(abId, "Jade Morel", "jade.morel@exemple-prive.fr", "Ouvert dimanche ?");
    const empty = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: "  ", outcome: "answered" },
    });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain(
      '<p id="answer-error" class="lead-status lead-error">Écrivez votre réponse, ou choisissez de marquer la demande comme traitée ou déclinée.</p>',
    );
    const long = "a".repeat(LEAD_ANSWER_MAX + 1);
    const tooLong = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: long, outcome: "declined" },
    });
    expect(tooLong.status).toBe(400);
    const page = await tooLong.text();
    expect(page).toContain("Votre réponse est trop longue : raccourcissez-la.");
    expect(page).toContain(`>${long}</textarea>`);
    expect(page).toContain('<input type="radio" id="outcome-declined" name="outcome" value="declined" checked>');
    expect(answersOf(lead.leadId)).toEqual([]);
  });
});

describe("security of the leads' pages", () => {
  it("refuses a POST without the session's CSRF token, or with another session's (403), and writes nothing", async () => {
    const lead = await sendLead(abId, "Léon Faure", "leon.faure@exemple-prive.fr", "Bonjour");
    for (const csrf of [undefined, "x".repeat(43), otherMerchant.csrfToken]) {
      const refused = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
        form: { ...(csrf !== undefined ? { csrf } : {}), answer: "Réponse forgée", outcome: "declined" },
      });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("Action refusée");
    }
    expect(answersOf(lead.leadId)).toEqual([]);
    const status = app.db.$client.prepare("SELECT merchant_status FROM leads WHERE lead_id = ?").pluck();
    expect(status.get(lead.leadId)).toBeNull();
  });

  it("answers 404 for another merchant's lead through one's own listing, and for another merchant's listing", async () => {
    const theirs = await sendLead(otherAbId, "Noé Garnier", "noe.garnier@exemple-prive.fr", "Privé : code 4521");
    for (const target of [`/pro/${abId}/demandes/${theirs.leadId}`, `/pro/${otherAbId}/demandes/${theirs.leadId}`]) {
      const read = await merchant.fetch(target);
      expect(read.status).toBe(404);
      expect(await read.text()).not.toContain("Noé Garnier");
      const written = await merchant.fetch(target, {
        form: { csrf: merchant.csrfToken, answer: "Je réponds à sa place", outcome: "answered" },
      });
      expect(written.status).toBe(404);
    }
    const list = await merchant.fetch(`/pro/${otherAbId}/demandes`);
    expect(list.status).toBe(404);
    expect(await list.text()).not.toContain("Noé Garnier");
    expect(answersOf(theirs.leadId)).toEqual([]);
    // Its own merchant sees it.
    expect((await otherMerchant.fetch(`/pro/${otherAbId}/demandes/${theirs.leadId}`)).status).toBe(200);
  });

  it("shows nothing signed out (a redirect to /pro; a POST is refused) and nothing to an agent's key", async () => {
    const lead = await sendLead(abId, "Rose Lambert", "rose.lambert@exemple-prive.fr", "Bonjour");
    for (const target of [`/pro/${abId}/demandes`, `/pro/${abId}/demandes/${lead.leadId}`]) {
      const signedOut = await server.get(target, { redirect: "manual" });
      expect(signedOut.status).toBe(303);
      expect(signedOut.headers.get("location")).toBe("/pro");
    }
    const posted = await server.get(`/pro/${abId}/demandes/${lead.leadId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: merchant.csrfToken, answer: "Sans session", outcome: "answered" }).toString(),
      redirect: "manual",
    });
    expect(posted.status).toBe(403);
    const apiKey = await registeredKey(server, "pro-leads-test");
    const withKey = await server.get(`/pro/${abId}/demandes`, {
      headers: { authorization: `Bearer ${apiKey}`, cookie: merchant.cookie },
      redirect: "manual",
    });
    expect(withKey.status).toBe(403);
    expect(await withKey.text()).not.toContain("Rose Lambert");
    expect(answersOf(lead.leadId)).toEqual([]);
  });

  it(`stops a listing at ${LEAD_ANSWERS_PER_LISTING_HOURLY} answers an hour (429, what was typed kept), closing still allowed`, async () => {
    await app.access.limiter.clear();
    const leads = await Promise.all(
      [0, 1, 2, 3].map((n) => sendLead(abId, `Client ${n}`, `client.${n}@exemple-prive.fr`, `Demande ${n}`)),
    );
    let sent = 0;
    for (const lead of leads) {
      for (let n = 0; n < 8 && sent < LEAD_ANSWERS_PER_LISTING_HOURLY; n++, sent++) {
        const ok = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
          form: { csrf: merchant.csrfToken, answer: `Réponse ${sent}`, outcome: "answered" },
        });
        expect(ok.status).toBe(303);
      }
    }
    const last = leads[3]?.leadId as string;
    const refused = await merchant.fetch(`/pro/${abId}/demandes/${last}`, {
      form: { csrf: merchant.csrfToken, answer: "Une de trop", outcome: "answered" },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const page = await refused.text();
    expect(page).toContain(
      `Votre fiche a envoyé ${LEAD_ANSWERS_PER_LISTING_HOURLY} réponses dans l&#39;heure, le maximum.`,
    );
    expect(page).toContain(">Une de trop</textarea>");
    expect(answersOf(last)).not.toContain("Une de trop");
    const closed = await merchant.fetch(`/pro/${abId}/demandes/${last}`, {
      form: { csrf: merchant.csrfToken, outcome: "handled" },
    });
    expect(closed.status).toBe(303);
    await app.access.limiter.clear();
  });
});

describe("retention in the space", () => {
  it("shows an anonymised lead as such, without its contact, text or answers, and no answer form", async () => {
    const lead = await sendLead(abId, "Zoé Marchand", "zoe.marchand@exemple-prive.fr", "Mon adresse : 3 rue Haute");
    const answered = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: "Nous venons au 3 rue Haute jeudi.", outcome: "handled" },
    });
    expect(answered.status).toBe(303);
    // The lead and its answer written three years ago: the retention run of today anonymises them
    // (and nothing of the merchant's live session, which its own rule keeps).
    for (const table of ["leads", "lead_messages"]) {
      app.db.$client
        .prepare(`UPDATE ${table} SET created_at = ? WHERE lead_id = ?`)
        .run("2023-01-10T09:00:00.000Z", lead.leadId);
    }
    await anonymizeExpired({
      retention: app.retention,
      now: () => new Date(),
      retentionMonths: 24,
      pruneMailFiles: () => 0,
    });
    const list = await (await merchant.fetch(`/pro/${abId}/demandes`)).text();
    expect(list).toContain("Demande anonymisée : ses coordonnées et son texte ont été effacés");
    expect(list).not.toContain("Zoé Marchand");
    const one = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`);
    expect(one.status).toBe(200);
    const page = await one.text();
    expect(page).toContain("Elle ne peut plus recevoir de réponse.");
    expect(page).toContain("Texte effacé au terme de sa durée de conservation.");
    expect(page).not.toContain("3 rue Haute");
    expect(page).not.toContain('name="answer"');
    const refused = await merchant.fetch(`/pro/${abId}/demandes/${lead.leadId}`, {
      form: { csrf: merchant.csrfToken, answer: "Encore ?", outcome: "answered" },
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("Elle ne peut plus recevoir de réponse.");
    expect(answersOf(lead.leadId)).toEqual(["[anonymisé]"]);
  });
});
