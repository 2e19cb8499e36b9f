import { describe, expect, it } from "vitest";
import { escapeHtml, html, jsonForScript, raw } from "../../src/publish/html.ts";
import { buildJsonLd } from "../../src/publish/jsonld.ts";
import { LEAD_FORM_SCRIPT } from "../../src/publish/lead-form-script.ts";
import { buildMicrosite } from "../../src/publish/microsite.ts";
import { buildNotFoundPage } from "../../src/publish/not-found-page.ts";
import { AB_ID, BASE, tourismProfile, view } from "./publish-fixtures.ts";

/** The page's form token (its value is the server's affair; the page only carries it). */
const FORM = { token: "p".repeat(43) };

describe("the microsite page", () => {
  const page = buildMicrosite(view(), FORM);

  it("is a French HTML document with canonical and alternate links", () => {
    expect(page.startsWith('<!doctype html>\n<html lang="fr">')).toBe(true);
    expect(page).toContain(`<link rel="canonical" href="${BASE}/m/${AB_ID}/">`);
    expect(page).toContain(`<link rel="alternate" type="text/markdown" href="${BASE}/m/${AB_ID}/ai.md"`);
    expect(page).toContain(
      `<link rel="alternate" type="application/ld+json" href="${BASE}/api/merchants/${AB_ID}/jsonld"`,
    );
    expect(page).toContain('<link rel="stylesheet" href="/assets/microsite.css">');
  });

  it("embeds the JSON-LD so that it parses back to the document", () => {
    const script = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? "";
    expect(JSON.parse(script)).toEqual(buildJsonLd(view()));
    expect(script).not.toContain("<");
  });

  it("has landmarks, one h1, and the sections a visitor looks for", () => {
    expect(page).toContain('<main id="contenu"');
    expect(page).toContain("<header");
    expect(page).toContain("<footer");
    expect(page.match(/<h1/g)?.length).toBe(1);
    for (const heading of [
      "Score de confiance",
      "Prestations et tarifs",
      "Horaires",
      "Questions fréquentes",
      "Contacter",
    ]) {
      expect(page).toContain(heading);
    }
    expect(page).toContain("<summary>Comment contacter l&#39;agence ?</summary>");
    expect(page).toContain(`href="${BASE}/api/verify/siret_verified/${AB_ID}"`);
    expect(page).toContain("à partir de 1 234,50 €");
  });

  it("lists the exceptions to the usual week not over yet, in French", () => {
    const profile = tourismProfile();
    profile.merchant.hoursExceptions = [
      { from: "2026-05-01", to: "2026-05-01", hours: "fermé", note: null },
      { from: "2026-05-14", to: "2026-05-14", hours: "10:00-12:00,14:00-16:00", note: "Ascension" },
      { from: "2026-08-03", to: "2026-08-23", hours: "fermé", note: "congés d'été" },
    ];
    const withExceptions = buildMicrosite(view(profile), FORM);
    expect(withExceptions).toContain(
      '<h3>Horaires exceptionnels</h3>\n<ul class="hours-exceptions"><li>Le 14 mai 2026 : 10:00 – 12:00, 14:00 – 16:00 (Ascension)</li><li>Du 3 août 2026 au 23 août 2026 : fermé (congés d&#39;été)</li></ul>',
    );
    expect(withExceptions).not.toContain("Le 1er mai 2026 : fermé");
    expect(page).not.toContain("Horaires exceptionnels");
  });

  it("labels every form control, posts the form to the page itself, and JSON to the lead endpoint through the script", () => {
    const ids = [...page.matchAll(/<(?:input|select|textarea) id="([^"]+)"/g)].map((match) => match[1]);
    expect(ids.length).toBeGreaterThan(5);
    for (const id of ids) expect(page).toContain(`<label for="${id}">`);
    expect(page).toContain('name="metadata.nb_participants"');
    // Without JavaScript the form is an HTML form posted to the page, which answers in French.
    expect(page).toContain(`<form id="lead-form" class="lead-form" method="post" action="/m/${AB_ID}/#contact"`);
    expect(page).toContain(`<input type="hidden" name="form_token" value="${FORM.token}">`);
    expect(page).toContain('<button type="submit">Envoyer la demande</button>');
    expect(page).not.toContain("<noscript>");
    expect(page).not.toMatch(/<button[^>]*disabled/);
    // With JavaScript, the script posts JSON to the lead endpoint, with the form token in a header.
    expect(page).toContain('data-api="/api/contact/brick"');
    expect(page).toContain(`data-ab-id="${AB_ID}"`);
    expect(page).toContain(`<script>${LEAD_FORM_SCRIPT}</script>`);
    expect(LEAD_FORM_SCRIPT).toContain('"content-type": "application/json"');
    expect(LEAD_FORM_SCRIPT).toContain('headers["x-lead-form-token"] = token.value');
  });

  it("shows choices and tags in words, not codes", () => {
    expect(page).toContain('<option value="seminaire">Séminaire</option>');
    expect(page).toContain('<option value="team_building">Team building</option>');
    expect(page).toContain('<option value="visite_guidee">Visite guidée</option>');
    expect(page).not.toMatch(/<option value="[a-z_]+">[a-z_ ]+<\/option>/);
    // Product tags are search slugs: the page does not show them.
    expect(page).not.toContain('class="tag"');
  });

  it("says in a sentence whether an official register verified the identity, and when", () => {
    expect(page).toContain(
      '<p class="identity-check">Identité vérifiée auprès d&#39;un registre officiel, le répertoire SIRENE de l&#39;INSEE, le 1er mars 2026.</p>',
    );
  });

  it("needs no style attribute (the pages' CSP allows none): the trust bars are meters", () => {
    expect(page).not.toMatch(/\sstyle="/);
    expect(page).toMatch(/<meter class="bar" min="0" max="25" value="\d+" aria-hidden="true"><\/meter>/);
  });

  it("replaces the form with the reason when the merchant cannot be contacted", () => {
    const profile = tourismProfile();
    profile.merchant.status = "PAUSED";
    const paused = buildMicrosite(view(profile), FORM);
    expect(paused).not.toContain('id="lead-form"');
    expect(paused).toContain("le commerçant a mis son activité en pause");
    expect(paused).toContain("En pause");
  });

  it("escapes merchant text everywhere", () => {
    const profile = tourismProfile();
    profile.merchant.businessName = '<script>alert("x")</script>';
    const hostile = buildMicrosite(view(profile), FORM);
    expect(hostile).not.toContain('<script>alert("x")</script>');
    expect(hostile).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("keeps an unreviewed generated description off the page", () => {
    const profile = tourismProfile();
    profile.merchant.descriptionLlmUnreviewed = true;
    const unreviewed = buildMicrosite(view(profile), FORM);
    expect(unreviewed).not.toContain("séminaires et séjours de groupe autour du lac");
    expect(unreviewed).toContain("attend la validation du commerçant");
  });
});

describe("HTML helpers and the 404 page", () => {
  it("escapes interpolations unless marked safe", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(html`<p>${"<b>"}${raw("<i>ok</i>")}${["a", html`<br>`]}${null}${false}</p>`.value).toBe(
      "<p>&lt;b&gt;<i>ok</i>a<br></p>",
    );
    expect(jsonForScript({ text: "</script><!--" }).value).toBe('{"text":"\\u003c/script\\u003e\\u003c!--"}');
  });

  it("the 404 page is French", () => {
    const page = buildNotFoundPage();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain("<h1>Page introuvable</h1>");
  });
});
