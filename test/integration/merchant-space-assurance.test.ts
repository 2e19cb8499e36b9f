/**
 * How well ProConnect knows the person, and what that reaches (issue 36), over HTTP against the
 * built server and a real OpenID provider configured like ProConnect (test/helpers/proconnect.ts):
 * the authorization request asks `acr` as essential through the `claims` parameter and carries no
 * parameter ProConnect would refuse; an ID token without `acr` or below PROCONNECT_MIN_ACR opens
 * no session (a French page says why); every establishment of a company only with
 * certification-dirigeant; a claim re-checked at each sign-in (its SIRET gone, the listing's space
 * and leads answer the space's 404 until a sign-in carries it again); a revocation that another
 * identity provider's `sub` with the same email does not escape; a userinfo `siren` that is not its
 * `siret`'s refused; sign-out with an expired session.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiret } from "../../src/domain/siret.ts";
import {
  browse,
  decodeHtml,
  follow,
  newBrowser,
  type ProConnectAccount,
  signInThroughProConnect,
  startServerWithProConnect,
  TEST_IDP_ID,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

const COMPANY_MANAGER = "https://proconnect.gouv.fr/assurance/certification-dirigeant";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;
let workDir: string;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({
    count: 120,
    env: { PRO_SIGN_INS_HOURLY: "1000", PRO_CLAIMS_HOURLY: "1000" },
  }));
  workDir = mkdtempSync(path.join(os.tmpdir(), "abeille-assurance-"));
});
afterAll(async () => {
  await close?.();
  rmSync(workDir, { recursive: true, force: true });
});

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

function write(sql: string, ...params: unknown[]): void {
  const db = new Database(path.join(server.dataDir, "abeille.db"));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

let nextCase = 0;
function freshListing(): { abId: string; siret: string; business_name: string } {
  const abId = (server.roster.cases.active_contactable ?? [])[nextCase++];
  if (!abId) throw new Error("the demo ran out of active merchants");
  const [row] = query<{ siret: string; business_name: string }>(
    "SELECT siret, business_name FROM merchants WHERE ab_id = ?",
    abId,
  );
  if (!row) throw new Error(`no merchant ${abId}`);
  return { abId, ...row };
}

/** Goes through the provider for `sub` and answers the server's callback (the sign-in's end). */
async function callbackAnswer(sub: string, start = "/pro/connexion"): Promise<Response> {
  const browser = newBrowser(server.url);
  const { response } = await follow(browser, `${server.url}${start}`, provider, sub);
  return response;
}

const signIn = (account: ProConnectAccount & { sub?: string }) =>
  signInThroughProConnect(server.url, provider, account);

async function claim(person: Awaited<ReturnType<typeof signIn>>, abId: string): Promise<number> {
  return (await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } })).status;
}

describe("the authorization request", () => {
  it("asks acr as essential at PROCONNECT_MIN_ACR and above, and amr, with no parameter ProConnect would refuse", async () => {
    const start = await browse(newBrowser(server.url), `${server.url}/pro/connexion`);
    expect(start.status).toBe(303);
    const url = new URL(start.headers.get("location") ?? "");
    expect(url.origin).toBe(provider.issuer);
    expect([...url.searchParams.keys()].sort()).toEqual([
      "claims",
      "client_id",
      "code_challenge",
      "code_challenge_method",
      "nonce",
      "redirect_uri",
      "response_type",
      "scope",
      "state",
    ]);
    expect(JSON.parse(url.searchParams.get("claims") ?? "")).toEqual({
      id_token: { acr: { essential: true, values: ["eidas3", "eidas2", "eidas1-mfa", "eidas1"] }, amr: null },
    });
    expect(url.searchParams.get("scope")).toBe("openid email given_name usual_name siret siren uid idp_id");
  });

  it("asks certification-dirigeant alone for the company manager's sign-in", async () => {
    const start = await browse(newBrowser(server.url), `${server.url}/pro/connexion?niveau=dirigeant`);
    const url = new URL(start.headers.get("location") ?? "");
    expect(JSON.parse(url.searchParams.get("claims") ?? "")).toEqual({
      id_token: { acr: { essential: true, values: [COMPANY_MANAGER] }, amr: null },
    });
    // The provider takes the request (it refuses an unknown parameter, or no essential acr, with 400).
    const atProvider = await fetch(url, { redirect: "manual" });
    expect(atProvider.status).toBe(303);
    expect(provider.authorizeRequests.at(-1)?.get("claims")).toBe(url.searchParams.get("claims"));
  });
});

describe("the ID token's acr", () => {
  it("opens no session without acr: a French page says why", async () => {
    const sessions = query("SELECT 1 FROM pro_sessions").length;
    const answer = await callbackAnswer(provider.addAccount({ siret: freshListing().siret, acr: null }));
    expect(answer.status).toBe(403);
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(decodeHtml(await answer.text())).toContain(
      "ProConnect n'a pas indiqué le niveau de garantie de votre connexion : l'espace professionnel ne peut pas vous ouvrir de session sans le connaître.",
    );
    expect(query("SELECT 1 FROM pro_sessions").length).toBe(sessions);
  });

  it("refuses eidas0 under the default minimum, and says which level it needs", async () => {
    const sessions = query("SELECT 1 FROM pro_sessions").length;
    const answer = await callbackAnswer(provider.addAccount({ siret: freshListing().siret, acr: "eidas0" }));
    expect(answer.status).toBe(403);
    expect(decodeHtml(await answer.text())).toContain(
      "Votre connexion ProConnect a le niveau de garantie « eidas0 » (identité ou rattachement à l'organisation déclaratifs, mot de passe) ; ce service demande au moins « eidas1 »",
    );
    expect(query("SELECT 1 FROM pro_sessions").length).toBe(sessions);
  });

  it("opens a session at eidas1, and keeps acr, amr and idp_id with the session, the claim and the audit log", async () => {
    const { abId, siret } = freshListing();
    const person = await signIn({ siret, acr: "eidas1", amr: ["pwd", "mail"] });
    expect(await claim(person, abId)).toBe(303);
    expect(query("SELECT acr, amr, idp_id FROM pro_sessions WHERE subject = ?", person.sub)).toEqual([
      { acr: "eidas1", amr: '["pwd","mail"]', idp_id: TEST_IDP_ID },
    ]);
    expect(query("SELECT basis, acr, amr, idp_id FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([
      { basis: "siret", acr: "eidas1", amr: '["pwd","mail"]', idp_id: TEST_IDP_ID },
    ]);
    expect(query("SELECT reason FROM merchant_events WHERE ab_id = ? AND action = 'claimed'", abId)).toEqual([
      { reason: `via proconnect; basis siret; acr eidas1; amr pwd mail; idp_id ${TEST_IDP_ID}` },
    ]);
  });
});

describe("a company's establishments", () => {
  let head: { abId: string; siret: string; business_name: string };
  let branch: { abId: string; business_name: string };
  beforeAll(async () => {
    head = freshListing();
    const siret = makeSiret(head.siret.slice(0, 9), "0987");
    const file = path.join(workDir, "succursale.json");
    writeFileSync(
      file,
      JSON.stringify({
        siret,
        legal_name: "SARL Succursale",
        business_name: "Succursale de la Gare",
        naf_code: "10.71C",
        address: { street: "3 place de la Gare", postal_code: "69002", city: "Lyon" },
        founded_on: "2019-04-01",
      }),
    );
    const added = await runJob(["jobs/merchants.ts", "add", file], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL });
    expect(added.stderr).toBe("");
    const abId = /^(ab_\w+) added/.exec(added.stdout)?.[1];
    if (!abId) throw new Error(`no merchant added: ${added.stdout}`);
    branch = { abId, business_name: "Succursale de la Gare" };
  });

  it("are out of reach of a person whose sign-in names one SIRET, at any eIDAS level", async () => {
    for (const acr of ["eidas1", "eidas3"]) {
      const person = await signIn({ siret: head.siret, siren: head.siret.slice(0, 9), acr });
      const page = await (await person.fetch("/pro")).text();
      expect(page).toContain(`Revendiquer la fiche ${head.business_name}`);
      expect(page).not.toContain(branch.business_name);
      expect(await claim(person, branch.abId), acr).toBe(404);
    }
  });

  it("are all reached by a certified manager of the company (certification-dirigeant), each claim on the SIREN", async () => {
    const person = await signInThroughProConnect(server.url, provider, {
      siret: head.siret,
      siren: head.siret.slice(0, 9),
      acr: COMPANY_MANAGER,
    });
    const page = decodeHtml(await (await person.fetch("/pro")).text());
    expect(page).toContain(`Revendiquer la fiche ${branch.business_name}`);
    expect(page).toContain("en tant que dirigeant certifié de l'entreprise");
    expect(await claim(person, branch.abId)).toBe(303);
    expect(query("SELECT basis, acr FROM merchant_claims WHERE ab_id = ?", branch.abId)).toEqual([
      { basis: "siren", acr: COMPANY_MANAGER },
    ]);
    expect((await person.fetch(`/pro/${branch.abId}/`)).status).toBe(200);

    // The same person signs in again as an employee (eidas1): the claim on the SIREN lapses.
    provider.updateAccount(person.sub, { acr: "eidas1" });
    const employee = await signInThroughProConnect(server.url, provider, { sub: person.sub });
    expect((await employee.fetch(`/pro/${branch.abId}/`)).status).toBe(404);
    expect((await employee.fetch(`/pro/${branch.abId}/demandes`)).status).toBe(404);
  });
});

describe("the re-check at each sign-in", () => {
  it("takes a listing's space and leads away when the SIRET is gone, and gives them back when it comes back", async () => {
    const { abId, siret } = freshListing();
    const elsewhere = freshListing();
    const first = await signIn({ siret });
    expect(await claim(first, abId)).toBe(303);
    expect((await first.fetch(`/pro/${abId}/`)).status).toBe(200);
    expect((await first.fetch(`/pro/${abId}/demandes`)).status).toBe(200);

    // The same person now signs in for another organisation.
    provider.updateAccount(first.sub, { siret: elsewhere.siret });
    const moved = await signInThroughProConnect(server.url, provider, { sub: first.sub });
    for (const target of [`/pro/${abId}/`, `/pro/${abId}/demandes`]) {
      const answer = await moved.fetch(target);
      expect(answer.status, target).toBe(404);
      expect(decodeHtml(await answer.text())).toContain("<h1>Fiche introuvable</h1>");
    }
    expect(decodeHtml(await (await moved.fetch("/pro")).text())).toContain(
      "Votre accès à cette fiche est suspendu : votre dernière connexion ProConnect ne porte plus le SIRET de cet établissement",
    );
    // The first browser's session said the old SIRET: it ended with the re-check.
    expect((await first.fetch(`/pro/${abId}/`)).status).toBe(303);
    expect(
      query<{ action: string }>(
        "SELECT action FROM merchant_events WHERE ab_id = ? AND action LIKE 'claim%' ORDER BY event_id",
        abId,
      ).map((row) => row.action),
    ).toEqual(["claimed", "claim_lapsed"]);
    const [held] = query<{ claim_id: string }>("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", abId);
    const listed = await runJob(["jobs/merchants.ts", "claims", abId], {
      dataDir: server.dataDir,
      baseUrl: TEST_BASE_URL,
    });
    expect(listed.stdout).toContain(`${held?.claim_id}  lapsed   proconnect  siret `);
    expect(listed.stdout).toContain(`1 claim(s) on ${abId}, 0 live, 1 lapsed`);

    provider.updateAccount(first.sub, { siret });
    const back = await signInThroughProConnect(server.url, provider, { sub: first.sub });
    expect((await back.fetch(`/pro/${abId}/`)).status).toBe(200);
    expect((await back.fetch(`/pro/${abId}/demandes`)).status).toBe(200);
  });
});

describe("a revoked person", () => {
  it("does not get the listing back through another identity provider (another sub, the same email)", async () => {
    const { abId, siret } = freshListing();
    const email = "gerante.revoquee@exemple.fr";
    const first = await signIn({ siret, email });
    expect(await claim(first, abId)).toBe(303);
    // Already signed in through a second provider too (its own sub): that session ends with the revocation.
    const secondDoor = await signIn({ siret, email: "Gerante.Revoquee@Exemple.fr" });
    const [held] = query<{ claim_id: string }>("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", abId);
    const revoked = await runJob(
      [
        "jobs/merchants.ts",
        "revoke-claim",
        held?.claim_id ?? "",
        "--reason",
        "usurpation",
        "--actor",
        "operator:alice",
      ],
      { dataDir: server.dataDir, baseUrl: TEST_BASE_URL },
    );
    expect(revoked.code).toBe(0);
    expect(
      (await secondDoor.fetch("/pro/revendiquer", { form: { csrf: secondDoor.csrfToken, ab_id: abId } })).status,
    ).toBe(403);
    // A third door, the same address in another case: refused, the page says why, nothing written.
    const third = await signIn({ siret, email: "GERANTE.REVOQUEE@exemple.fr" });
    expect(decodeHtml(await (await third.fetch("/pro")).text())).toContain(
      "Votre accès à cette fiche a été retiré par l'équipe d'Abeille",
    );
    const answer = await third.fetch("/pro/revendiquer", { form: { csrf: third.csrfToken, ab_id: abId } });
    expect(answer.status).toBe(409);
    expect(query("SELECT 1 FROM merchant_claims WHERE ab_id = ? AND revoked_at IS NULL", abId)).toEqual([]);
  });
});

describe("userinfo", () => {
  it("refuses a siren that is not its siret's: a French page, no session", async () => {
    const { siret } = freshListing();
    const otherSiren = freshListing().siret.slice(0, 9);
    expect(otherSiren).not.toBe(siret.slice(0, 9));
    const answer = await callbackAnswer(provider.addAccount({ siret, siren: otherSiren }));
    expect(answer.status).toBe(400);
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(decodeHtml(await answer.text())).toContain(
      "Les informations transmises par ProConnect se contredisent : le SIREN de l'entreprise ne correspond pas au SIRET de l'établissement.",
    );
  });
});

describe("sign-out", () => {
  it("works with a session that expired: the cookie is cleared and ProConnect's session ends with id_token_hint", async () => {
    const person = await signIn({ siret: freshListing().siret });
    write(
      "UPDATE pro_sessions SET idle_expires_at = '2000-01-01T00:00:00.000Z' WHERE subject = ? AND ended_at IS NULL",
      person.sub,
    );
    const out = await person.fetch("/pro/deconnexion", { form: { csrf: person.csrfToken } });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toBe("abeille_pro=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    const endSession = new URL(out.headers.get("location") ?? "");
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    person.browser.prompts = [];
    await follow(person.browser, endSession.href, provider, null);
    expect(person.browser.prompts).toEqual(["logout"]);
    // ProConnect's session ended: the next sign-in in this browser asks to log in again.
    const next = await signInThroughProConnect(server.url, provider, { sub: person.sub }, { browser: person.browser });
    expect(next.browser.prompts).toEqual(["login", "consent"]);
  });

  it("still refuses a form that is not the expired session's", async () => {
    const person = await signIn({ siret: freshListing().siret });
    write(
      "UPDATE pro_sessions SET idle_expires_at = '2000-01-01T00:00:00.000Z' WHERE subject = ? AND ended_at IS NULL",
      person.sub,
    );
    const refused = await person.fetch("/pro/deconnexion", { form: { csrf: "A".repeat(43) } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("set-cookie")).toBeNull();
  });
});
