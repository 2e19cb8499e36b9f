/**
 * The pages a person meets first, in a real browser (Debian's Chromium driven by playwright-core,
 * as test/e2e/microsite-browser.test.ts): the front door's search leads to a merchant's page, the
 * 404 page's search leads back to the front door, the privacy notice reads, and the lead form
 * speaks French when a field is refused (by the browser or by the server).
 */
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
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

/** A phone-sized page; script errors and what the Content-Security-Policy refuses are collected. */
async function openPage(options: { javaScript?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: "fr-FR",
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  // What the Content-Security-Policy refuses is said on the console.
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) errors.push(message.text());
  });
  return { page, errors };
}

/**
 * Where an element is in the window once the page stopped moving (the stylesheet scrolls smoothly
 * to a fragment): top and bottom against the window's height.
 */
async function inView(page: Page, selector: string): Promise<{ top: number; bottom: number; height: number }> {
  const read = () =>
    page
      .locator(selector)
      .first()
      .evaluate((element) => {
        const box = element.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom, height: window.innerHeight };
      });
  let last = await read();
  for (let attempt = 0; attempt < 50; attempt++) {
    await page.waitForTimeout(100);
    const now = await read();
    if (now.top === last.top) return now;
    last = now;
  }
  return last;
}

function leadChannel(leadId: string): string | undefined {
  const db = openDatabase(path.join(server.dataDir, "abeille.db"));
  try {
    return (db.$client.prepare("SELECT channel FROM leads WHERE lead_id = ?").get(leadId) as { channel: string })
      ?.channel;
  } finally {
    db.$client.close();
  }
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

  it("on a phone, shows the results once the search is made, not the form again", async () => {
    const api = await server.getJson("/api/registry/search?q=boulangerie&limit=1");
    const someone = api.body.results[0]?.merchant;
    const { page, errors } = await openPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel("Métier ou produit").fill("boulangerie");
    await page.getByLabel("Ville ou code postal").fill(someone.city);
    await Promise.all([page.waitForURL(/#resultats$/), page.getByRole("button", { name: "Rechercher" }).click()]);
    // The results heading and the whole first result are in the 844 px window, without scrolling.
    const heading = await inView(page, "#resultats");
    const first = await inView(page, ".results .result");
    expect(heading.top).toBeGreaterThanOrEqual(0);
    expect(first.top).toBeGreaterThan(heading.top);
    expect(first.bottom).toBeLessThanOrEqual(first.height);
    // Each result says whether an official register verified the identity, and when.
    expect(await page.locator(".results .result .result-identity").first().textContent()).toMatch(
      /^Identité (vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le \d{1,2}(er)? \p{L}+ \d{4}|non vérifiée)/u,
    );
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  });

  it("keeps the merchants open now when « Ouvert maintenant » is ticked, each saying so", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel("Métier ou produit").fill("boulangerie");
    await page.getByLabel("Ouvert maintenant").check();
    await Promise.all([
      page.waitForURL(/ouvert=1#resultats$/),
      page.getByRole("button", { name: "Rechercher" }).click(),
    ]);
    expect(await page.getByLabel("Ouvert maintenant").isChecked()).toBe(true);
    // Whatever the hour the test runs at, each result listed says it is open now.
    const statuses = await page.locator(".results .result .result-opening").allTextContents();
    for (const status of statuses) expect(status).toMatch(/^Ouvert maintenant( · ferme .+)?$/);
    expect(await page.locator("p[role=status]").last().textContent()).toMatch(/, ouverts maintenant\.$/);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  });

  it("pads the 404 page's first card like the cards beside it", async () => {
    const { page } = await openPage();
    await page.goto(`${server.url}/pas-une-page`);
    const padding = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => {
          const style = getComputedStyle(element);
          return [style.paddingTop, style.paddingRight, style.paddingBottom, style.paddingLeft];
        });
    const card = await padding(".not-found");
    expect(card).toEqual(await padding("main > section"));
    expect(card.every((value) => Number.parseFloat(value) >= 16)).toBe(true);
  });

  it("cannot be framed by another site", async () => {
    const { page } = await openPage();
    let framed = "";
    page.on("response", (response) => {
      if (response.url() === `${server.url}/`) framed = response.headers()["x-frame-options"] ?? "";
    });
    await page.setContent(`<iframe id="framed" src="${server.url}/" width="300" height="300"></iframe>`);
    await page.waitForTimeout(500);
    expect(framed).toBe("DENY");
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    // Chromium refuses to show the page in the frame: nothing of the front door is there.
    const text = frame ? await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "") : "";
    expect(text).not.toContain("Trouver un commerçant");
  });

  it("takes a lead through the form without JavaScript, in French, and follows it on the tracking page", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    const { page, errors } = await openPage({ javaScript: false });
    await page.goto(`${server.url}/m/${abId}/`);
    const form = page.locator("#lead-form");
    const submit = form.locator('button[type="submit"]');
    expect(await submit.isEnabled()).toBe(true);
    await form.getByLabel("Nom du contact").fill("Margot Lenoir");
    await form.getByLabel("E-mail du contact").fill("margot@exemple");
    await form.getByLabel("Type de demande").selectOption("contact");
    await form.getByLabel("Message").fill("Bonjour, avez-vous des créneaux la semaine prochaine ?");
    const refused = await Promise.all([page.waitForNavigation(), submit.click()]).then(([response]) => response);
    expect(refused?.status()).toBe(400);
    expect(page.url()).toBe(`${server.url}/m/${abId}/#contact`);
    expect(await page.locator("#lead-status").textContent()).toBe("Certains champs sont à corriger.");
    expect(await page.locator("#champ-contact-email-erreur").textContent()).toBe(
      "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.",
    );
    expect(await form.getByLabel("Nom du contact").inputValue()).toBe("Margot Lenoir");
    expect(await form.getByLabel("Message").inputValue()).toBe(
      "Bonjour, avez-vous des créneaux la semaine prochaine ?",
    );
    // The person reads where the problem is: the contact section is in view.
    const status = await inView(page, "#lead-status");
    expect(status.top).toBeGreaterThanOrEqual(0);
    expect(status.bottom).toBeLessThanOrEqual(status.height);

    await form.getByLabel("E-mail du contact").fill("margot.lenoir@exemple-prive.fr");
    const sent = await Promise.all([page.waitForNavigation(), submit.click()]).then(([response]) => response);
    expect(sent?.status()).toBe(201);
    const result = page.locator("#lead-status");
    expect(await result.locator("p").first().textContent()).toBe(
      `Votre demande a bien été transmise à ${resolved.body.merchant.name}.`,
    );
    const leadId = (await result.locator(".tracking-id").textContent()) ?? "";
    expect(leadChannel(leadId)).toBe("page");
    await Promise.all([page.waitForURL(/\/suivi$/), result.getByRole("button", { name: "Suivre ma demande" }).click()]);
    expect(await page.locator(".tracking-id").textContent()).toBe(leadId);
    expect(await page.locator(".tracking-state").textContent()).toMatch(/^(Reçue par Abeille|Transmise au commerçant)/);
    expect(errors).toEqual([]);
  }, 60_000);

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
    expect(page.url()).toMatch(/\/\?metier=plombier&ville=#resultats$/);
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
