import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTown, TOWN_RADIUS_KM } from "../../src/publish/people-search.ts";
import { PUBLISHED_STATUSES } from "../../src/publish/view.ts";
import { openDatabase } from "../../src/store/db.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

/*
 * The pages a person or a crawler meets first: the front door and its search, the 404 page, the
 * notices, robots.txt, the sitemap and the favicon (HTML in French; the browser test drives them
 * in Chromium: test/e2e/front-door-browser.test.ts).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 150 });
});
afterAll(async () => {
  await server?.close();
});

const links = (page: string) => [...page.matchAll(/href="\/m\/(ab_[a-z0-9]{8})\/"/g)].map((match) => match[1]);

describe("the front door", () => {
  it("says what Abeille is, in French, with the search form and the notices", async () => {
    const response = await server.get("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('<h1 id="abeille">Abeille, le registre des commerçants vérifiés</h1>');
    expect(page).toContain('<form class="search-form" method="get" action="/" role="search">');
    expect(page).toContain('name="metier"');
    expect(page).toContain('name="ville"');
    expect(page).toContain('href="/confidentialite"');
    expect(page).toContain('href="/mentions-legales"');
    expect(page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    expect(page).toContain(`<link rel="canonical" href="${TEST_BASE_URL}/">`);
  });

  it("finds merchants by trade and town with the API's search, linking to their pages", async () => {
    const api = await server.getJson("/api/registry/search?q=boulangerie&limit=50");
    const someone = api.body.results[0]?.merchant;
    expect(someone).toBeDefined();
    const town = findTown(someone.city);
    expect(town?.name).toBe(someone.city);
    const near = await server.getJson(
      `/api/registry/search?q=boulangerie&lat=${town?.lat}&lng=${town?.lng}&radius=${TOWN_RADIUS_KM}&limit=20`,
    );
    const expected = near.body.results.map((result: { merchant: { ab_id: string } }) => result.merchant.ab_id);
    expect(expected).toContain(someone.ab_id);

    const response = await server.get(`/?metier=boulangerie&ville=${encodeURIComponent(someone.city)}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(links(page)).toEqual(expected);
    expect(page).toContain(`autour de ${someone.city} (${TOWN_RADIUS_KM} km)`);
    expect(page).toContain('<meta name="robots" content="noindex">');
    expect(page).toContain('value="boulangerie"');
  });

  it("says so when the town is unknown, and searches all of France", async () => {
    const page = await (await server.get("/?metier=boulangerie&ville=Nulle-Part-sur-Mer")).text();
    expect(page).toContain(
      "Nous ne connaissons pas la commune « Nulle-Part-sur-Mer » : la recherche porte sur toute la France.",
    );
    const api = await server.getJson("/api/registry/search?q=boulangerie&limit=20");
    expect(links(page)).toEqual(
      api.body.results.map((result: { merchant: { ab_id: string } }) => result.merchant.ab_id),
    );
  });

  it("refuses an overlong field with a French page", async () => {
    const response = await server.get(`/?metier=${"a".repeat(101)}`);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain("<h1>Recherche impossible</h1>");
    expect(page).toContain('<form class="search-form"');
  });
});

describe("the 404 page", () => {
  it("is French, not indexed, and offers the search", async () => {
    for (const target of ["/nulle-part", "/m/ab_zzzzzzzz/"]) {
      const response = await server.get(target);
      expect(response.status).toBe(404);
      const page = await response.text();
      expect(page).toContain('<meta name="robots" content="noindex">');
      expect(page).toContain("Erreur 404.");
      expect(page).toContain('<form class="search-form" method="get" action="/" role="search">');
      expect(page).toContain('href="/confidentialite"');
    }
  });
});

describe("the notices", () => {
  it("says who processes the data, why, how long, and the person's rights", async () => {
    const page = await (await server.get("/confidentialite")).text();
    for (const part of [
      "<h1>Confidentialité et données personnelles</h1>",
      "<h2>Qui traite vos données</h2>",
      "<h2>Quelles données, et pourquoi</h2>",
      "<h2>Combien de temps</h2>",
      "effacés 24 mois après le dernier échange",
      "<h2>Vos droits</h2>",
      'href="mailto:equipe@abeille.local"',
      "CNIL",
    ]) {
      expect(page).toContain(part);
    }
  });

  it("gives the legal notice, naming what the operator has not configured", async () => {
    const page = await (await server.get("/mentions-legales")).text();
    expect(page).toContain("<h1>Mentions légales</h1>");
    expect(page).toContain("non renseigné (variable OPERATOR_HOST de la configuration du service)");
  });

  it("are linked from every form that collects personal data", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const page = await (await server.get(`/m/${abId}/`)).text();
    const form = page.slice(page.indexOf('<form id="lead-form"'), page.indexOf("</form>"));
    expect(form).toContain('href="/confidentialite"');
    expect(page).toContain('href="/mentions-legales"');
  });
});

describe("crawlers", () => {
  it("robots.txt points at the sitemap", async () => {
    const response = await server.get("/robots.txt");
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text).toContain("User-agent: *\nAllow: /\n");
    expect(text).toContain(`Sitemap: ${TEST_BASE_URL}/sitemap.xml`);
  });

  it("the sitemap lists every published merchant's page and ai.md, and no other merchant", async () => {
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    const rows = db.$client.prepare("SELECT ab_id AS abId, status FROM merchants ORDER BY ab_id").all() as {
      abId: string;
      status: string;
    }[];
    db.$client.close();
    const published = rows.filter((row) => (PUBLISHED_STATUSES as readonly string[]).includes(row.status));
    expect(published.length).toBeLessThan(rows.length);
    const response = await server.get("/sitemap.xml");
    expect(response.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const xml = await response.text();
    const urls = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
    expect(urls).toEqual([
      `${TEST_BASE_URL}/`,
      ...published.flatMap((row) => [`${TEST_BASE_URL}/m/${row.abId}/`, `${TEST_BASE_URL}/m/${row.abId}/ai.md`]),
    ]);
  });

  it("serves the favicon", async () => {
    const response = await server.get("/favicon.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(await response.text()).toContain("<title>Abeille</title>");
  });
});
