import { createHash } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDateFr } from "../../src/publish/format-fr.ts";
import { TOWN_RADIUS_KM } from "../../src/publish/people-search.ts";
import { PUBLISHED_STATUSES } from "../../src/publish/view.ts";
import { createPlaceFinder } from "../../src/seed/communes.ts";
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
    expect(page).toContain('<form class="search-form" method="get" action="/#resultats" role="search">');
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
    const found = createPlaceFinder().find(someone.city);
    const town = found.place;
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

  it("says of each result whether an official register verified the identity, and when", async () => {
    // Every demo merchant's identity is verified: one check is made to have expired, one to be
    // missing (an operator's declaration nobody checked yet), as the store would hold them.
    const spared = new Set([
      ...(server.roster.cases.active_contactable ?? []),
      ...(server.roster.cases.order_ready ?? []),
    ]);
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    const listed = (
      db.$client
        .prepare("SELECT ab_id AS abId, business_name AS name FROM merchants WHERE status = 'ACTIVE' ORDER BY ab_id")
        .all() as { abId: string; name: string }[]
    ).filter((merchant) => !spared.has(merchant.abId));
    const [verified, expired, unchecked] = listed as [
      (typeof listed)[number],
      (typeof listed)[number],
      (typeof listed)[number],
    ];
    db.$client
      .prepare("UPDATE signals SET expires_at = '2026-02-01T09:00:00.000Z' WHERE ab_id = ? AND key = 'siret_verified'")
      .run(expired.abId);
    db.$client.prepare("DELETE FROM signals WHERE ab_id = ? AND key = 'siret_verified'").run(unchecked.abId);
    const checkOf = db.$client.prepare(
      "SELECT verified_at AS verifiedAt, recorded_at AS recordedAt FROM signals WHERE ab_id = ? AND key = 'siret_verified'",
    );
    const checkedOn = (abId: string) => {
      const row = checkOf.get(abId) as { verifiedAt: string | null; recordedAt: string };
      return formatDateFr(row.verifiedAt ?? row.recordedAt);
    };
    const expected = new Map([
      [
        verified.abId,
        `Identité vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le ${checkedOn(verified.abId)}.`,
      ],
      [
        expired.abId,
        `Identité vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le ${checkedOn(expired.abId)}, mais cette vérification a expiré le 1er février 2026 : elle est à renouveler.`,
      ],
      [unchecked.abId, "Identité non vérifiée : aucun registre officiel ne l'a confirmée à ce jour."],
    ]);
    db.$client.close();
    for (const merchant of [verified, expired, unchecked]) {
      const page = await (await server.get(`/?metier=${encodeURIComponent(merchant.name)}`)).text();
      const item = new RegExp(
        `<li class="result">\\s*<h3><a href="/m/${merchant.abId}/">[^<]*</a></h3>\\s*<p>[^<]*</p>\\s*<p class="result-identity">([^<]+)</p>`,
      ).exec(page);
      expect(item?.[1]?.replace(/&#39;/g, "'"), merchant.name).toBe(expected.get(merchant.abId));
      // The merchant's page says the same, in the same words.
      const own = await (await server.get(`/m/${merchant.abId}/`)).text();
      expect(/<p class="identity-check">([^<]+)<\/p>/.exec(own)?.[1]?.replace(/&#39;/g, "'")).toBe(
        expected.get(merchant.abId),
      );
    }
  });

  it("gives each result's address once", async () => {
    const page = await (await server.get("/?metier=boulangerie")).text();
    const lines = [...page.matchAll(/<h3><a href="\/m\/ab_[a-z0-9]{8}\/">[^<]*<\/a><\/h3>\s*<p>([^<]+)<\/p>/g)].map(
      (match) => match[1] as string,
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      // "Trade · street, postcode Town": the town once, after its postal code.
      expect(line).toMatch(/ · .*\b\d{5} [^,]+$/);
    }
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
      // Said in words: no status or error code is shown to people.
      expect(page).not.toMatch(/Erreur \d|\b404\b/);
      expect(page).toContain('<form class="search-form" method="get" action="/#resultats" role="search">');
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
      "les réponses écrites par le commerçant dans son espace Abeille et les messages à l'équipe sont effacés",
      "l'assistant IA qui a envoyé la demande peut la lire avec ce même code",
      // What the service does, no more: no email copy of a request is sent to the person.
      "Abeille ne vous envoie pas de copie de votre demande",
      "<h2>Vos droits</h2>",
      'href="mailto:equipe@abeille.local"',
      "CNIL",
    ]) {
      expect(page).toContain(part);
    }
    expect(page).not.toContain("copie et à suivre");
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

/** The lead form of a merchant's page, as a browser without JavaScript posts it. */
async function postForm(target: string, fields: Record<string, string>) {
  const response = await server.get(target, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, page: await response.text() };
}

function leadChannel(leadId: string): string | undefined {
  const db = openDatabase(path.join(server.dataDir, "abeille.db"));
  try {
    const row = db.$client.prepare("SELECT channel FROM leads WHERE lead_id = ?").get(leadId) as
      | { channel: string }
      | undefined;
    return row?.channel;
  } finally {
    db.$client.close();
  }
}

function leadCount(): number {
  const db = openDatabase(path.join(server.dataDir, "abeille.db"));
  try {
    return (db.$client.prepare("SELECT count(*) AS n FROM leads").get() as { n: number }).n;
  } finally {
    db.$client.close();
  }
}

/** A contactable merchant whose lead contract has a number field, and that field's name. */
async function merchantWithNumberField(): Promise<{ abId: string; name: string; field: string; formToken: string }> {
  for (const abId of server.roster.cases.active_contactable ?? []) {
    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data;
    const number = card.lead_contract.sector_fields.find((field: { type: string }) => field.type === "number");
    if (!number) continue;
    const page = await (await server.get(`/m/${abId}/`)).text();
    const formToken = /<input type="hidden" name="form_token" value="([A-Za-z0-9_-]{43})">/.exec(page)?.[1];
    if (!formToken) throw new Error(`the page of ${abId} carries no form token`);
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    return { abId, name: resolved.body.merchant.name, field: number.name, formToken };
  }
  throw new Error("the demo roster has no contactable merchant with a number field");
}

describe("the lead form without JavaScript", () => {
  it("sends the lead as the person's own, and answers the page with the tracking number and code", async () => {
    const { abId, name, formToken } = await merchantWithNumberField();
    const sent = await postForm(`/m/${abId}/`, {
      form_token: formToken,
      contact_name: "Lucie Ferrand",
      contact_email: "lucie.ferrand@exemple-prive.fr",
      contact_phone: "",
      lead_type: "contact",
      message: "Bonjour, êtes-vous ouverts samedi ?",
    });
    expect(sent.status).toBe(201);
    expect(sent.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(sent.headers.get("cache-control")).toBe("no-store");
    const leadId = /<strong class="tracking-id">([0-9a-f-]{36})<\/strong>/.exec(sent.page)?.[1] as string;
    const code = /<code class="tracking-token">([^<]+)<\/code>/.exec(sent.page)?.[1] as string;
    expect(code).toMatch(new RegExp(`^${leadId}\\.[A-Za-z0-9_-]{43}$`));
    expect(sent.page).toContain(`<p>Votre demande a bien été transmise à ${name.replace(/'/g, "&#39;")}.</p>`);
    expect(sent.page).toContain(
      `<form class="tracking-form" method="post" action="/suivi"><input type="hidden" name="code" value="${code}"><button type="submit">Suivre ma demande</button></form>`,
    );
    // The form is there again, empty, for another request.
    expect(sent.page).toContain(
      '<input id="champ-contact-name" name="contact_name" type="text" autocomplete="name" maxlength="100" value="" required>',
    );
    expect(leadChannel(leadId)).toBe("page");

    // The same code opens the request through the API: it is the lead's tracking token.
    const status = await server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": code } });
    expect(status.body.data.merchant.ab_id).toBe(abId);
  });

  it("says in French, next to each field, what to correct, keeps what was typed, and sends nothing", async () => {
    const { abId, field, formToken } = await merchantWithNumberField();
    const before = leadCount();
    const refused = await postForm(`/m/${abId}/`, {
      form_token: formToken,
      contact_name: "",
      contact_email: "camille@exemple",
      lead_type: "contact",
      message: "Pour une fête <de famille>",
      [`metadata.${field}`]: "beaucoup",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    const { page } = refused;
    expect(page).toContain(
      '<div id="lead-status" class="lead-status lead-error" role="status" aria-live="polite" tabindex="-1"><p>Certains champs sont à corriger.</p></div>',
    );
    expect(page).toContain('<p class="field-error" id="champ-contact-name-erreur">Ce champ est obligatoire.</p>');
    expect(page).toContain(
      '<p class="field-error" id="champ-contact-email-erreur">Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.</p>',
    );
    expect(page).toContain(
      `<p class="field-error" id="champ-metadata-${field.replace(/_/g, "-")}-erreur">Saisissez un nombre valide.</p>`,
    );
    expect(page).toContain('aria-invalid="true" aria-describedby="champ-contact-email-erreur"');
    expect(page).toContain('value="camille@exemple"');
    expect(page).toContain(">Pour une fête &lt;de famille&gt;</textarea>");
    expect(page).toContain('<option value="contact" selected>Demande de contact</option>');
    // No error code, no English message reaches the person (the script carries the table as data).
    const shown = page.replace(/<script>[\s\S]*?<\/script>/g, "");
    expect(shown).not.toMatch(/VALIDATION_ERROR|must be|is required|Référence de l/);
    expect(leadCount()).toBe(before);
  });

  it("takes a lead without the page's token as any program's", async () => {
    const { abId } = await merchantWithNumberField();
    const sent = await postForm(`/m/${abId}/`, {
      contact_name: "Lucie Ferrand",
      contact_email: "lucie.f@exemple-prive.fr",
      lead_type: "contact",
    });
    expect(sent.status).toBe(201);
    const leadId = /<strong class="tracking-id">([0-9a-f-]{36})<\/strong>/.exec(sent.page)?.[1] as string;
    expect(leadChannel(leadId)).toBe("api");
  });

  it("answers a form it cannot read, or an unknown merchant, with a French page", async () => {
    const { abId } = await merchantWithNumberField();
    const json = await server.get(`/m/${abId}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toContain("<h1>Formulaire illisible</h1>");
    const unknown = await postForm("/m/ab_zzzzzzzz/", { contact_name: "X" });
    expect(unknown.status).toBe(404);
    expect(unknown.page).toContain("<h1>Commerçant introuvable</h1>");
    // A merchant that takes no lead now: the page says so where the form would be, and why.
    const closed = server.roster.cases.contact_disabled?.[0] as string;
    const refused = await postForm(`/m/${closed}/`, {
      contact_name: "Lucie Ferrand",
      contact_email: "lucie.ferrand@exemple-prive.fr",
      lead_type: "contact",
    });
    expect(refused.status).toBe(400);
    expect(refused.page).toContain(
      '<div id="lead-status" class="lead-status lead-error" role="status" aria-live="polite" tabindex="-1"><p>Ce commerçant ne peut pas recevoir de demande pour le moment.</p></div>',
    );
    expect(refused.page).toContain("Ce commerçant ne reçoit pas de demandes par Abeille pour le moment");
  });
});

describe("the tracking page", () => {
  it("asks for the code in a form that posts it, never in the URL", async () => {
    const response = await server.get("/suivi");
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1 id="suivi">Suivre une demande</h1>');
    expect(page).toContain('<form class="search-form" method="post" action="/suivi">');
    expect(page).toContain('<meta name="robots" content="noindex">');
  });

  it("shows where the request is, that the merchant has not answered in its space, and that it may answer directly", async () => {
    const { abId, name, formToken } = await merchantWithNumberField();
    const sent = await postForm(`/m/${abId}/`, {
      form_token: formToken,
      contact_name: "Jules Armand",
      contact_email: "jules.armand@exemple-prive.fr",
      lead_type: "quote",
    });
    const leadId = /<strong class="tracking-id">([0-9a-f-]{36})<\/strong>/.exec(sent.page)?.[1] as string;
    const code = /<code class="tracking-token">([^<]+)<\/code>/.exec(sent.page)?.[1] as string;
    const followed = await postForm("/suivi", { code });
    expect(followed.status).toBe(200);
    expect(followed.headers.get("cache-control")).toBe("no-store");
    const escapedName = name.replace(/'/g, "&#39;");
    expect(followed.page).toContain(`<h2>Votre demande à ${escapedName}</h2>`);
    expect(followed.page).toContain(`<dd><a href="/m/${abId}/">${escapedName}</a></dd>`);
    expect(followed.page).toContain(`<dd class="tracking-id">${leadId}</dd>`);
    expect(followed.page).toMatch(/<dd>Demande de devis, envoyée le \d{1,2} \S+ \d{4} à \d{2}:\d{2}<\/dd>/);
    // No outbox worker runs beside this server: the lead is received, not yet handed over.
    expect(followed.page).toContain(
      '<dd class="tracking-state">Reçue par Abeille : elle part vers la messagerie du commerçant dans quelques instants.</dd>',
    );
    expect(followed.page).toContain("<h2>La réponse du commerçant</h2>");
    expect(followed.page).toContain(
      `<p class="merchant-response-state">Le commerçant n'a pas encore répondu depuis son espace Abeille.</p>`,
    );
    expect(followed.page).toContain("ces réponses-là ne passent pas par Abeille, qui ne peut pas les afficher ici");
    expect(followed.page).not.toContain("jules.armand");
  });

  it("gives the same French 404 for a wrong code and for no code a 400 that asks for it", async () => {
    const unknown = await postForm("/suivi", {
      code: "00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.page).toContain("Aucune demande ne correspond à ce code de suivi.");
    expect(unknown.page).toContain(
      'value="00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"',
    );
    const empty = await postForm("/suivi", { code: "  " });
    expect(empty.status).toBe(400);
    expect(empty.page).toContain("Saisissez le code de suivi de votre demande.");
  });
});

describe("every HTML page", () => {
  it("sends a Content-Security-Policy that allows only the page's own script and forbids framing", async () => {
    const abId = server.roster.cases.active_contactable?.[0];
    const answers = await Promise.all(
      [
        "/",
        "/?metier=boulangerie",
        `/m/${abId}/`,
        "/nulle-part",
        "/confidentialite",
        "/mentions-legales",
        "/suivi",
        `/?metier=${"a".repeat(101)}`,
      ].map((target) => server.get(target)),
    );
    const page = await answers[2]?.text();
    const script = /<script>([\s\S]*?)<\/script>/.exec(page ?? "")?.[1] as string;
    const hash = createHash("sha256").update(script, "utf8").digest("base64");
    for (const response of answers) {
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toBe(
        `default-src 'none'; script-src 'sha256-${hash}'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      );
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
    // The merchant page's inline markup needs nothing the policy refuses: no other script, no style attribute.
    expect(page?.match(/<script>/g)).toHaveLength(1);
    expect(page).not.toMatch(/\sstyle="/);
    // Documents for agents are not pages: no policy there.
    const card = await server.get(`/api/merchants/${abId}/decision-card`);
    expect(card.headers.get("content-security-policy")).toBeNull();
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

  it("dates each merchant's page by its last change: a write, or a signal expiry once it passed", async () => {
    const abId = server.roster.cases.probation?.[0] as string;
    const lastmodOf = async (url: string) => {
      const xml = await (await server.get("/sitemap.xml")).text();
      const escaped = url.replace(/[.?]/g, "\\$&");
      return new RegExp(`<url><loc>${escaped}</loc><lastmod>([^<]+)</lastmod></url>`).exec(xml)?.[1];
    };
    const page = `${TEST_BASE_URL}/m/${abId}/`;
    const before = await lastmodOf(page);
    expect(before).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const second = (at: number) => new Date(Math.floor(at / 1000) * 1000).toISOString();
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    try {
      // A product written an hour ago: the page and its ai.md are dated by it.
      const written = second(Date.now() - 3_600_000);
      db.$client.prepare("UPDATE products SET updated_at = ? WHERE ab_id = ?").run(written, abId);
      expect(await lastmodOf(page)).toBe(written.replace(".000Z", "Z"));
      expect(await lastmodOf(`${page}ai.md`)).toBe(written.replace(".000Z", "Z"));
      // A signal that expires two seconds from now changes the page then, with no other write.
      const expiry = second(Date.now() + 2_000);
      const changed = db.$client
        .prepare("UPDATE signals SET expires_at = ? WHERE ab_id = ? AND key = 'siret_verified'")
        .run(expiry, abId);
      expect(changed.changes).toBe(1);
      expect(await lastmodOf(page)).toBe(written.replace(".000Z", "Z"));
      await new Promise((resolve) => setTimeout(resolve, Date.parse(expiry) - Date.now() + 300));
      expect(await lastmodOf(page)).toBe(expiry.replace(".000Z", "Z"));
    } finally {
      db.$client.close();
    }
  });

  it("serves the favicon", async () => {
    const response = await server.get("/favicon.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(await response.text()).toContain("<title>Abeille</title>");
  });
});
