/**
 * The pages a person meets first, in a real browser (Debian's Chromium driven by playwright-core,
 * as test/e2e/microsite-browser.test.ts): the front door's search leads to a merchant's page, the
 * 404 page's search leads back to the front door, the privacy notice reads, and the lead form
 * speaks French when a field is refused (by the browser or by the server).
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors };
}

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe("the front door in Chromium", () => {
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

  it("searches by trade and town and opens a merchant's page from the results", async () => {
    const api = await server.getJson("/api/registry/search?q=boulangerie&limit=1");
    const someone = api.body.results[0]?.merchant;
    const { page, errors } = await openPage();
    expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    expect((await page.locator("h1").textContent())?.trim()).toBe("Abeille, le registre des commerçants vérifiés");
    await page.getByLabel("Métier ou produit").fill("boulangerie");
    await page.getByLabel("Ville ou code postal").fill(someone.city);
    await Promise.all([
      page.waitForURL(/\?metier=boulangerie/),
      page.getByRole("button", { name: "Rechercher" }).click(),
    ]);
    const results = page.locator(".results .result h3 a");
    expect(await results.count()).toBeGreaterThan(0);
    expect(await page.locator(".results").textContent()).toContain(someone.name);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await Promise.all([page.waitForURL(/\/m\/ab_[a-z0-9]{8}\/$/), results.first().click()]);
    expect(await page.locator("#lead-form").count()).toBeLessThanOrEqual(1);
    expect((await page.locator("h1").textContent())?.trim().length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it("offers the search on the 404 page", async () => {
    const { page, errors } = await openPage();
    expect((await page.goto(`${server.url}/pas-une-page`))?.status()).toBe(404);
    expect((await page.locator("h1").first().textContent())?.trim()).toBe("Page introuvable");
    await page.getByLabel("Métier ou produit").fill("plombier");
    await Promise.all([
      page.waitForURL(/\/\?metier=plombier/),
      page.getByRole("button", { name: "Rechercher" }).click(),
    ]);
    expect(await page.locator("#resultats").textContent()).toBe("Résultats");
    expect(errors).toEqual([]);
  });

  it("reads the privacy notice from a merchant's lead form", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const { page, errors } = await openPage();
    await page.goto(`${server.url}/m/${abId}/`);
    await Promise.all([
      page.waitForURL(/\/confidentialite$/),
      page.locator("#lead-form").getByRole("link", { name: "confidentialité et données personnelles" }).click(),
    ]);
    const headings = await page.locator("h2").allTextContents();
    expect(headings).toEqual([
      "Qui traite vos données",
      "Quelles données, et pourquoi",
      "Combien de temps",
      "Destinataires",
      "Vos droits",
      "Cookies",
    ]);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  });

  it("says in French what to correct in the lead form, whoever refused the field", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const { page, errors } = await openPage();
    await page.goto(`${server.url}/m/${abId}/`);
    const form = page.locator("#lead-form");
    await form.locator('button[type="submit"]').click();
    const nameError = form.locator("#champ-contact-name-erreur");
    await nameError.waitFor();
    expect(await nameError.textContent()).toBe("Ce champ est obligatoire.");

    // The browser takes "camille@exemple" as an email address; the server does not.
    await form.getByLabel("Nom du contact").fill("Camille Martin");
    await form.getByLabel("E-mail du contact").fill("camille@exemple");
    await form.getByLabel("Type de demande").selectOption("contact");
    await form.locator('button[type="submit"]').click();
    const emailError = form.locator("#champ-contact-email-erreur");
    await emailError.getByText("Saisissez une adresse e-mail valide").waitFor({ timeout: 10_000 });
    const status = (await page.locator("#lead-status").textContent()) ?? "";
    expect(status).toContain("Certains champs sont à corriger.");
    expect(status).not.toMatch(/must be|is required/);
    expect(errors).toEqual([]);
  }, 60_000);
});
