/**
 * The microsite in a real browser: Debian's Chromium driven by playwright-core (never a browser
 * downloaded by Playwright). Opens a contactable merchant's page, checks its headings, trust score
 * and embedded JSON-LD, fills and submits the lead form, and saves a screenshot.
 *
 * Never skipped: without Debian's chromium the suite fails once, saying what to install.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium, type Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { chromiumPath } from "../helpers/system-programs.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
let server: TestServer;
let browser: Browser;

describe("the microsite in Chromium", () => {
  beforeAll(async () => {
    // A missing browser fails the suite once, saying what to install (.ci/run installs it).
    const executablePath = chromiumPath();
    server = await startTestServer({ count: 120 });
    browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS, headless: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the merchant, takes a lead through the form and says its tracking number", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    if (!abId) throw new Error("the demo roster has no contactable merchant");
    const resolved = await (await server.get(`/api/registry/resolve/${abId}`)).json();

    // A phone-sized window: the page must read without horizontal scrolling.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    // What the Content-Security-Policy refuses is reported on the console: nothing may be.
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) pageErrors.push(message.text());
    });
    const response = await page.goto(`${server.url}/m/${abId}/`);
    expect(response?.status()).toBe(200);

    expect(await page.getAttribute("html", "lang")).toBe("fr");
    expect((await page.locator("h1").textContent())?.trim()).toBe(resolved.merchant.name);
    const headings = await page.locator("h2").allTextContents();
    for (const heading of ["Score de confiance", "Prestations et tarifs", "Horaires", "Questions fréquentes"]) {
      expect(headings).toContain(heading);
    }
    expect(await page.locator(".score strong").textContent()).toBe(String(resolved.merchant.trust.score));
    expect(await page.locator(".component").count()).toBe(4);
    expect(await page.locator('a:has-text("Voir la preuve")').count()).toBeGreaterThan(0);

    const jsonld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? "{}");
    expect(jsonld["@context"]).toBe("https://schema.org");
    expect(jsonld.name).toBe(resolved.merchant.name);
    expect(jsonld.potentialAction.length).toBeGreaterThan(0);

    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input:not([type=hidden]), select, textarea")]
        .filter((control) => !control.id || !document.querySelector(`label[for="${control.id}"]`))
        .map((control) => control.getAttribute("name")),
    );
    expect(unlabelled).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    // The lead endpoint belongs to another part of the service: when it is not there, answer for it
    // and still check the request the form sends.
    const probe = await server.get("/api/contact/brick", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const endpointExists = probe.status !== 404;
    await probe.arrayBuffer();
    let sent: Request | null = null;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/contact/brick") && request.method() === "POST") sent = request;
    });
    if (!endpointExists) {
      await page.route("**/api/contact/brick", (route) =>
        route.fulfill({
          status: 201,
          contentType: "application/json",
          body: JSON.stringify({
            success: true,
            lead_id: "0b9e7c3a-58f1-4c8e-9d2a-1f3b5c7d9e10",
            tracking_token: "trk_intercepted",
            tracking_status: "received",
            data: null,
          }),
        }),
      );
    }

    const form = page.locator("#lead-form");
    expect(await form.locator('button[type="submit"]').isEnabled()).toBe(true);
    await form.getByLabel("Nom du contact").fill("Camille Martin");
    await form.getByLabel("E-mail du contact").fill("camille.martin@example.fr");
    await form.getByLabel("Téléphone du contact").fill("+33 6 12 34 56 78");
    await form.getByLabel("Type de demande").selectOption("contact");
    await form.getByLabel("Message").fill("Bonjour, pouvez-vous me rappeler demain matin ?");
    await form.locator('button[type="submit"]').click();

    const status = page.locator("#lead-status");
    await status.getByText("Numéro de suivi").waitFor({ timeout: 10_000 });
    const trackingId = (await status.locator(".tracking-id").textContent()) ?? "";
    expect(trackingId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent).not.toBeNull();
    const request = sent as unknown as Request;
    expect(request.headers()["content-type"]).toBe("application/json");
    // The page's form token travels in a header, so the lead is told to the merchant as the person's.
    const formToken = await form.locator('input[name="form_token"]').getAttribute("value");
    expect(formToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.headers()["x-lead-form-token"]).toBe(formToken);
    expect(request.postDataJSON()).toEqual({
      ab_id: abId,
      contact_name: "Camille Martin",
      contact_email: "camille.martin@example.fr",
      contact_phone: "+33 6 12 34 56 78",
      lead_type: "contact",
      message: "Bonjour, pouvez-vous me rappeler demain matin ?",
    });
    if (endpointExists) {
      const db = openDatabase(path.join(server.dataDir, "abeille.db"));
      const row = db.$client.prepare("SELECT channel FROM leads WHERE lead_id = ?").get(trackingId) as {
        channel: string;
      };
      db.$client.close();
      expect(row.channel).toBe("page");
      // The tracking code it gives opens the tracking page, by a button that posts it.
      const code = (await status.locator(".tracking-token").textContent()) ?? "";
      expect(code.startsWith(`${trackingId}.`)).toBe(true);
      await Promise.all([
        page.waitForURL(/\/suivi$/),
        status.getByRole("button", { name: "Suivre ma demande" }).click(),
      ]);
      expect(await page.locator(".tracking-id").textContent()).toBe(trackingId);
      expect(await page.locator("h2").first().textContent()).toBe(`Votre demande à ${resolved.merchant.name}`);
    }
    expect(pageErrors).toEqual([]);

    // The screenshot is kept for a person to look at only when KEEP_SCREENSHOTS is set: otherwise
    // every run would leave a PNG in the temporary folder.
    const shots = mkdtempSync(path.join(os.tmpdir(), "abeille-microsite-"));
    const file = path.join(shots, `${abId}.png`);
    try {
      await page.screenshot({ path: file, fullPage: true });
      expect(existsSync(file)).toBe(true);
      if (process.env.KEEP_SCREENSHOTS) {
        process.stderr.write(
          `microsite-browser: screenshot ${file} (lead endpoint ${endpointExists ? "real" : "intercepted"})\n`,
        );
      }
    } finally {
      if (!process.env.KEEP_SCREENSHOTS) rmSync(shots, { recursive: true, force: true });
    }
    await context.close();
  }, 90_000);

  it("shows the validation errors the lead endpoint returns next to the fields", async () => {
    const abId = server.roster.cases.active_contactable?.[1] ?? server.roster.cases.active_contactable?.[0];
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/m/${abId}/`);
    await page.route("**/api/contact/brick", (route) =>
      route.fulfill({
        status: 400,
        contentType: "application/json",
        body: JSON.stringify({
          success: false,
          data: { issues: [{ path: "contact_email", message: "must be an email address" }] },
          error: { code: "VALIDATION_ERROR", message: "Invalid request: contact_email: must be an email address" },
        }),
      }),
    );
    const form = page.locator("#lead-form");
    await form.getByLabel("Nom du contact").fill("Camille Martin");
    await form.getByLabel("E-mail du contact").fill("camille@example.fr");
    await form.locator('button[type="submit"]').click();
    await page.locator("#lead-status").getByText("Certains champs sont à corriger.").waitFor({ timeout: 10_000 });
    expect(await form.getByLabel("E-mail du contact").getAttribute("aria-invalid")).toBe("true");
    // The API's technical English is read to the person in French, and no error code is shown.
    expect(await page.locator("#champ-contact-email-erreur").textContent()).toBe(
      "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.",
    );
    expect(await page.locator("#lead-status").textContent()).toBe("Certains champs sont à corriger.");
    await context.close();
  }, 60_000);

  it("answers a French 404 page for an unknown merchant", async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}/m/ab_zzzzzzzz/`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toBe("Commerçant introuvable");
    await page.close();
  });
});
