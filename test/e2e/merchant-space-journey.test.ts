/**
 * The merchant space across all its parts, in a real browser (Debian's Chromium driven by
 * playwright-core), against the built server and the real OpenID provider of
 * test/helpers/proconnect.ts: a merchant signs in with ProConnect, claims its listing, sets the
 * email where leads go (the link taken from the email the outbox wrote), adds a product with its
 * price and its hours, corrects a Q&A answer, answers a lead; after a refresh the change shows in
 * search, resolve, the decision card, the JSON-LD, ai.md and the Q&A cluster. And the refusals,
 * as a person meets them in the browser: another SIRET cannot claim, a letter's code that is
 * wrong locks after the allowed tries, an expired one is refused, a revoked claim ends its session.
 *
 * The server runs at its BASE_URL (http://localhost:<port>), so the browser follows the
 * provider's redirects and the emails' links itself.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { LETTER_CODE_WRONG_TRIES } from "../../src/domain/merchant-space/letters.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import { sendLead } from "../helpers/leads.ts";
import { codesIn, pdfPagesText } from "../helpers/letters-pdf.ts";
import { startServerWithProConnect, type TestProConnect } from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { freePort } from "../helpers/spawn-start.ts";
import { chromiumPath } from "../helpers/system-programs.ts";
import type { TestServer } from "../helpers/test-server.ts";

// Each step drives the browser through several pages and jobs: minutes on a busy machine, not seconds.
vi.setConfig({ testTimeout: 120_000 });

const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
];
const PRODUCT = "Atelier de réparation de vélos électriques";
const CORRECTED_ANSWER = "Oui, sur rendez-vous du lundi au samedi ; devis gratuit sous 48 heures.";
const ANSWER = "Bonjour,\nnous pouvons vous recevoir jeudi à 10 h ; comptez 45 € pour le diagnostic.";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;
let browser: Browser;
let base: string;
/** What `npm start` runs beside the server (the test server has neither): the outbox worker and the search follower, on demand. */
let app: App;
let worker: OutboxWorker;
const lettersDir = mkdtempSync(path.join(os.tmpdir(), "abeille-journey-letters-"));

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  ({ server, provider, close } = await startServerWithProConnect({
    count: 60,
    baseUrl: base,
    port,
    env: { SMTP_URL: "", SMTP_HOST: "", PRO_SIGN_INS_HOURLY: "1000", PRO_CLAIMS_HOURLY: "1000" },
  }));
  app = createApp({ ...loadConfig(), dataDir: server.dataDir, baseUrl: base });
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: LAUNCH_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  app?.close();
  await close?.();
  rmSync(lettersDir, { recursive: true, force: true });
});

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const listing = (abId: string) =>
  query<{ siret: string; business_name: string; email: string | null }>(
    "SELECT siret, business_name, email FROM merchants WHERE ab_id = ?",
    abId,
  )[0] as { siret: string; business_name: string; email: string | null };

/** The .eml files the outbox wrote of one kind to one address, decoded, oldest first. */
function emails(kind: string, to: string): string[] {
  const dir = path.join(server.dataDir, "outbox");
  return readdirSync(dir)
    .filter((name) => name.includes(kind) && name.endsWith(".eml"))
    .sort()
    .map((name) => decodeQuotedPrintable(readFileSync(path.join(dir, name), "utf8")))
    .filter((text) => text.includes(`To: ${to}`));
}

async function newPage(): Promise<{ context: BrowserContext; page: Page; refused: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
  // A step that cannot happen fails on its own, naming its locator, well before the test's timeout.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  return { context, page, refused };
}

/** Signs in with ProConnect as the account `sub`, through the provider's own login and consent pages. */
async function signIn(page: Page, sub: string, name: string): Promise<void> {
  await page.goto(`${base}/pro`);
  await page.getByRole("link", { name: "S'identifier avec ProConnect", exact: true }).click();
  await page.locator('input[name="login"]').fill(sub);
  await page.locator('input[name="password"]').fill("test");
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').first().click();
  await page.waitForURL(`${base}/pro`);
  await expect.poll(() => page.locator("body").innerText()).toContain(`Connecté : ${name}`);
}

const bodyText = (page: Page) => page.locator("body").innerText();

describe("a merchant's day in the space, in Chromium", () => {
  let abId: string;
  let name: string;
  let session: { context: BrowserContext; page: Page; refused: string[] };

  beforeAll(async () => {
    abId = server.roster.cases.active_contactable?.[0] ?? "";
    ({ business_name: name } = listing(abId));
    session = await newPage();
  });
  afterAll(async () => {
    await session.context.close();
  });

  it("signs in with ProConnect and claims the listing of its SIRET", async () => {
    const { siret } = listing(abId);
    const sub = provider.addAccount({ siret, siren: siret.slice(0, 9), givenName: "Léa", usualName: "Girard" });
    const { page } = session;
    await signIn(page, sub, "Léa Girard");
    await page.getByRole("button", { name: `Revendiquer la fiche ${name}` }).click();
    await page.waitForURL(`${base}/pro?revendiquee=${abId}`);
    expect(await page.getByRole("status").innerText()).toBe(`Vous gérez maintenant la fiche ${name}.`);
    await page.getByRole("link", { name: `Gérer la fiche ${name}` }).click();
    await page.waitForURL(`${base}/pro/${abId}/`);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toContain(name);
  });

  it("sets the email where leads go: used only once the link in the email is confirmed and the old address told", async () => {
    const { page } = session;
    const before = listing(abId).email;
    await page.getByLabel("Nouvelle adresse").fill("atelier@exemple-velos.fr");
    await page.getByRole("button", { name: "Envoyer le lien de confirmation" }).click();
    await expect
      .poll(() => bodyText(page))
      .toContain("Un lien de confirmation a été envoyé à atelier@exemple-velos.fr.");
    expect(listing(abId).email).toBe(before);

    await worker.runNow();
    const [email] = emails("lead_email_confirmation", "atelier@exemple-velos.fr");
    const link = email && new RegExp(`${base}/pro/${abId}/e-mail/confirmer\\?jeton=[A-Za-z0-9_-]{43}`).exec(email)?.[0];
    if (!link) throw new Error(`no confirmation link in:\n${email}`);
    // The link opens in another tab of the same browser: it needs no session.
    const tab = await session.context.newPage();
    await tab.goto(link);
    expect(listing(abId).email).toBe(before);
    await tab.getByRole("button", { name: "Confirmer cette adresse" }).click();
    await expect
      .poll(() => bodyText(tab))
      .toContain(
        before
          ? `Les demandes de clients arriveront à atelier@exemple-velos.fr dès qu'il sera parti ; d'ici là, elles continuent d'arriver à ${before}.`
          : "Les demandes de clients arriveront désormais à atelier@exemple-velos.fr.",
      );
    await tab.close();
    // The address it replaces is told first; the notice sent, the new address is in force.
    await worker.runNow();
    if (before) {
      expect(emails("-space_notice-", before).some((email) => email.includes("atelier@exemple-velos.fr"))).toBe(true);
    }
    expect(listing(abId).email).toBe("atelier@exemple-velos.fr");
  });

  it("adds a product with its price, its hours and a phone, and corrects a Q&A answer", async () => {
    const { page } = session;
    await page.goto(`${base}/pro/${abId}/`);
    await page.getByLabel("Téléphone").fill("+33 4 78 00 00 42");
    await page.getByRole("button", { name: "Enregistrer les coordonnées" }).click();
    await expect.poll(() => bodyText(page)).toContain("Vos coordonnées sont enregistrées.");

    await page.getByLabel("Lundi").fill("09:00-12:30,14:00-19:00");
    await page.getByLabel("Samedi").fill("09:00-13:00");
    await page.getByLabel("Dimanche").fill("fermé");
    await page.getByRole("button", { name: "Enregistrer les horaires" }).click();
    await expect.poll(() => bodyText(page)).toContain("Vos horaires sont enregistrés.");

    const product = page.locator("fieldset", { hasText: "Ajouter un produit ou un service" });
    await product.getByLabel("Nom", { exact: true }).fill(PRODUCT);
    await product.getByLabel("Description").fill("Diagnostic, réglages et remplacement de la batterie.");
    await product.getByLabel("Type").selectOption("service");
    await product.getByLabel("Prix en euros").fill("45,00");
    await page.getByRole("button", { name: "Enregistrer les produits" }).click();
    await expect.poll(() => bodyText(page)).toContain("Vos produits et services sont enregistrés.");

    const question = page.locator("#questions ~ article, section[aria-labelledby=questions] article").first();
    await question.getByLabel("Réponse").fill(CORRECTED_ANSWER);
    await question.getByRole("button", { name: "Enregistrer ma correction" }).click();
    await expect.poll(() => bodyText(page)).toContain("Votre correction est enregistrée.");
    expect(session.refused).toEqual([]);
  });

  it("answers a lead that reached the confirmed address: the person reads it by email, on /suivi and through the API", async () => {
    const { leadId, token } = await sendLead(server, abId, {
      contact_name: "Noé Lambert",
      contact_email: "noe.lambert@exemple-prive.fr",
      message: "Mon vélo électrique ne charge plus. Pouvez-vous le regarder ?",
    });
    await worker.runNow();
    // The lead went to the address the merchant confirmed.
    expect(
      emails("-lead_notification-", "atelier@exemple-velos.fr").some((email) => email.includes("Noé Lambert")),
    ).toBe(true);

    const { page } = session;
    await page.goto(`${base}/pro/${abId}/`);
    await page.getByRole("link", { name: "Demandes reçues et réponses" }).click();
    await page.locator("li", { hasText: "Noé Lambert" }).getByRole("link").click();
    await page.waitForURL(`${base}/pro/${abId}/demandes/${leadId}`);
    await page.getByLabel("Votre réponse à Noé Lambert").fill(ANSWER);
    await page.getByRole("button", { name: "Enregistrer" }).click();
    await page.waitForURL(`${base}/pro/${abId}/demandes/${leadId}?fait=answered`);
    expect(await page.getByRole("status").innerText()).toBe(
      "Votre réponse est enregistrée ; elle part par e-mail à la personne dans quelques instants.",
    );

    await worker.runNow();
    const [answer] = emails("-lead_answer-", "noe.lambert@exemple-prive.fr");
    expect(answer).toContain("nous pouvons vous recevoir jeudi à 10 h ; comptez 45 € pour le diagnostic.");
    expect(answer).toMatch(/^Reply-To: .*atelier@exemple-velos\.fr/m);

    // The person follows the request with the code given, in its own browser.
    const person = await newPage();
    await person.page.goto(`${base}/suivi`);
    await person.page.getByLabel("Code de suivi").fill(token);
    await person.page.getByRole("button", { name: "Voir ma demande" }).click();
    await expect.poll(() => bodyText(person.page)).toContain("nous pouvons vous recevoir jeudi à 10 h");
    expect(await bodyText(person.page)).toContain("Le commerçant a répondu à votre demande, le ");
    expect(person.refused).toEqual([]);
    await person.context.close();

    const status = await server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": token } });
    expect(status.body.data.merchant_response).toMatchObject({
      status: "answered",
      answers: [{ message: ANSWER, delivery: "sent" }],
    });
  });

  it("shows every change after the refresh: search, resolve, decision card, JSON-LD, ai.md, the Q&A and the public page", async () => {
    const job = await runJob(["jobs/refresh.ts", "--quiet"], { dataDir: server.dataDir, baseUrl: base });
    expect(job.code, job.stderr).toBe(0);
    // The search follower `npm start` runs beside the server, once: the index in step with the store.
    expect((await app.searchEngine.follower.syncOnce()).state).toBe("ready");

    const found = (await server.getJson(`/api/registry/search?q=${encodeURIComponent(PRODUCT)}`)).body;
    expect((found.results as { merchant: { ab_id: string } }[]).map((hit) => hit.merchant.ab_id)).toContain(abId);
    const resolved = JSON.stringify((await server.getJson(`/api/registry/resolve/${abId}`)).body);
    expect(resolved).toContain(PRODUCT);
    expect(resolved).toContain("+33 4 78 00 00 42");

    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data.decision_card;
    const brick = (card.bricks_inventory as { name: string; price_cents: number | null }[]).find(
      (item) => item.name === PRODUCT,
    );
    expect(brick?.price_cents).toBe(4500);
    expect(JSON.stringify(card)).toContain('"lundi":"09:00-12:30,14:00-19:00"');

    const jsonld = JSON.stringify((await server.getJson(`/api/merchants/${abId}/jsonld`)).body);
    expect(jsonld).toContain('"telephone":"+33 4 78 00 00 42"');
    expect(jsonld).toContain(PRODUCT);
    const aiMd = await (await server.get(`/m/${abId}/ai.md`)).text();
    expect(aiMd).toContain(PRODUCT);
    expect(aiMd).toContain("+33 4 78 00 00 42");

    const [edited] = query<{ cluster_id: string; node_id: string }>(
      "SELECT n.cluster_id, n.node_id FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = ? AND n.edited_by_merchant = 1",
      abId,
    );
    const cluster = (await server.getJson(`/api/clusters/${edited?.cluster_id}`)).body.data;
    const node = (
      cluster.nodes as { id: string; answer: string; edited_by_merchant: boolean; human_verified_at: string | null }[]
    ).find((item) => item.id === edited?.node_id);
    expect(node?.answer).toBe(CORRECTED_ANSWER);
    expect(node?.edited_by_merchant).toBe(true);
    expect(node?.human_verified_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // What a person sees of the listing, in the same browser.
    const { page } = session;
    await page.goto(`${base}/m/${abId}/`);
    await expect.poll(() => bodyText(page)).toContain(PRODUCT);
    expect(await bodyText(page)).toContain("+33 4 78 00 00 42");
  });

  it("ends the session a revoked claim had: the next page is the signed-out door", async () => {
    const [claim] = query<{ claim_id: string }>(
      "SELECT claim_id FROM merchant_claims WHERE ab_id = ? AND revoked_at IS NULL",
      abId,
    );
    const revoked = await runJob(
      ["jobs/merchants.ts", "revoke-claim", claim?.claim_id ?? "", "--reason", "usurpation signalée"],
      { dataDir: server.dataDir, baseUrl: base },
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    const { page } = session;
    const answer = await page.goto(`${base}/pro/${abId}/`);
    expect(page.url()).toBe(`${base}/pro`);
    expect(answer?.status()).toBe(200);
    expect(await page.getByRole("link", { name: "S'identifier avec ProConnect", exact: true }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Se déconnecter" }).count()).toBe(0);
  });
});

describe("what the space refuses, in Chromium", () => {
  it("never lets a person of another SIRET claim a listing, even with a forged form", async () => {
    const abId = server.roster.cases.active_contactable?.[1] ?? "";
    const other = server.roster.cases.active_contactable?.[2] ?? "";
    const { business_name: name } = listing(abId);
    const { siret } = listing(other);
    const sub = provider.addAccount({ siret, siren: siret.slice(0, 9), givenName: "Hugo", usualName: "Roux" });
    const { context, page } = await newPage();
    await signIn(page, sub, "Hugo Roux");
    expect(await page.getByRole("button", { name: `Revendiquer la fiche ${name}` }).count()).toBe(0);

    // The same form as the page's, naming the other listing: refused, nothing claimed.
    const status = await page.evaluate(async (target) => {
      const csrf = (document.querySelector('input[name="csrf"]') as HTMLInputElement).value;
      const response = await fetch("/pro/revendiquer", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, ab_id: target }).toString(),
        redirect: "manual",
      });
      return response.status;
    }, abId);
    expect(status).toBe(404);
    expect(query("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([]);
    const space = await page.goto(`${base}/pro/${abId}/`);
    expect(space?.status()).toBe(404);
    await context.close();
  });

  it(`locks a letter's code after ${LETTER_CODE_WRONG_TRIES} wrong tries, and refuses an expired one`, async () => {
    const [locked, expired] = [3, 4].map((index) => server.roster.cases.active_contactable?.[index] ?? "");
    const codes = new Map<string, string>();
    for (const abId of [locked, expired] as string[]) {
      const out = path.join(lettersDir, `${abId}.pdf`);
      const job = await runJob(["jobs/merchants.ts", "letters", "--ab-id", abId, "--out", out], {
        dataDir: server.dataDir,
        baseUrl: base,
      });
      expect(job.code, job.stderr).toBe(0);
      const [text] = await pdfPagesText(readFileSync(out));
      const [code] = codesIn(text ?? "");
      if (!code) throw new Error(`no code on ${abId}'s letter`);
      codes.set(abId, code);
    }
    const { context, page, refused } = await newPage();
    const enter = async (code: string) => {
      await page.goto(`${base}/pro/code`);
      await page.getByLabel("Code du courrier").fill(code);
      await page.getByLabel("Votre adresse e-mail").fill("gerance@exemple-commerce.fr");
      await page.getByRole("button", { name: "Entrer dans mon espace" }).click();
      await page.waitForLoadState();
      return bodyText(page);
    };
    const right = codes.get(locked as string) as string;
    // The last character changed: a code of the right form, not the right one.
    const wrong = right.slice(0, -1) + (right.endsWith("0") ? "1" : "0");
    for (let attempt = 1; attempt < LETTER_CODE_WRONG_TRIES; attempt++) {
      expect(await enter(wrong)).toContain("Ce code n'est pas le bon.");
    }
    expect(await enter(wrong)).toContain("Ce code est bloqué après trop d'essais erronés.");
    expect(await enter(right)).toContain("Ce code est bloqué après trop d'essais erronés.");
    expect(query("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", locked)).toEqual([]);

    // Sixty days later: the letter's code has expired.
    const db = new Database(path.join(server.dataDir, "abeille.db"));
    db.prepare("UPDATE letter_codes SET expires_at = ? WHERE ab_id = ?").run("2020-01-01T00:00:00.000Z", expired);
    db.close();
    expect(await enter(codes.get(expired as string) as string)).toContain("Ce code a expiré (il vaut 60 jours).");
    expect(query("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", expired)).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });
});
