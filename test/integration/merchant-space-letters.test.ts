/**
 * The letter path into the merchant space over HTTP against the built server (issue 25): the
 * operator's `merchants letters` writes the PDF, the code read from it opens /pro/code, claims
 * the letter's establishment and signs in; a sign-in link taken from the outgoing email works
 * once. And each security rule of the path: single use, lock after 5 wrong tries (the right code
 * refused then), a code bound to its establishment only, a budget per code and per address, CSRF
 * on each form, the same answer whatever the address asking for a link.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY } from "../../src/domain/merchant-space/sign-in-links.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { decodeQuotedPrintable } from "../helpers/eml.ts";
import { codesIn, pdfPagesText } from "../helpers/letters-pdf.ts";
import { CookieJar, csrfTokenIn } from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

/** Each address's sign-in budget (POST /pro/code and /pro/lien count on it). */
const SIGN_INS_PER_ADDRESS = 12;

let server: TestServer;
let app: App;
let worker: OutboxWorker;
const outDir = mkdtempSync(path.join(os.tmpdir(), "abeille-letters-pdf-"));
/** ab_id -> the code printed on its letter. */
const codes = new Map<string, string>();
let listed: string[];

beforeAll(async () => {
  server = await startTestServer({
    count: 80,
    env: { TRUST_PROXY: "1", PRO_SIGN_INS_HOURLY: String(SIGN_INS_PER_ADDRESS), SMTP_URL: "", SMTP_HOST: "" },
  });
  app = createApp(loadConfig());
  worker = startOutboxWorker(app, { pollMs: 3_600_000 });
  listed = [...(server.roster.cases.active_contactable ?? [])].slice(0, 6);
  const out = path.join(outDir, "courriers.pdf");
  const job = await runJob(
    [
      "--import",
      "./jobs/compile-cache.ts",
      "jobs/merchants.ts",
      "letters",
      ...listed.flatMap((abId) => ["--ab-id", abId]),
      "--out",
      out,
    ],
    { dataDir: server.dataDir, baseUrl: TEST_BASE_URL },
  );
  expect(job.stderr).toBe("");
  expect(job.code).toBe(0);
  expect(job.stdout).toMatch(
    new RegExp(
      `^${listed.length} letter\\(s\\) written to ${out.replaceAll(".", "\\.")} \\(batch [0-9a-f-]{36}, codes expire \\S+\\)\\n$`,
    ),
  );
  const pages = await pdfPagesText(readFileSync(out));
  expect(pages).toHaveLength(listed.length);
  for (const abId of listed) {
    const name = merchant(abId).business_name;
    const page = pages.find((text) => text.includes(name)) ?? "";
    expect(page).toContain(`${TEST_BASE_URL}/pro/code`);
    const [code] = codesIn(page);
    if (!code) throw new Error(`no code on ${abId}'s letter`);
    codes.set(abId, code);
  }
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  app?.close();
  await server?.close();
  rmSync(outDir, { recursive: true, force: true });
});

function query<T>(sql: string, ...parameters: unknown[]): T[] {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...parameters) as T[];
  } finally {
    db.close();
  }
}

function merchant(abId: string): { siret: string; business_name: string } {
  const [row] = query<{ siret: string; business_name: string }>(
    "SELECT siret, business_name FROM merchants WHERE ab_id = ?",
    abId,
  );
  if (!row) throw new Error(`no merchant ${abId}`);
  return row;
}

/** A browser at one client address (X-Forwarded-For, the server trusting one proxy). */
function browserAt(address: string) {
  const jar = new CookieJar();
  const request = async (pathAndQuery: string, form?: Record<string, string>) => {
    const url = `${server.url}${pathAndQuery}`;
    const headers: Record<string, string> = { "x-forwarded-for": address };
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      headers,
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      redirect: "manual",
    });
    jar.take(url, response);
    return response;
  };
  return {
    jar,
    request,
    /** The form's page, then the form posted with its CSRF token. */
    async submit(pagePath: string, action: string, fields: Record<string, string>) {
      const page = await (await request(pagePath)).text();
      return request(action, { csrf: csrfTokenIn(page), ...fields });
    },
  };
}

let addresses = 0;
const newAddress = () => `198.51.100.${++addresses}`;

const typedWrong = (code: string) => {
  // The same locator (first eight characters), another secret.
  const plain = code.replaceAll("-", "");
  return `${plain.slice(0, 8)}${plain[8] === "0" ? "1" : "0"}${plain.slice(9)}`;
};

describe("merchants letters", () => {
  const letters = (...args: string[]) =>
    runJob(["--import", "./jobs/compile-cache.ts", "jobs/merchants.ts", "letters", ...args], {
      dataDir: server.dataDir,
      baseUrl: TEST_BASE_URL,
    });

  it("says a usage error in one line, exit 2, and writes nothing", async () => {
    const before = query("SELECT count(*) AS n FROM letter_codes");
    const out = path.join(outDir, "jamais.pdf");
    const cases: [string[], string][] = [
      [[], "letters needs --out FILE.pdf (where the printable batch goes)"],
      [["--department", "7", "--out", out], "--department must be a department code (75, 2A, 971), not 7"],
      [["--ab-id", "AB-1", "--out", out], "--ab-id must be an ab_id (ab_ and 8 letters or digits), not AB-1"],
      [
        ["--out", path.join(outDir, "jamais.txt")],
        `--out must name a .pdf file, not ${path.join(outDir, "jamais.txt")}`,
      ],
    ];
    for (const [args, message] of cases) {
      const job = await letters(...args);
      expect({ code: job.code, stderr: job.stderr, stdout: job.stdout }).toEqual({
        code: 2,
        stderr: `merchants: ${message} (npm run merchants -- --help prints the usage)\n`,
        stdout: "",
      });
    }
    expect(query("SELECT count(*) AS n FROM letter_codes")).toEqual(before);
    expect(readdirSync(outDir)).toEqual(["courriers.pdf"]);
  });

  it("refuses, exit 1, a batch naming an establishment that is not listed, and writes nothing", async () => {
    const suspended = server.roster.cases.suspended?.[0] as string;
    const job = await letters(
      "--ab-id",
      listed[0] as string,
      "--ab-id",
      suspended,
      "--out",
      path.join(outDir, "refus.pdf"),
    );
    expect(job.code).toBe(1);
    expect(job.stderr).toBe(
      `merchants: NOT_FOUND: no letter for ${suspended}: not a listed establishment (unknown, SUSPENDED or ARCHIVED)\n`,
    );
    expect(readdirSync(outDir)).toEqual(["courriers.pdf"]);
  });
});

describe("a letter's code over HTTP", () => {
  it("claims the letter's establishment, signs in, and a sign-in link from the email works once", async () => {
    const abId = listed[0] as string;
    const { business_name } = merchant(abId);
    const browser = browserAt(newAddress());
    const code = (codes.get(abId) as string).toLowerCase().replaceAll("-", " ");
    const entered = await browser.submit("/pro/code", "/pro/code", { code, email: "Gerante@Exemple.fr" });
    expect(entered.status).toBe(303);
    expect(entered.headers.get("location")).toBe(`/pro?revendiquee=${abId}`);
    expect(entered.headers.get("set-cookie")).toMatch(
      /^abeille_pro=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/,
    );
    const home = await pageText(browser.request(`/pro?revendiquee=${abId}`));
    expect(home).toContain(`Vous gérez maintenant la fiche ${business_name}.`);
    expect(home).toContain(`href="/pro/${abId}/"`);
    const [claim] = query<{ claim_id: string; via: string; email: string; subject: string; revoked_at: null }>(
      "SELECT claim_id, via, email, subject, revoked_at FROM merchant_claims WHERE ab_id = ?",
      abId,
    );
    expect(claim?.via).toBe("letter");
    expect(claim?.email).toBe("Gerante@Exemple.fr");
    expect(claim?.subject).toMatch(/^letter:[0-9a-f-]{36}$/);
    const events = query<{ actor: string; action: string; reason: string }>(
      "SELECT actor, action, reason FROM merchant_events WHERE ab_id = ? AND action = 'claimed'",
      abId,
    );
    expect(events).toEqual([
      { actor: `merchant:${claim?.claim_id}`, action: "claimed", reason: "via letter; basis letter" },
    ]);
    expect(JSON.stringify(query("SELECT * FROM merchant_events WHERE ab_id = ?", abId))).not.toContain(
      (codes.get(abId) as string).slice(0, 9),
    );

    // Later, in another browser: a sign-in link by email (the address compared without case).
    const later = browserAt(newAddress());
    const asked = await later.submit("/pro/lien", "/pro/lien", { email: "gerante@exemple.fr" });
    expect(asked.status).toBe(200);
    expect(await pageText(asked)).toContain("Vérifiez votre messagerie");
    await worker.runNow();
    const link = linkInEmail(business_name);
    expect(link.startsWith(`${TEST_BASE_URL}/pro/lien?jeton=`)).toBe(true);
    const linkPath = link.slice(TEST_BASE_URL.length);
    const opened = await later.request(linkPath);
    expect(opened.status).toBe(200);
    const button = await opened.text();
    const token = decodeURIComponent(linkPath.slice("/pro/lien?jeton=".length));
    const used = await later.request("/pro/lien/connexion", { csrf: csrfTokenIn(button), jeton: token });
    expect(used.status).toBe(303);
    expect(used.headers.get("location")).toBe("/pro");
    expect(await pageText(later.request("/pro"))).toContain(`Gérer la fiche ${business_name}`);
    // Once only: the same link again, in this browser or another, opens nothing.
    const again = await later.request("/pro/lien/connexion", { csrf: csrfTokenIn(button), jeton: token });
    expect(again.status).toBe(410);
    expect(await pageText(again)).toContain("Ce lien de connexion ne fonctionne plus");
    expect((await later.request(linkPath)).status).toBe(410);
  });

  it("refuses a code that was used", async () => {
    const abId = listed[1] as string;
    const code = codes.get(abId) as string;
    const first = await browserAt(newAddress()).submit("/pro/code", "/pro/code", { code, email: "a@exemple.fr" });
    expect(first.status).toBe(303);
    const second = await browserAt(newAddress()).submit("/pro/code", "/pro/code", { code, email: "b@exemple.fr" });
    expect(second.status).toBe(409);
    expect(await pageText(second)).toContain("Ce code a déjà servi.");
    expect(query("SELECT via FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([{ via: "letter" }]);
  });

  it("locks a code after 5 wrong tries, then refuses its right code, and logs the lock", async () => {
    const abId = listed[2] as string;
    const code = codes.get(abId) as string;
    const browser = browserAt(newAddress());
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await browser.submit("/pro/code", "/pro/code", { code: typedWrong(code), email: "x@exemple.fr" });
      expect(wrong.status).toBe(400);
      expect(await pageText(wrong)).toContain("Ce code n'est pas le bon.");
    }
    const fifth = await browser.submit("/pro/code", "/pro/code", { code: typedWrong(code), email: "x@exemple.fr" });
    expect(fifth.status).toBe(403);
    expect(await pageText(fifth)).toContain(
      "Ce code est bloqué après trop d'essais erronés. Demandez un nouveau courrier",
    );
    const right = await browserAt(newAddress()).submit("/pro/code", "/pro/code", { code, email: "x@exemple.fr" });
    expect(right.status).toBe(403);
    expect(query("SELECT * FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([]);
    expect(
      query<{ action: string }>(
        "SELECT action FROM merchant_events WHERE ab_id = ? AND action = 'letter_locked'",
        abId,
      ),
    ).toEqual([{ action: "letter_locked" }]);
  });

  it("binds a code to its establishment: the session reaches no other listing", async () => {
    const abId = listed[3] as string;
    const other = listed[4] as string;
    const browser = browserAt(newAddress());
    const entered = await browser.submit("/pro/code", "/pro/code", {
      code: codes.get(abId) as string,
      email: "c@exemple.fr",
    });
    expect(entered.status).toBe(303);
    const home = await pageText(browser.request("/pro"));
    expect(home).toContain(`Gérer la fiche ${merchant(abId).business_name}`);
    expect(home).not.toContain(merchant(other).business_name);
    const claimed = await browser.request("/pro/revendiquer", { csrf: csrfTokenIn(home), ab_id: other });
    expect(claimed.status).toBe(404);
    expect(query("SELECT * FROM merchant_claims WHERE ab_id = ?", other)).toEqual([]);
  });

  it("counts tries per code whatever the address: the 11th try of one code in an hour is refused", async () => {
    const unknown = "ZZZZ-ZZZZ-ZZZZ-ZZZZ";
    for (let attempt = 1; attempt <= 10; attempt++) {
      const wrong = await browserAt(newAddress()).submit("/pro/code", "/pro/code", {
        code: unknown,
        email: "d@exemple.fr",
      });
      expect(wrong.status).toBe(400);
    }
    const limited = await browserAt(newAddress()).submit("/pro/code", "/pro/code", {
      code: unknown,
      email: "d@exemple.fr",
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await pageText(limited)).toContain("Ce code a été essayé trop de fois en peu de temps.");
    // Another code is not held back by this one's budget.
    const another = await browserAt(newAddress()).submit("/pro/code", "/pro/code", {
      code: "YYYY-YYYY-YYYY-YYYY",
      email: "d@exemple.fr",
    });
    expect(another.status).toBe(400);
  });

  it("counts the tries of one address: past its budget, 429", async () => {
    const browser = browserAt(newAddress());
    for (let attempt = 1; attempt <= SIGN_INS_PER_ADDRESS; attempt++) {
      const wrong = await browser.submit("/pro/code", "/pro/code", {
        code: `ABCD-EF${String(attempt).padStart(2, "0")}-JKMN-PQRS`,
        email: "e@exemple.fr",
      });
      expect(wrong.status).toBe(400);
    }
    const limited = await browser.submit("/pro/code", "/pro/code", {
      code: "ABCD-EFGH-JKMN-PQRS",
      email: "e@exemple.fr",
    });
    expect(limited.status).toBe(429);
    expect(await pageText(limited)).toContain("Trop de tentatives");
  });

  it("refuses a form without its CSRF token or cookie, with nothing counted or written", async () => {
    const abId = listed[5] as string;
    const code = codes.get(abId) as string;
    const browser = browserAt(newAddress());
    const page = await (await browser.request("/pro/code")).text();
    const token = csrfTokenIn(page);
    // Another site's form: no cookie (SameSite=Lax), or the cookie without the page's token.
    const foreign = browserAt(newAddress());
    const noCookie = await foreign.request("/pro/code", { csrf: token, code: typedWrong(code), email: "f@exemple.fr" });
    expect(noCookie.status).toBe(403);
    expect(await pageText(noCookie)).toContain("Le formulaire a expiré ou ne vient pas de cette page");
    const noToken = await browser.request("/pro/code", { code: typedWrong(code), email: "f@exemple.fr" });
    expect(noToken.status).toBe(403);
    const rightCodeNoToken = await browser.request("/pro/code", { csrf: "x".repeat(43), code, email: "f@exemple.fr" });
    expect(rightCodeNoToken.status).toBe(403);
    expect(
      query("SELECT failed_attempts, used_at FROM letter_codes WHERE ab_id = ? AND superseded_at IS NULL", abId),
    ).toEqual([{ failed_attempts: 0, used_at: null }]);
    const link = await foreign.request("/pro/lien", { csrf: token, email: "gerante@exemple.fr" });
    expect(link.status).toBe(403);
    const use = await foreign.request("/pro/lien/connexion", { csrf: token, jeton: "x" });
    expect(use.status).toBe(403);
  });

  it("answers a link request the same whatever the address, and sends mail only for a letter claim's", async () => {
    const before = new Set(emails());
    const known = await browserAt(newAddress()).submit("/pro/lien", "/pro/lien", { email: "a@exemple.fr" });
    const unknown = await browserAt(newAddress()).submit("/pro/lien", "/pro/lien", { email: "personne@exemple.fr" });
    expect(unknown.status).toBe(known.status);
    expect(await unknown.text()).toBe(await known.text());
    await worker.runNow();
    const sent = emails().filter((name) => !before.has(name));
    expect(sent).toHaveLength(1);
    expect(readFileSync(path.join(server.dataDir, "outbox", sent[0] as string), "utf8")).toMatch(
      /^To: a@exemple\.fr\r?$/m,
    );
  });
  it(`counts link requests per email address across client addresses: past ${SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY} in an hour, 429, Retry-After and the same French page, claim or not`, async () => {
    const claimed = await browserAt(newAddress()).submit("/pro/code", "/pro/code", {
      code: codes.get(listed[5] as string) as string,
      email: "budget@exemple.fr",
    });
    expect(claimed.status).toBe(303);
    const before = new Set(emails());
    const ask = (email: string) => browserAt(newAddress()).submit("/pro/lien", "/pro/lien", { email });
    const answers: Record<string, { statuses: number[]; refused: string; retryAfter: string | null }> = {};
    for (const email of ["budget@exemple.fr", "personne-budget@exemple.fr"]) {
      const statuses: number[] = [];
      for (let i = 0; i < SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY; i++) statuses.push((await ask(email)).status);
      const refused = await ask(email.toUpperCase());
      statuses.push(refused.status);
      answers[email] = { statuses, refused: await refused.text(), retryAfter: refused.headers.get("retry-after") };
    }
    const claimedAnswer = answers["budget@exemple.fr"];
    const unknownAnswer = answers["personne-budget@exemple.fr"];
    expect(claimedAnswer?.statuses).toEqual([...Array(SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY).fill(200), 429]);
    expect(claimedAnswer?.retryAfter).toBe(String(3600 / SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY));
    expect(claimedAnswer?.refused).toContain("<h1>Trop de tentatives</h1>");
    expect(unknownAnswer).toEqual(claimedAnswer);
    // One link per request that went through, none for the refused ones.
    await worker.runNow();
    expect(emails().filter((name) => !before.has(name))).toHaveLength(SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY);
    // The limits' store holds keyed hashes, never the address.
    const limits = new Database(path.join(server.dataDir, "limits.db"), { readonly: true });
    try {
      const keys = limits.prepare("SELECT key FROM rate_limits WHERE key LIKE 'pro-sign-in-link:%'").pluck().all();
      expect(keys.length).toBeGreaterThanOrEqual(2);
      for (const key of keys) expect(key).toMatch(/^pro-sign-in-link:[A-Za-z0-9_-]{43}$/);
      expect(limits.prepare("SELECT count(*) FROM rate_limits WHERE key LIKE '%exemple%'").pluck().get()).toBe(0);
    } finally {
      limits.close();
    }
  });
});

/** A page's text with the HTML entities the pages write decoded (apostrophes, quotes, ampersands). */
async function pageText(response: Response | Promise<Response>): Promise<string> {
  const text = await (await response).text();
  return text
    .replaceAll("&#39;", "'")
    .replaceAll("&quot;", '"')
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

function emails(): string[] {
  const dir = path.join(server.dataDir, "outbox");
  return readdirSync(dir)
    .filter((name) => name.includes("-space_sign_in_link-"))
    .sort();
}

/** The sign-in link in the one email sent for `businessName`. */
function linkInEmail(businessName: string): string {
  const texts = emails().map((name) =>
    decodeQuotedPrintable(readFileSync(path.join(server.dataDir, "outbox", name), "utf8")),
  );
  const mine = texts.filter((text) => text.includes(businessName));
  expect(mine).toHaveLength(1);
  const link = /http:\/\/abeille\.test\/pro\/lien\?jeton=[A-Za-z0-9_.%-]+/.exec(mine[0] ?? "")?.[0];
  if (!link) throw new Error(`no link in the email:\n${mine[0]}`);
  return link;
}
