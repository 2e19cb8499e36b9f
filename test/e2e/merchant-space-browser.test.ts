/**
 * The merchant space's door in a real browser (Debian's Chromium driven by playwright-core) with
 * the real OpenID provider of test/helpers/proconnect.ts: sign in through the provider's pages,
 * claim a listing, sign out (the form's redirect to the provider must pass the page's
 * Content-Security-Policy: browsers apply form-action to it) and come back signed out.
 * The server runs at its BASE_URL (http://localhost:<port>), the provider at 127.0.0.1: the
 * browser follows every redirect itself. (Playwright's request routing would lose the cookies
 * set by redirects.)
 */
import path from "node:path";
import Database from "better-sqlite3";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerWithProConnect, type TestProConnect } from "../helpers/proconnect.ts";
import { freePort } from "../helpers/spawn-start.ts";
import { chromiumPath } from "../helpers/system-programs.ts";
import type { TestServer } from "../helpers/test-server.ts";

const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
];
let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;
let browser: Browser;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  ({ server, provider, close } = await startServerWithProConnect({ count: 40, baseUrl: base, port }));
  browser = await chromium.launch({ executablePath: chromiumPath(), args: LAUNCH_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await close?.();
});

describe("the merchant space in Chromium", () => {
  it("signs in with the provider, claims the listing, signs out at the provider too", async () => {
    const abId = server.roster.cases.active_contactable?.[0] ?? "";
    const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
    const { siret, business_name: name } = db
      .prepare("SELECT siret, business_name FROM merchants WHERE ab_id = ?")
      .get(abId) as { siret: string; business_name: string };
    db.close();
    const sub = provider.addAccount({ siret, siren: siret.slice(0, 9), givenName: "Camille", usualName: "Martin" });

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });

    await page.goto(`${base}/pro`);
    await page.getByRole("link", { name: "S'identifier avec ProConnect", exact: true }).click();
    // The provider's own pages: login, then consent.
    await page.locator('input[name="login"]').fill(sub);
    await page.locator('input[name="password"]').fill("test");
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL(`${base}/pro`);
    await expect.poll(() => page.locator("body").innerText()).toContain("Connecté : Camille Martin");

    await page.getByRole("button", { name: `Revendiquer la fiche ${name}` }).click();
    await page.waitForURL(`${base}/pro?revendiquee=${abId}`);
    expect(await page.getByRole("status").innerText()).toBe(`Vous gérez maintenant la fiche ${name}.`);
    expect(await page.getByRole("link", { name: `Gérer la fiche ${name}` }).getAttribute("href")).toBe(`/pro/${abId}/`);

    await page.getByRole("button", { name: "Se déconnecter" }).click();
    // The provider asks to confirm, then sends the browser back to /pro, signed out.
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.waitForURL(new RegExp(`^${base}/pro\\?state=`));
    expect(await page.getByRole("link", { name: "S'identifier avec ProConnect", exact: true }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Se déconnecter" }).count()).toBe(0);
    expect(refused).toEqual([]);
    await context.close();
  }, 60_000);
});
