/**
 * Nobody changes where a listing's leads go, or who manages it, in silence (issue 36), over HTTP
 * against the built server, signed in through a real OpenID provider configured like ProConnect
 * and through a letter's code: a claim is told, in French, to the lead address in force and to the
 * other claimants (what changed, when, by which organisation and never which person, how to report
 * it); a confirmed lead email is told to the address it replaces and takes effect only once that
 * notice is sent (a lead sent meanwhile still goes to the old address); the operators' change is
 * told all the same. The emails are read from the files the outbox writes (DATA_DIR/outbox).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { frenchDateTime } from "../../src/domain/leads/email-format.ts";
import { formatSiren, formatSiret } from "../../src/domain/siret.ts";
import { drainOutbox } from "../../src/mail/dispatch-outbox.ts";
import { dispatchDeps } from "../../src/mail/outbox-worker.ts";
import { createMailTransport, type MailTransport } from "../../src/mail/transport.ts";
import { subjectOf, textPart } from "../helpers/eml.ts";
import { sendLead } from "../helpers/leads.ts";
import { codesIn, pdfPagesText } from "../helpers/letters-pdf.ts";
import {
  CookieJar,
  csrfTokenIn,
  decodeHtml,
  type SignedIn,
  signInThroughProConnect,
  startServerWithProConnect,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

const TEAM = "signalements@abeille.test";
let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;
/**
 * The outbox as `npm start` runs it beside the server (the test server has none), drained only
 * when a test says: not a worker, which the server's commits in this process would wake.
 */
let app: App;
let transport: MailTransport;
const deliver = () => drainOutbox(dispatchDeps(app, transport));
const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-notices-"));

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({
    count: 80,
    env: {
      PRO_SIGN_INS_HOURLY: "1000",
      PRO_CLAIMS_HOURLY: "1000",
      PLATFORM_TEAM_EMAIL: TEAM,
      SMTP_URL: "",
      SMTP_HOST: "",
    },
  }));
  app = createApp(loadConfig());
  transport = createMailTransport(app.config.mail);
}, 120_000);
afterAll(async () => {
  transport?.close();
  app?.close();
  await close?.();
  rmSync(scratch, { recursive: true, force: true });
});

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

interface ListingRow {
  ab_id: string;
  siret: string;
  business_name: string;
  legal_name: string;
  city: string;
  email: string;
}

const listingRow = (abId: string) =>
  query<ListingRow>(
    "SELECT ab_id, siret, business_name, legal_name, city, email FROM merchants WHERE ab_id = ?",
    abId,
  )[0];

const used = new Set<string>();
/** An active listing with a lead email nobody has claimed yet, one per test. */
function freshListing(): ListingRow {
  const ids = server.roster.cases.active_contactable ?? [];
  for (const abId of ids) {
    const row = listingRow(abId);
    if (used.has(abId) || !row?.email) continue;
    used.add(abId);
    return row;
  }
  throw new Error("no listing left with a lead email");
}

interface Email {
  to: string;
  subject: string;
  text: string;
  raw: string;
}

/** The emails of one kind the outbox wrote to one address, oldest first. */
function emailsTo(address: string, kind = "space_notice"): Email[] {
  const dir = path.join(server.dataDir, "outbox");
  return readdirSync(dir)
    .filter((name) => name.includes(`-${kind}-`) && name.endsWith(".eml"))
    .sort()
    .map((name) => readFileSync(path.join(dir, name), "utf8"))
    .filter((raw) => raw.split(/\r?\n/).some((line) => line.toLowerCase() === `to: ${address.toLowerCase()}`))
    .map((raw) => ({ to: address, subject: subjectOf(raw), text: textPart(raw), raw }));
}

async function claimThroughProConnect(listing: ListingRow, person: { email: string; given: string; usual: string }) {
  const signedIn = await signInThroughProConnect(server.url, provider, {
    siret: listing.siret,
    siren: listing.siret.slice(0, 9),
    email: person.email,
    givenName: person.given,
    usualName: person.usual,
  });
  const claimed = await signedIn.fetch("/pro/revendiquer", {
    form: { csrf: signedIn.csrfToken, ab_id: listing.ab_id },
  });
  expect(claimed.status).toBe(303);
  const [row] = query<{ claim_id: string; created_at: string }>(
    "SELECT claim_id, created_at FROM merchant_claims WHERE ab_id = ? AND subject = ?",
    listing.ab_id,
    signedIn.sub,
  );
  if (!row) throw new Error("no claim");
  return { signedIn, claimId: row.claim_id, at: row.created_at };
}

const reportLine = (listing: ListingRow, at: string) =>
  `Si ni vous ni une personne de votre entreprise n'en êtes à l'origine, écrivez à ${TEAM} en indiquant la fiche (${listing.business_name}, ${listing.ab_id}) et la date du changement (${frenchDateTime(at)}). L'équipe vérifiera, pourra retirer l'accès à la fiche et rétablir ce qui a été changé.`;
const listingLine = (listing: ListingRow) =>
  `Fiche : ${listing.business_name} (${listing.ab_id}), SIRET ${formatSiret(listing.siret)}, ${listing.city}`;
const byProConnect = (listing: ListingRow) =>
  `Par : une personne identifiée par ProConnect pour l'entreprise ${listing.legal_name} (SIREN ${formatSiren(listing.siret.slice(0, 9))})`;
const TO_LEAD_ADDRESS = (listing: ListingRow) =>
  `Vous recevez ce message parce que cette adresse reçoit les demandes de clients adressées à ${listing.business_name} sur Abeille, le registre des commerçants vérifiés.`;
const TO_CLAIMANT = (listing: ListingRow) =>
  `Vous recevez ce message parce que vous gérez la fiche ${listing.business_name} dans l'espace professionnel d'Abeille.`;

describe("a claim is told", () => {
  it("to the lead address, then to the earlier claimants, naming the organisation and never the person", async () => {
    const listing = freshListing();
    const first = await claimThroughProConnect(listing, {
      email: "marie.durand@exemple-perso.fr",
      given: "Marie",
      usual: "Durand",
    });
    await deliver();
    const [toLead, ...more] = emailsTo(listing.email);
    expect(more).toEqual([]);
    if (!toLead) throw new Error("no notice to the lead address");
    expect(toLead.subject).toBe(`[Abeille] ${listing.business_name} : la fiche a été revendiquée`);
    expect(toLead.raw).toMatch(new RegExp(`^Reply-To: .*${TEAM.replaceAll(".", "\\.")}`, "m"));
    for (const line of [
      TO_LEAD_ADDRESS(listing),
      listingLine(listing),
      "Changement : la fiche a été revendiquée dans l'espace professionnel : la personne qui l'a revendiquée peut désormais la modifier (coordonnées, horaires, produits, adresse des demandes) et répondre aux demandes",
      `Date : ${frenchDateTime(first.at)}`,
      byProConnect(listing),
      reportLine(listing, first.at),
    ]) {
      expect(toLead.text).toContain(line);
    }
    for (const personal of ["Marie", "Durand", "marie.durand"]) expect(toLead.raw).not.toContain(personal);

    const second = await claimThroughProConnect(listing, {
      email: "paul.martin@exemple-perso.fr",
      given: "Paul",
      usual: "Martin",
    });
    await deliver();
    expect(emailsTo(listing.email)).toHaveLength(2);
    const [toFirst, ...again] = emailsTo("marie.durand@exemple-perso.fr");
    expect(again).toEqual([]);
    if (!toFirst) throw new Error("no notice to the first claimant");
    expect(toFirst.subject).toBe(`[Abeille] ${listing.business_name} : la fiche a été revendiquée`);
    expect(toFirst.text).toContain(TO_CLAIMANT(listing));
    expect(toFirst.text).toContain(`Date : ${frenchDateTime(second.at)}`);
    expect(toFirst.text).toContain(reportLine(listing, second.at));
    for (const personal of ["Paul", "Martin", "paul.martin"]) expect(toFirst.raw).not.toContain(personal);
    // Who claimed is not told of its own claim.
    expect(emailsTo("paul.martin@exemple-perso.fr")).toEqual([]);
  });

  it("through a letter's code: by whoever holds the code posted to the establishment's SIRENE address", async () => {
    const listing = freshListing();
    const out = path.join(scratch, "courrier.pdf");
    const job = await runJob(
      ["--import", "./jobs/compile-cache.ts", "jobs/merchants.ts", "letters", "--ab-id", listing.ab_id, "--out", out],
      { dataDir: server.dataDir, baseUrl: TEST_BASE_URL },
    );
    expect(job.code, job.stderr).toBe(0);
    const [code] = codesIn((await pdfPagesText(readFileSync(out)))[0] ?? "");
    if (!code) throw new Error("no code in the letter");
    const jar = new CookieJar();
    const browse = async (pathAndQuery: string, form?: Record<string, string>) => {
      const url = `${server.url}${pathAndQuery}`;
      const cookie = jar.header(url);
      const response = await fetch(url, {
        method: form ? "POST" : "GET",
        headers: {
          ...(cookie ? { cookie } : {}),
          ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        redirect: "manual",
      });
      jar.take(url, response);
      return response;
    };
    const csrf = csrfTokenIn(await (await browse("/pro/code")).text());
    const entered = await browse("/pro/code", { csrf, code, email: "gerance.courrier@exemple-perso.fr" });
    expect(entered.status).toBe(303);
    const [claim] = query<{ created_at: string }>(
      "SELECT created_at FROM merchant_claims WHERE ab_id = ? AND via = 'letter'",
      listing.ab_id,
    );
    await deliver();
    const [toLead] = emailsTo(listing.email);
    if (!toLead || !claim) throw new Error("no notice to the lead address");
    expect(toLead.subject).toBe(`[Abeille] ${listing.business_name} : la fiche a été revendiquée`);
    expect(toLead.text).toContain(
      "Par : une personne qui a saisi le code d'un courrier envoyé par Abeille à l'adresse de l'établissement inscrite au répertoire SIRENE",
    );
    expect(toLead.text).toContain(`Date : ${frenchDateTime(claim.created_at)}`);
    expect(toLead.text).toContain(reportLine(listing, claim.created_at));
    expect(toLead.raw).not.toContain("gerance.courrier");
  });
});

describe("a lead email change", () => {
  let listing: ListingRow;
  let merchant: SignedIn;
  let claimId: string;
  const NEW = "demandes@nouvelle-adresse.fr";

  beforeAll(async () => {
    listing = freshListing();
    ({ signedIn: merchant, claimId } = await claimThroughProConnect(listing, {
      email: "gerant@exemple-perso.fr",
      given: "Jean",
      usual: "Gérant",
    }));
    await claimThroughProConnect(listing, { email: "associee@exemple-perso.fr", given: "Anne", usual: "Associée" });
    await deliver();
  });

  const page = async (pathAndQuery: string) => decodeHtml(await (await merchant.fetch(pathAndQuery)).text());

  it("is told to the address it replaces, which keeps the leads until that notice is sent", async () => {
    const asked = await merchant.fetch(`/pro/${listing.ab_id}/`, {
      form: { csrf: merchant.csrfToken, section: "e-mail", email: NEW },
    });
    expect(asked.status).toBe(200);
    await deliver();
    const [link] = emailsTo(NEW, "lead_email_confirmation");
    const token = /jeton=([A-Za-z0-9_-]{43})/.exec(link?.text ?? "")?.[1];
    if (!token) throw new Error("no confirmation link");
    const confirmed = await fetch(`${server.url}/pro/${listing.ab_id}/e-mail/confirmer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ jeton: token }).toString(),
    });
    expect(confirmed.status).toBe(200);
    expect(decodeHtml(await confirmed.text())).toContain(
      `<p>Un message prévient l'adresse actuelle, ${listing.email}, du changement. Les demandes de clients arriveront à <strong>${NEW}</strong> dès qu'il sera parti ; d'ici là, elles continuent d'arriver à ${listing.email}.</p>`,
    );
    // Confirmed, not in force yet: leads still go to the old address, and the space says why.
    expect(listingRow(listing.ab_id)?.email).toBe(listing.email);
    expect(await page(`/pro/${listing.ab_id}/`)).toContain(
      `<p role="status">La nouvelle adresse <strong>${NEW}</strong> est confirmée : elle sera utilisée dès que le message qui prévient ${listing.email} du changement sera parti. D'ici là, les demandes continuent d'arriver à ${listing.email}.</p>`,
    );
    const before = await sendLead(server, listing.ab_id, {
      contact_name: "Léa Avant",
      contact_email: "lea.avant@exemple-prive.fr",
      message: "Demande envoyée avant que l'ancienne adresse soit prévenue.",
    });

    await deliver();
    const [changed] = query<{ confirmed_at: string }>(
      "SELECT confirmed_at FROM lead_email_confirmations WHERE ab_id = ? AND confirmed_at IS NOT NULL",
      listing.ab_id,
    );
    if (!changed) throw new Error("no confirmed change");
    const toOld = emailsTo(listing.email).filter((email) => email.subject.includes("l'adresse des demandes change"));
    expect(toOld).toHaveLength(1);
    const [notice] = toOld as [Email];
    expect(notice.subject).toBe(`[Abeille] ${listing.business_name} : l'adresse des demandes change`);
    for (const line of [
      TO_LEAD_ADDRESS(listing),
      listingLine(listing),
      "Changement : l'adresse qui reçoit les demandes de clients",
      `Ancienne adresse : ${listing.email}`,
      `Nouvelle adresse : ${NEW}`,
      `Date : ${frenchDateTime(changed.confirmed_at)}`,
      byProConnect(listing),
      "Les demandes de clients iront désormais à la nouvelle adresse : celle-ci ne les recevra plus.",
      reportLine(listing, changed.confirmed_at),
    ]) {
      expect(notice.text).toContain(line);
    }
    expect(notice.raw).not.toContain("Jean");
    const toClaimant = emailsTo("associee@exemple-perso.fr").filter((email) =>
      email.subject.includes("l'adresse des demandes change"),
    );
    expect(toClaimant.map((email) => email.text.includes(TO_CLAIMANT(listing)))).toEqual([true]);
    // The lead sent before the notice left went to the old address.
    expect(
      emailsTo(listing.email, "lead_notification").filter((email) => email.raw.includes(before.leadId)),
    ).toHaveLength(1);
    expect(emailsTo(NEW, "lead_notification")).toEqual([]);

    // The notice sent, the new address is in force; the audit log says when and why.
    expect(listingRow(listing.ab_id)?.email).toBe(NEW);
    const [event] = query<{ actor: string; changes: string; reason: string }>(
      "SELECT actor, changes, reason FROM merchant_events WHERE ab_id = ? AND action = 'updated' ORDER BY event_id DESC LIMIT 1",
      listing.ab_id,
    );
    expect(event).toEqual({
      actor: `merchant:${claimId}`,
      changes: JSON.stringify({ email: { from: listing.email, to: NEW } }),
      reason: "applied once its notice to the previous lead address was sent",
    });
    const space = await page(`/pro/${listing.ab_id}/`);
    expect(space).toContain(`Les demandes de clients arrivent à <strong>${NEW}</strong>.`);
    expect(space).not.toContain("est confirmée : elle sera utilisée");
    const after = await sendLead(server, listing.ab_id, {
      contact_name: "Léo Après",
      contact_email: "leo.apres@exemple-prive.fr",
      message: "Demande envoyée une fois l'ancienne adresse prévenue.",
    });
    await deliver();
    expect(emailsTo(NEW, "lead_notification").filter((email) => email.raw.includes(after.leadId))).toHaveLength(1);
  });

  it("by the operators applies at once, and is told to the address it replaces and to the claimants", async () => {
    const file = path.join(scratch, "adresse.json");
    writeFileSync(file, JSON.stringify({ email: "operateurs@nouvelle-adresse.fr" }));
    const job = await runJob(["jobs/merchants.ts", "update", listing.ab_id, file], {
      dataDir: server.dataDir,
      baseUrl: TEST_BASE_URL,
    });
    expect(job.code, job.stderr).toBe(0);
    expect(listingRow(listing.ab_id)?.email).toBe("operateurs@nouvelle-adresse.fr");
    await deliver();
    for (const [address, why] of [
      [NEW, TO_LEAD_ADDRESS(listing)],
      ["gerant@exemple-perso.fr", TO_CLAIMANT(listing)],
      ["associee@exemple-perso.fr", TO_CLAIMANT(listing)],
    ] as const) {
      const told = emailsTo(address).filter((email) => email.text.includes("operateurs@nouvelle-adresse.fr"));
      expect(
        told.map((email) => email.subject),
        address,
      ).toEqual([`[Abeille] ${listing.business_name} : l'adresse des demandes change`]);
      expect(told[0]?.text).toContain(why);
      expect(told[0]?.text).toContain(`Ancienne adresse : ${NEW}`);
      expect(told[0]?.text).toContain("Par : l'équipe d'Abeille");
    }
  });
});
