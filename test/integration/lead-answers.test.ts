/**
 * A merchant's answer to a lead reaches the person and the agent (issue 25), against the running
 * server: the lead is sent over the API, the merchant answers through the domain door its space
 * uses (respondToLead, on the same database), and then the .eml in DATA_DIR/outbox carries the
 * answer to the person, GET /api/leads/{id} and the MCP tool check_lead_status show it in
 * merchant_response (one schema), and /suivi shows it to the holder of the code. The pages of the
 * space themselves are tested signed in, in test/integration/pro-leads.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { respondToLead } from "../../src/domain/leads/respond-to-lead.ts";
import { setLogLevel } from "../../src/logging.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { leadStatusSchema } from "../../src/openapi/responses.ts";
import { respondDeps } from "../../src/wiring.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import { sendLead } from "../helpers/leads.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let app: App;
let worker: OutboxWorker;

beforeAll(async () => {
  server = await startTestServer({ count: 60, env: { SMTP_URL: "", SMTP_HOST: "" } });
  app = createApp(loadConfig());
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
});

afterAll(async () => {
  setLogLevel("silent");
  await worker?.stop();
  app?.close();
  await server?.close();
});

const ANSWER = "Bonjour Mme Roussel,\nnous pouvons passer jeudi à 9 h ; le devis est de 180 € TTC.";

describe("a merchant's answer", () => {
  it("goes to the person by email and shows in check_lead_status (REST and MCP) and on /suivi", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const { leadId, token } = await sendLead(server, abId, {
      contact_name: "Lucie Roussel",
      contact_email: "lucie.roussel@exemple-prive.fr",
      message: "Bonjour, une fuite sous l'évier, quand pouvez-vous passer ?",
    });
    const readStatus = async () =>
      (await server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": token } })).body
        .data as JsonObject;
    expect((await readStatus()).merchant_response).toEqual({ status: "none", updated_at: null, answers: [] });

    const answered = await respondToLead(respondDeps(app), { abId, actor: "merchant:claim-test" }, leadId, {
      outcome: "handled",
      answer: ANSWER,
    });
    await worker.runNow();

    const outboxDir = path.join(server.dataDir, "outbox");
    const files = readdirSync(outboxDir).filter((name) => name.includes("-lead_answer-"));
    expect(files).toHaveLength(1);
    const raw = readFileSync(path.join(outboxDir, files[0] as string), "utf8");
    const merchant = app.db.$client.prepare("SELECT business_name, email FROM merchants WHERE ab_id = ?").get(abId) as {
      business_name: string;
      email: string;
    };
    expect(raw).toMatch(/^To: lucie\.roussel@exemple-prive\.fr\r?$/m);
    expect(raw).toContain(merchant.email);
    expect(raw).toMatch(/^Reply-To: /m);
    expect(raw.toLowerCase()).toContain(`x-abeille-lead-id: ${leadId}`);
    const text = decodeQuotedPrintable(raw);
    expect(text).toContain("Bonjour Lucie Roussel,");
    expect(text).toContain("nous pouvons passer jeudi à 9 h ; le devis est de 180 € TTC.");
    expect(text).toContain(
      `Répondez simplement à cet e-mail : votre réponse partira directement à ${merchant.business_name}`,
    );

    const status = await readStatus();
    expect(leadStatusSchema.parse(status)).toEqual(status);
    const expected = {
      status: "handled",
      updated_at: expect.any(String),
      answers: [{ answer_id: answered.answerId, message: ANSWER, created_at: expect.any(String), delivery: "sent" }],
    };
    expect(status.merchant_response).toEqual(expected);
    expect(status).toMatchObject({ tracking_status: "delivered", messages_count: 0 });

    const client = new Client({ name: "abeille-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
    try {
      const result = await client.callTool({
        name: "check_lead_status",
        arguments: { lead_id: leadId, tracking_token: token },
      });
      const structured = result.structuredContent as JsonObject;
      expect(structured.data.merchant_response).toEqual(status.merchant_response);
    } finally {
      await client.close();
    }

    const page = await server.get("/suivi", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code: token }).toString(),
    });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('<p class="merchant-response-state">Le commerçant indique avoir traité votre demande, le ');
    expect(body).toContain(`<blockquote class="answer-text">${ANSWER.replace("'", "&#39;")}</blockquote>`);
    expect(body).toContain(", envoyée aussi à votre adresse e-mail");
  });
});
