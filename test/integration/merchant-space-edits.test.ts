/**
 * The merchant keeps its own listing, over HTTP against the built server, signed in through a real
 * OpenID provider configured like ProConnect (test/helpers/proconnect.ts): each edit of
 * /pro/{ab_id} goes through the operator's doors with the merchant as the audit actor, moves the
 * change feed, and shows in resolve, the decision card, the JSON-LD, ai.md and the Q&A cluster after
 * the refresh; the lead email is used only once the link sent to it is opened. Security: another
 * merchant's listing is 404, a form without the session's CSRF token is 403, fields only official
 * sources prove are refused by name with nothing written, and edits are rate limited per claim.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import {
  decodeHtml,
  type SignedIn,
  signInThroughProConnect,
  startServerWithProConnect,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

const EDITS_PER_HOUR = 12;
let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;
/** The outbox worker `npm start` runs beside the server (the test server has none): run on demand. */
let app: App;
let worker: OutboxWorker;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({
    count: 120,
    env: { PRO_SIGN_INS_HOURLY: "1000", PRO_CLAIMS_HOURLY: "1000", PRO_EDITS_HOURLY: String(EDITS_PER_HOUR) },
  }));
  app = createApp(loadConfig());
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  app?.close();
  await close?.();
});

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const merchantRow = (abId: string) =>
  query<Record<string, unknown>>("SELECT * FROM merchants WHERE ab_id = ?", abId)[0] as Record<string, unknown>;

let nextCase = 0;
/** A demo merchant of the given case, one per test (a claim by one test must not change another's). */
function freshListing(kind = "active_contactable"): { abId: string; siret: string } {
  const ids = server.roster.cases[kind] ?? [];
  const abId = ids[nextCase++ % ids.length];
  if (!abId) throw new Error(`the demo has no ${kind} merchant`);
  const siret = merchantRow(abId).siret as string;
  return { abId, siret };
}

/** Signs in for the listing's SIRET and claims it: the person and its claim's audit actor. */
async function claimed(abId: string, siret: string): Promise<{ person: SignedIn; actor: string }> {
  const person = await signInThroughProConnect(server.url, provider, { siret, siren: siret.slice(0, 9) });
  const claim = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } });
  expect(claim.status).toBe(303);
  const [row] = query<{ claim_id: string }>(
    "SELECT claim_id FROM merchant_claims WHERE ab_id = ? AND subject = ?",
    abId,
    person.sub,
  );
  return { person, actor: `merchant:${row?.claim_id}` };
}

async function post(person: SignedIn, abId: string, form: Record<string, string>) {
  const response = await person.fetch(`/pro/${abId}/`, { form: { csrf: person.csrfToken, ...form } });
  return { status: response.status, page: decodeHtml(await response.text()) };
}

const eventsOf = (abId: string, since: number) =>
  query<{ actor: string; action: string; changes: string }>(
    "SELECT actor, action, changes FROM merchant_events WHERE ab_id = ? AND event_id > ? ORDER BY event_id",
    abId,
    since,
  );
const lastEventId = () => query<{ id: number }>("SELECT max(event_id) AS id FROM merchant_events")[0]?.id ?? 0;
const feedOf = (abId: string, since: number) =>
  query<{ change: string }>(
    "SELECT change FROM merchant_changes WHERE ab_id = ? AND seq > ? ORDER BY seq",
    abId,
    since,
  ).map((row) => row.change);
const lastSeq = () => query<{ seq: number }>("SELECT max(seq) AS seq FROM merchant_changes")[0]?.seq ?? 0;

/** The .eml files the server's outbox thread wrote, decoded (quoted-printable). */
function emailsTo(address: string): string[] {
  const dir = path.join(server.dataDir, "outbox");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.includes("lead_email_confirmation") && name.endsWith(".eml"));
  } catch {
    return [];
  }
  return names
    .map((name) => decodeQuotedPrintable(readFileSync(path.join(dir, name), "utf8")))
    .filter((text) => text.includes(`To: ${address}`));
}

async function refresh(): Promise<void> {
  const job = await runJob(["jobs/refresh.ts", "--quiet"], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL });
  expect(job.code, job.stderr).toBe(0);
}

describe("the merchant keeps its listing", () => {
  let abId: string;
  let person: SignedIn;
  let actor: string;
  let since: number;
  let seqBefore: number;

  beforeAll(async () => {
    const listing = freshListing();
    abId = listing.abId;
    ({ person, actor } = await claimed(abId, listing.siret));
    since = lastEventId();
    seqBefore = lastSeq();
  });

  it("shows the listing as agents see it, what would raise the score, and the official facts out of reach", async () => {
    const response = await person.fetch(`/pro/${abId}/`);
    const page = decodeHtml(await response.text());
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const row = merchantRow(abId);
    expect(page).toContain("<dt>Statut</dt><dd>Actif</dd>");
    expect(page).toMatch(
      /<dt>Identité<\/dt><dd>Identité vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le \d/,
    );
    expect(page).toMatch(/<dt>Score de confiance<\/dt><dd>\d+ \/ 100 \(/);
    expect(page).toContain(`<a href="/pro/${abId}/demandes">Demandes reçues et réponses</a>`);
    expect(page).toContain("Ce qui ferait monter votre score");
    expect(page).toContain("Ce que seules les sources officielles prouvent (rien à saisir ici)");
    expect(page).toContain(`<dt>SIRET</dt><dd>${row.siret}</dd>`);
    // The official facts are shown, never as a field of a form.
    expect(page).not.toMatch(/name="(legal_name|siret|address|naf_code|founded_on)"/);
  });

  it("saves contact details, hours, a product with its price and an approved brand voice, as the merchant", async () => {
    const contact = await post(person, abId, {
      section: "coordonnees",
      phone: "+33 5 49 00 00 01",
      website: "https://www.exemple-voyages.fr",
      description: "Agence de voyages à Niort, écrite par nous.",
      languages: "fr, en, es",
      zones: "79000\nBessines",
    });
    expect(contact.status).toBe(200);
    expect(contact.page).toContain("Vos coordonnées sont enregistrées.");
    const hours = await post(person, abId, {
      section: "horaires",
      "hours.lundi": "09:00-12:30,14:00-18:30",
      "hours.samedi": "09:00-12:00",
      "hours.dimanche": "fermé",
    });
    expect(hours.page).toContain("Vos horaires sont enregistrés.");
    const products = await post(person, abId, {
      section: "produits",
      "products.0.slug": "",
      "products.0.name": "Séjour découverte du Marais poitevin",
      "products.0.description": "Deux jours en barque et à vélo.",
      "products.0.brick_type": "service",
      "products.0.pricing_model": "from",
      "products.0.price": "249,90",
    });
    expect(products.status).toBe(200);
    const voice = await post(person, abId, {
      section: "voix",
      "brand_voice.tone": "Chaleureux et précis",
      "brand_voice.values": "Proximité\nTransparence",
      "brand_voice.do": "Parler des séjours en groupe",
      "brand_voice.dont": "Promettre des prix sans devis",
      "brand_voice.is_published": "1",
    });
    expect(voice.page).toContain("Votre voix de marque est enregistrée.");

    const row = merchantRow(abId);
    expect([row.phone, row.website, row.description, row.description_llm_unreviewed]).toEqual([
      "+33 5 49 00 00 01",
      "https://www.exemple-voyages.fr",
      "Agence de voyages à Niort, écrite par nous.",
      0,
    ]);
    expect(JSON.parse(row.hours as string)).toEqual({
      lundi: "09:00-12:30,14:00-18:30",
      samedi: "09:00-12:00",
      dimanche: "fermé",
    });
    expect(JSON.parse(row.brand_voice as string)).toMatchObject({ tone: "Chaleureux et précis", is_published: true });
    const added = query<{ name: string; price_cents: number; pricing_model: string }>(
      "SELECT name, price_cents, pricing_model FROM products WHERE ab_id = ? AND slug = 'sejour-decouverte-du-marais-poitevin'",
      abId,
    );
    expect(added).toEqual([
      { name: "Séjour découverte du Marais poitevin", price_cents: 24990, pricing_model: "from" },
    ]);
    const events = eventsOf(abId, since);
    expect(events.map((event) => [event.actor, event.action])).toEqual([
      [actor, "updated"],
      [actor, "updated"],
      [actor, "updated"],
      [actor, "updated"],
    ]);
    expect(feedOf(abId, seqBefore)).toEqual(["updated", "updated", "updated", "updated"]);
  });

  it("keeps the values typed and says in French, beside each field, what to correct; nothing is written", async () => {
    const before = merchantRow(abId);
    const refused = await post(person, abId, {
      section: "coordonnees",
      phone: "05 49 00 00 02",
      website: "exemple-voyages",
      description: "Texte gardé tel que tapé",
      languages: "fr",
      zones: "79000",
    });
    expect(refused.status).toBe(400);
    expect(refused.page).toContain("Rien n'a été enregistré : corrigez les champs signalés.");
    expect(refused.page).toContain(
      '<span class="field-error" id="f-phone-erreur">Saisissez un numéro au format international, par exemple +33 6 12 34 56 78.</span>',
    );
    expect(refused.page).toContain(
      '<span class="field-error" id="f-website-erreur">Saisissez l\'adresse complète du site, commençant par https://.</span>',
    );
    expect(refused.page).toContain(
      'name="phone" aria-describedby="f-phone-aide f-phone-erreur" aria-invalid="true" type="tel" value="05 49 00 00 02"',
    );
    expect(refused.page).toContain(">Texte gardé tel que tapé</textarea>");
    expect(merchantRow(abId)).toEqual(before);
  });

  it("refuses a forged form with fields only official sources prove, by name, and changes nothing", async () => {
    const before = merchantRow(abId);
    const eventsBefore = lastEventId();
    const forged = await post(person, abId, {
      section: "coordonnees",
      phone: "+33 5 49 00 00 03",
      legal_name: "Autre SARL",
      naf_code: "47.11B",
      founded_on: "2001-01-01",
    });
    expect(forged.status).toBe(400);
    expect(forged.page).toContain(
      "Rien n'a été enregistré : la raison sociale, le code NAF, la date de création viennent des registres officiels (SIRENE) et ne se modifient pas ici.",
    );
    expect(merchantRow(abId)).toEqual(before);
    expect(lastEventId()).toBe(eventsBefore);
  });

  it("sends the lead email's link, keeps leads where they went until it is opened and the old address told, then uses the new address once", async () => {
    const oldEmail = merchantRow(abId).email;
    const asked = await post(person, abId, { section: "e-mail", email: "demandes@exemple-voyages.fr" });
    expect(asked.status).toBe(200);
    expect(asked.page).toContain(
      "Un lien de confirmation a été envoyé à demandes@exemple-voyages.fr. L'adresse sera utilisée une fois le lien ouvert ; d'ici là, rien ne change.",
    );
    expect(merchantRow(abId).email).toBe(oldEmail);
    await worker.runNow();
    const [email] = emailsTo("demandes@exemple-voyages.fr");
    if (!email) throw new Error("no confirmation email in DATA_DIR/outbox");
    expect(email).toContain("a été indiquée pour recevoir les demandes de clients adressées à");
    const link = /http:\/\/abeille\.test(\/pro\/ab_[a-z0-9]{8}\/e-mail\/confirmer\?jeton=[A-Za-z0-9_-]{43})/.exec(
      email,
    )?.[1];
    if (!link) throw new Error(`no link in:\n${email}`);
    const token = link.slice(link.indexOf("jeton=") + 6);
    // Only the token's SHA-256 is stored.
    expect(
      query<{ n: number }>(
        "SELECT count(*) AS n FROM lead_email_confirmations WHERE token_hash LIKE ?",
        `%${token}%`,
      )[0]?.n,
    ).toBe(0);

    // Opening the link (a mail scanner does) changes nothing; its button confirms, without a session.
    const opened = await fetch(`${server.url}${link}`);
    expect(opened.status).toBe(200);
    expect(merchantRow(abId).email).toBe(oldEmail);
    const confirm = (jeton: string) =>
      fetch(`${server.url}/pro/${abId}/e-mail/confirmer`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ jeton }).toString(),
      });
    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(200);
    expect(decodeHtml(await confirmed.text())).toContain(
      `Les demandes de clients arriveront à <strong>demandes@exemple-voyages.fr</strong> dès qu'il sera parti ; d'ici là, elles continuent d'arriver à ${oldEmail}.`,
    );
    // In force once the notice to the address it replaces is sent (test/integration/merchant-space-notices.test.ts).
    await worker.runNow();
    expect(merchantRow(abId).email).toBe("demandes@exemple-voyages.fr");
    expect(eventsOf(abId, since).at(-1)).toMatchObject({ actor, action: "updated" });
    const again = await confirm(token);
    expect(again.status).toBe(409);
    expect(decodeHtml(await again.text())).toContain("Ce lien a déjà servi : l'adresse est confirmée.");
    expect((await confirm("x".repeat(43))).status).toBe(404);
  });

  it("verifies one Q&A answer as it is and corrects another", async () => {
    const nodes = query<{ node_id: string; answer: string }>(
      "SELECT n.node_id, n.answer FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = ? ORDER BY c.position, n.position",
      abId,
    );
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    const [first, second] = nodes as [{ node_id: string; answer: string }, { node_id: string; answer: string }];
    const verified = await post(person, abId, {
      section: "question",
      node_id: first.node_id,
      answer: first.answer,
      action: "verify",
    });
    expect(verified.page).toContain("La réponse est validée telle quelle.");
    const corrected = await post(person, abId, {
      section: "question",
      node_id: second.node_id,
      answer: "Oui, nous organisons des séjours de groupe toute l'année. Devis sous 48 heures.",
      action: "correct",
    });
    expect(corrected.page).toContain("Votre correction est enregistrée.");
    const stored = query<{
      node_id: string;
      edited_by_merchant: number;
      human_verified_at: string | null;
      answer: string;
    }>(
      "SELECT node_id, edited_by_merchant, human_verified_at, answer FROM qa_nodes WHERE node_id IN (?, ?) ORDER BY node_id = ? DESC",
      first.node_id,
      second.node_id,
      first.node_id,
    );
    expect(stored.map((node) => [node.edited_by_merchant, node.human_verified_at !== null, node.answer])).toEqual([
      [0, true, first.answer],
      [1, true, "Oui, nous organisons des séjours de groupe toute l'année. Devis sous 48 heures."],
    ]);
  });

  it("publishes every edit at the next refresh: resolve, decision card, JSON-LD, ai.md and the Q&A cluster", async () => {
    await refresh();
    const resolved = (await server.getJson(`/api/registry/resolve/${abId}`)).body;
    const card = (await server.getJson(`/api/merchants/${abId}/decision-card`)).body.data.decision_card;
    for (const view of [resolved, card]) {
      const text = JSON.stringify(view);
      expect(text).toContain("Séjour découverte du Marais poitevin");
    }
    const brick = (card.bricks_inventory as { name: string; price_cents: number | null }[]).find(
      (item) => item.name === "Séjour découverte du Marais poitevin",
    );
    expect(brick?.price_cents).toBe(24990);
    expect(findKey(card, "hours")).toEqual({
      lundi: "09:00-12:30,14:00-18:30",
      samedi: "09:00-12:00",
      dimanche: "fermé",
    });
    const jsonld = (await server.getJson(`/api/merchants/${abId}/jsonld`)).body;
    const jsonldText = JSON.stringify(jsonld);
    expect(jsonldText).toContain('"telephone":"+33 5 49 00 00 01"');
    expect(jsonldText).toContain("Séjour découverte du Marais poitevin");
    const aiMd = await (await server.get(`/m/${abId}/ai.md`)).text();
    expect(aiMd).toContain("+33 5 49 00 00 01");
    expect(aiMd).toContain("Séjour découverte du Marais poitevin");
    const clusterId = query<{ cluster_id: string }>(
      "SELECT c.cluster_id FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE n.edited_by_merchant = 1 AND c.ab_id = ?",
      abId,
    )[0]?.cluster_id;
    const cluster = (await server.getJson(`/api/clusters/${clusterId}`)).body.data;
    const edited = (
      cluster.nodes as { edited_by_merchant: boolean; answer: string; verification: { edited_by_merchant: boolean } }[]
    ).find((node) => node.edited_by_merchant);
    expect(edited?.answer).toBe("Oui, nous organisons des séjours de groupe toute l'année. Devis sous 48 heures.");
    expect(edited?.verification.edited_by_merchant).toBe(true);
  });

  it("pauses and resumes the listing; nothing else of the lifecycle is the merchant's", async () => {
    const paused = await post(person, abId, { section: "statut", to: "pause" });
    expect(paused.page).toContain("Votre fiche est en pause : les agents ne vous transmettent plus de demande.");
    expect(merchantRow(abId).status).toBe("PAUSED");
    const resumed = await post(person, abId, { section: "statut", to: "resume" });
    expect(resumed.page).toContain("Votre fiche est de nouveau active.");
    expect(merchantRow(abId).status).toBe("ACTIVE");
    expect(
      eventsOf(abId, since)
        .filter((event) => event.action === "status_changed")
        .map((event) => event.actor),
    ).toEqual([actor, actor]);
  });
});

describe("the merchant's dated exceptions to its hours", () => {
  let abId: string;
  let person: SignedIn;

  beforeAll(async () => {
    const listing = freshListing();
    abId = listing.abId;
    ({ person } = await claimed(abId, listing.siret));
  });

  it("saves them with the week, one per line, and shows them back in date order", async () => {
    const saved = await post(person, abId, {
      section: "horaires",
      "hours.mardi": "07:00-19:30",
      "hours.vendredi": "07:00-19:30",
      hours_exceptions: "24/12/2027 : 07:00-12:00 (veille de Noël)\r\n02/08/2027 au 22/08/2027 : fermé (congés d'été)",
    });
    expect(saved.status).toBe(200);
    expect(saved.page).toContain("Vos horaires sont enregistrés.");
    expect(JSON.parse(merchantRow(abId).hours_exceptions as string)).toEqual([
      { from: "2027-08-02", to: "2027-08-22", hours: "fermé", note: "congés d'été" },
      { from: "2027-12-24", to: "2027-12-24", hours: "07:00-12:00", note: "veille de Noël" },
    ]);
    const page = decodeHtml(await (await person.fetch(`/pro/${abId}/`)).text());
    expect(page).toContain(
      "02/08/2027 au 22/08/2027 : fermé (congés d'été)\n24/12/2027 : 07:00-12:00 (veille de Noël)</textarea>",
    );
  });

  it("refuses a line it cannot take, in French, naming the line, with nothing written", async () => {
    const before = merchantRow(abId).hours_exceptions;
    const refused = await post(person, abId, {
      section: "horaires",
      "hours.mardi": "07:00-19:30",
      hours_exceptions: "24/12/2027 : 07:00-12:00\n10/08/2027 au 01/08/2027 : fermé",
    });
    expect(refused.status).toBe(400);
    expect(refused.page).toContain(
      '<span class="field-error" id="f-hours-exceptions-erreur">Ligne 2 : La date de fin est avant la date de début.</span>',
    );
    expect(refused.page).toContain("10/08/2027 au 01/08/2027 : fermé</textarea>");
    const unreadable = await post(person, abId, { section: "horaires", hours_exceptions: "Noël : fermé" });
    expect(unreadable.status).toBe(400);
    expect(unreadable.page).toContain("Ligne 1 : Écrivez la date comme 24/12/2026.");
    expect(merchantRow(abId).hours_exceptions).toBe(before);
  });

  it("reaches the search at once and the merchant page at the next refresh", async () => {
    const name = merchantRow(abId).business_name as string;
    const opening = async () => {
      const { body } = await server.getJson(
        `/api/registry/search?q=${encodeURIComponent(name)}&limit=50&at=${encodeURIComponent("2027-12-24T13:00:00+01:00")}`,
      );
      return body.results.find((result: { merchant: { ab_id: string } }) => result.merchant.ab_id === abId)?.merchant
        .opening;
    };
    expect(await opening()).toEqual({
      open_now: false,
      today: "07:00-12:00 (exception: veille de Noël)",
      next_change: "2027-12-28T07:00:00+01:00",
    });
    await refresh();
    const merchantPage = decodeHtml(await (await server.get(`/m/${abId}/`)).text());
    expect(merchantPage).toContain(
      '<h3>Horaires exceptionnels</h3>\n<ul class="hours-exceptions"><li>Du 2 août 2027 au 22 août 2027 : fermé (congés d\'été)</li><li>Le 24 décembre 2027 : 07:00 – 12:00 (veille de Noël)</li></ul>',
    );
  });
});

/** The first value of `key` anywhere in a JSON value. */
function findKey(value: unknown, key: string): unknown {
  if (value === null || typeof value !== "object") return undefined;
  if (!Array.isArray(value) && key in value) return (value as Record<string, unknown>)[key];
  for (const child of Object.values(value)) {
    const found = findKey(child, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe("security of the listing's space", () => {
  it("answers 404 for another merchant's listing, read or posted, and for a malformed id", async () => {
    const mine = freshListing();
    const other = freshListing();
    const { person } = await claimed(mine.abId, mine.siret);
    const before = merchantRow(other.abId);
    const read = await person.fetch(`/pro/${other.abId}/`);
    expect(read.status).toBe(404);
    expect(decodeHtml(await read.text())).toContain("Cette fiche n'est pas dans votre espace professionnel.");
    const posted = await post(person, other.abId, { section: "coordonnees", phone: "+33 1 00 00 00 00" });
    expect(posted.status).toBe(404);
    expect((await person.fetch("/pro/pas-un-id/")).status).toBe(404);
    expect(merchantRow(other.abId)).toEqual(before);
  });

  it("refuses a form without the session's CSRF token, and sends a signed-out visitor to /pro", async () => {
    const { abId, siret } = freshListing();
    const { person } = await claimed(abId, siret);
    const before = merchantRow(abId);
    for (const csrf of ["", "A".repeat(43)]) {
      const response = await person.fetch(`/pro/${abId}/`, {
        form: { csrf, section: "coordonnees", phone: "+33 1 00 00 00 00" },
      });
      expect(response.status).toBe(403);
    }
    expect(merchantRow(abId)).toEqual(before);
    const signedOut = await fetch(`${server.url}/pro/${abId}/`, { redirect: "manual" });
    expect([signedOut.status, signedOut.headers.get("location")]).toEqual([303, "/pro"]);
  });

  it("a lead email link asked for through a claim revoked since changes nothing", async () => {
    const { abId, siret } = freshListing();
    const { person, actor } = await claimed(abId, siret);
    const before = merchantRow(abId).email;
    await post(person, abId, { section: "e-mail", email: "revoque@exemple-voyages.fr" });
    await worker.runNow();
    const link = /http:\/\/abeille\.test\/pro\/ab_[a-z0-9]{8}\/e-mail\/confirmer\?jeton=([A-Za-z0-9_-]{43})/.exec(
      emailsTo("revoque@exemple-voyages.fr")[0] ?? "",
    );
    const revoked = await runJob(
      ["jobs/merchants.ts", "revoke-claim", actor.slice("merchant:".length), "--reason", "test de révocation"],
      { dataDir: server.dataDir, baseUrl: TEST_BASE_URL },
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    const confirmed = await fetch(`${server.url}/pro/${abId}/e-mail/confirmer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ jeton: link?.[1] ?? "" }).toString(),
    });
    expect(confirmed.status).toBe(409);
    expect(decodeHtml(await confirmed.text())).toContain(
      "Ce lien a été demandé par une personne qui ne gère plus cette fiche : il ne change rien.",
    );
    expect(merchantRow(abId).email).toBe(before);
  });

  it("leaves probation to the operator: no pause for a listing in probation", async () => {
    const { abId, siret } = freshListing("probation");
    const { person } = await claimed(abId, siret);
    const page = decodeHtml(await (await person.fetch(`/pro/${abId}/`)).text());
    expect(page).toContain("Votre fiche est en période probatoire");
    expect(page).not.toContain('name="to" value="pause"');
    const forged = await post(person, abId, { section: "statut", to: "pause" });
    expect(forged.status).toBe(409);
    expect(merchantRow(abId).status).toBe("PROBATION");
  });

  it(`limits a claim to ${EDITS_PER_HOUR} edits an hour`, async () => {
    const { abId, siret } = freshListing();
    const { person } = await claimed(abId, siret);
    for (let edit = 0; edit < EDITS_PER_HOUR; edit++) {
      const saved = await post(person, abId, { section: "horaires", "hours.lundi": `09:00-1${edit % 10}:00` });
      expect(saved.status).toBe(200);
    }
    const refused = await post(person, abId, { section: "horaires", "hours.lundi": "08:00-12:00" });
    expect(refused.status).toBe(429);
    expect(refused.page).toMatch(/Trop de modifications en peu de temps\. Réessayez dans \d+ minute\(s\)\./);
    expect(JSON.parse(merchantRow(abId).hours as string).lundi).not.toBe("08:00-12:00");
  });
});
