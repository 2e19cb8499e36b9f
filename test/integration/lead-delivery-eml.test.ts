/**
 * The demo path: without SMTP settings a lead ends as a French RFC 822 .eml file under
 * DATA_DIR/outbox/. The same run checks that no email, phone or message text reaches the logs
 * (stderr of the server and of the worker, at debug level).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { setLogLevel } from "../../src/logging.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let app: App;
let worker: OutboxWorker;
let captured = "";
const originalWrite = process.stderr.write.bind(process.stderr);

const PERSONAL = {
  name: "Zéphyrine Quatremain",
  email: "zephyrine.quatremain@exemple-prive.fr",
  phone: "+33 6 98 76 54 32",
  message: "Ma cuisine sent le brûlé depuis la panne",
  aiContext: "Préférence confidentielle pour le mardi",
  followUp: "Le code de la porte est 4521B",
  platformEmail: "octave.lemarchand@exemple-prive.fr",
};

beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    captured += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return (originalWrite as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  server = await startTestServer({ count: 80, env: { LOG_LEVEL: "debug", SMTP_URL: "", SMTP_HOST: "" } });
  setLogLevel("debug");
  app = createApp(loadConfig());
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
});

afterAll(async () => {
  process.stderr.write = originalWrite;
  setLogLevel("silent");
  await worker?.stop();
  app?.close();
  await server?.close();
});

const postJson = async (pathName: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await server.get(pathName, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as JsonObject };
};

describe("the demo outbox (no SMTP configured)", () => {
  let leadId = "";

  it("writes a lead submitted to the server as a French .eml file in DATA_DIR/outbox", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
    const payload = {
      ...card.lead_contract.example_payload,
      contact_name: PERSONAL.name,
      contact_email: PERSONAL.email,
      contact_phone: PERSONAL.phone,
      message: PERSONAL.message,
      ai_context: PERSONAL.aiContext,
    };
    const created = await postJson("/api/contact/brick", payload);
    expect(created.status).toBe(201);
    leadId = created.body.lead_id;
    await worker.runNow();

    const outboxDir = path.join(server.dataDir, "outbox");
    const files = readdirSync(outboxDir).filter((name) => name.endsWith(".eml"));
    expect(files).toHaveLength(1);
    const file = path.join(outboxDir, files[0] as string);
    expect(files[0]).toMatch(/^\d{8}T\d{6}Z-lead_notification-[0-9a-f-]{36}\.eml$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = readFileSync(file, "utf8");
    expect(raw).toMatch(/^From: Abeille <no-reply@abeille\.local>\r?$/m);
    expect(raw).toMatch(/^Subject: Nouvelle demande /m);
    expect(raw).toMatch(/^MIME-Version: 1\.0\r?$/m);
    expect(raw).toMatch(/^Auto-Submitted: auto-generated\r?$/m);
    expect(raw.toLowerCase()).toContain(`x-abeille-lead-id: ${leadId}`);
    const text = decodeQuotedPrintable(raw);
    expect(text).toContain("Bonjour,");
    expect(text).toContain("Comment répondre");
    // Where the merchant can answer through Abeille: the lead's page in its space, on BASE_URL.
    expect(text.replace(/\s+/g, " ")).toContain(
      `Vous pouvez aussi répondre depuis votre espace Abeille, où la demande vous attend : ${TEST_BASE_URL}/pro/${abId}/demandes/${leadId}`,
    );
    expect(text).toContain(PERSONAL.message);
    // Sector fields carry their French labels from the lead contract.
    for (const field of card.lead_contract.sector_fields as JsonObject[]) {
      if (payload.metadata?.[field.name] !== undefined) expect(text).toContain(`${field.label} :`);
    }
    const status = await server.getJson(`/api/leads/${leadId}`, {
      headers: { "x-tracking-token": created.body.tracking_token },
    });
    expect(status.body.data.tracking_status).toBe("delivered");

    const followUp = await postJson(
      `/api/leads/${leadId}/messages`,
      { message: PERSONAL.followUp },
      { "x-tracking-token": created.body.tracking_token },
    );
    expect(followUp.status).toBe(201);
    const contact = await postJson("/api/contact/platform", {
      type: "support",
      name: PERSONAL.name,
      email: PERSONAL.platformEmail,
      phone: PERSONAL.phone,
      message: PERSONAL.message,
    });
    expect(contact.status).toBe(201);
    // A duplicate and a validation error that echoes nothing personal.
    expect((await postJson("/api/contact/brick", payload)).status).toBe(200);
    expect((await postJson("/api/contact/brick", { ...payload, contact_email: "pas-valide" })).status).toBe(400);
    await worker.runNow();
    const all = readdirSync(outboxDir).filter((name) => name.endsWith(".eml"));
    expect(all.some((name) => name.includes("lead_follow_up"))).toBe(true);
    expect(all.some((name) => name.includes("platform_contact"))).toBe(true);
  });

  it("tells the merchant a lead typed in the form of its page came from the person, and a program with a forged Origin came from a program", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
    const payload = {
      ...card.lead_contract.example_payload,
      contact_name: "Ninon Vasseur",
      contact_email: "ninon.vasseur@exemple-prive.fr",
      message: "Bonjour, je voudrais un rendez-vous.",
    };
    // What the page's script sends: the form token its page carries.
    const page = await (await server.get(`/m/${abId}/`)).text();
    const formToken = /<input type="hidden" name="form_token" value="([A-Za-z0-9_-]{43})">/.exec(page)?.[1] as string;
    expect(formToken).toBeDefined();
    const fromPage = await postJson("/api/contact/brick", payload, {
      origin: "http://abeille.test",
      "x-lead-form-token": formToken,
    });
    expect(fromPage.status).toBe(201);
    // A program that writes the service's own Origin, as a browser on its page would: still a program.
    const forged = await postJson(
      "/api/contact/brick",
      { ...payload, contact_email: "ninon.v@exemple-prive.fr" },
      { origin: "http://abeille.test" },
    );
    expect(forged.status).toBe(201);
    // Another merchant's page token does not make a lead to this merchant a page lead.
    const other = server.roster.cases.active_contactable?.[1] as string;
    const otherPage = await (await server.get(`/m/${other}/`)).text();
    const otherToken = /name="form_token" value="([^"]+)"/.exec(otherPage)?.[1] as string;
    expect(otherToken).not.toBe(formToken);
    const borrowed = await postJson(
      "/api/contact/brick",
      { ...payload, contact_email: "ninon.w@exemple-prive.fr" },
      { "x-lead-form-token": otherToken },
    );
    expect(borrowed.status).toBe(201);
    await worker.runNow();
    const outboxDir = path.join(server.dataDir, "outbox");
    const emailOf = (id: string) => {
      const name = readdirSync(outboxDir).find(
        (file) => file.includes("lead_notification") && readFileSync(path.join(outboxDir, file), "utf8").includes(id),
      );
      return decodeQuotedPrintable(readFileSync(path.join(outboxDir, name as string), "utf8"));
    };
    const pageEmail = emailOf(fromPage.body.lead_id);
    expect(pageEmail).toContain(
      "La personne ci-dessous l'a écrite elle-même dans le formulaire de contact de votre fiche sur Abeille.",
    );
    expect(pageEmail).not.toMatch(/assistant IA|agent IA/);
    for (const lead of [forged, borrowed]) {
      const email = emailOf(lead.body.lead_id);
      expect(email).toContain("Un logiciel sans clé d'API (un assistant IA ou un autre programme) l'a transmise");
      expect(email).not.toContain("formulaire de contact de votre fiche");
    }
  });

  it("kept emails, phones and message text out of every log line", () => {
    expect(captured).toContain("lead accepted");
    expect(captured).toContain("outbox message delivered");
    for (const value of Object.values(PERSONAL)) {
      expect(captured).not.toContain(value);
    }
    expect(captured).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.]+/);
    expect(captured).not.toMatch(/\+33[\d ]{9,}/);
  });
});
