/**
 * The merchant space's door over HTTP against the built server and a real OpenID provider
 * configured like ProConnect (test/helpers/proconnect.ts): sign-in (redirect, login, consent,
 * code exchange, signed ID token, signed userinfo), claims, sign-out at the provider too, the
 * operator's revocation ending the session, and a test per security rule (CSRF, rotation,
 * state/PKCE, another company's listing, agents' keys, cookie flags, no personal data in logs).
 */
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registeredKey } from "../helpers/agents.ts";
import {
  browse,
  decodeHtml,
  follow,
  newBrowser,
  type SignedIn,
  signInThroughProConnect,
  startServerWithProConnect,
  type TestBrowser,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import { runJob } from "../helpers/run-job.ts";
import { TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({
    count: 120,
    // The limits have their own test (merchant-space-limits.test.ts): here, every test signs in.
    env: { PRO_SIGN_INS_HOURLY: "1000", PRO_CLAIMS_HOURLY: "1000" },
  }));
});
afterAll(async () => {
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

function listing(abId: string): { siret: string; business_name: string } {
  const [row] = query<{ siret: string; business_name: string }>(
    "SELECT siret, business_name FROM merchants WHERE ab_id = ?",
    abId,
  );
  if (!row) throw new Error(`no merchant ${abId}`);
  return row;
}

const claimCount = () => query<{ n: number }>("SELECT COUNT(*) AS n FROM merchant_claims")[0]?.n;

/** Merchants of the demo, one per test that claims (a claim by one test must not change another's). */
let nextCase = 0;
function freshListing(): { abId: string; siret: string; business_name: string } {
  const ids = server.roster.cases.active_contactable ?? [];
  const abId = ids[nextCase++];
  if (!abId) throw new Error("the demo ran out of active merchants");
  return { abId, ...listing(abId) };
}

const signInFor = (siret: string, browser?: TestBrowser) =>
  signInThroughProConnect(server.url, provider, { siret, siren: siret.slice(0, 9) }, browser ? { browser } : {});

/** Starts a sign-in in `browser` and goes through the provider, stopping at the callback to the server. */
async function reachCallback(browser: TestBrowser, sub: string): Promise<string> {
  const { url } = await follow(browser, `${server.url}/pro/connexion`, provider, sub, {
    stopAt: (next) => next.includes("/pro/connexion/retour"),
  });
  if (!url.includes("/pro/connexion/retour")) throw new Error(`the flow did not reach the callback: ${url}`);
  return url;
}

const signedOutPage = (page: string) =>
  decodeHtml(page).includes("S'identifier avec ProConnect") && !page.includes("Connecté :");

describe("signing in with ProConnect", () => {
  it("signs in, shows the listing of the person's SIRET, claims it", async () => {
    const { abId, siret, business_name } = freshListing();
    const person = await signInThroughProConnect(server.url, provider, {
      siret,
      siren: siret.slice(0, 9),
      givenName: "Camille",
      usualName: "Martin",
      email: "camille.martin@exemple.fr",
    });
    expect(person.browser.prompts).toEqual(["login", "consent"]);
    const home = await person.fetch("/pro");
    const page = await home.text();
    expect(home.status).toBe(200);
    expect(home.headers.get("cache-control")).toBe("no-store");
    expect(page).toContain("Connecté : <strong>Camille Martin</strong> (camille.martin@exemple.fr)");
    expect(page).toContain(`Revendiquer la fiche ${business_name}`);
    const claimed = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } });
    expect(claimed.status).toBe(303);
    expect(claimed.headers.get("location")).toBe(`/pro?revendiquee=${abId}`);
    const after = await (await person.fetch(`/pro?revendiquee=${abId}`)).text();
    expect(after).toContain(`Vous gérez maintenant la fiche ${business_name}.`);
    expect(after).toContain(`href="/pro/${abId}/"`);
    const rows = query<{ subject: string; via: string; email: string }>(
      "SELECT subject, via, email FROM merchant_claims WHERE ab_id = ?",
      abId,
    );
    expect(rows).toEqual([{ subject: person.sub, via: "proconnect", email: "camille.martin@exemple.fr" }]);
    const events = query<{ actor: string; action: string }>(
      "SELECT actor, action FROM merchant_events WHERE ab_id = ? AND action = 'claimed'",
      abId,
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.actor).toMatch(/^merchant:[0-9a-f-]{36}$/);
  });

  it("sets the session cookie HttpOnly, SameSite=Lax, Path=/, not Secure on an http BASE_URL", async () => {
    const browser = newBrowser(server.url);
    const sub = provider.addAccount({ siret: freshListing().siret });
    const callback = await reachCallback(browser, sub);
    const answer = await browse(browser, callback);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/pro");
    expect(answer.headers.get("set-cookie")).toMatch(
      /^abeille_pro=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/,
    );
  });

  it("signs out at ProConnect too: the session ends here and there, the next sign-in asks to log in again", async () => {
    const { siret } = freshListing();
    const person = await signInFor(siret);
    // Still signed in at the provider: another sign-in in the same browser asks nothing.
    const again = await signInThroughProConnect(server.url, provider, { sub: person.sub }, { browser: person.browser });
    expect(again.browser.prompts).toEqual([]);
    const out = await again.fetch("/pro/deconnexion", { form: { csrf: again.csrfToken } });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toBe("abeille_pro=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    const endSession = new URL(out.headers.get("location") ?? "");
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${TEST_BASE_URL}/pro`);
    expect(endSession.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // The provider's page confirms, then sends the browser back to /pro.
    const back = await follow(again.browser, endSession.href, provider, null);
    expect(again.browser.prompts).toEqual(["logout"]);
    expect(back.url).toMatch(new RegExp(`^${TEST_BASE_URL}/pro\\?state=`));
    expect(signedOutPage(await back.response.text())).toBe(true);
    // The old cookie opens nothing.
    const stale = await fetch(`${server.url}/pro`, { headers: { cookie: again.cookie } });
    expect(signedOutPage(await stale.text())).toBe(true);
    // And the provider's session ended: logging in is asked again.
    const next = await signInThroughProConnect(server.url, provider, { sub: person.sub }, { browser: person.browser });
    expect(next.browser.prompts).toEqual(["login", "consent"]);
  });

  it("rotates the session at sign-in: the cookie from before a new sign-in opens nothing", async () => {
    const { abId, siret } = freshListing();
    const first = await signInFor(siret);
    const second = await signInThroughProConnect(server.url, provider, { sub: first.sub }, { browser: first.browser });
    expect(second.cookie).not.toBe(first.cookie);
    const old = await fetch(`${server.url}/pro`, { headers: { cookie: first.cookie } });
    expect(signedOutPage(await old.text())).toBe(true);
    const refused = await fetch(`${server.url}/pro/revendiquer`, {
      method: "POST",
      headers: { cookie: first.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: first.csrfToken, ab_id: abId }).toString(),
      redirect: "manual",
    });
    expect(refused.status).toBe(403);
    expect(query("SELECT 1 FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([]);
  });
});

describe("CSRF on every form of the space", () => {
  let person: SignedIn;
  let abId: string;
  let other: SignedIn;
  beforeAll(async () => {
    const target = freshListing();
    abId = target.abId;
    person = await signInFor(target.siret);
    other = await signInFor(freshListing().siret);
  });

  it.each([
    ["missing", undefined],
    ["wrong", "A".repeat(43)],
    ["another session's", "other"],
  ])("refuses a claim whose token is %s: 403 French page, nothing written", async (_case, token) => {
    const before = claimCount();
    const form: Record<string, string> = { ab_id: abId };
    if (token) form.csrf = token === "other" ? other.csrfToken : token;
    const answer = await person.fetch("/pro/revendiquer", { form });
    expect(answer.status).toBe(403);
    const page = await answer.text();
    expect(page).toContain("<h1>Action refusée</h1>");
    expect(page).not.toContain("Error");
    expect(claimCount()).toBe(before);
  });

  it("refuses a sign-out without the token: the session stays", async () => {
    const answer = await person.fetch("/pro/deconnexion", { form: {} });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(signedOutPage(await (await person.fetch("/pro")).text())).toBe(false);
  });

  it("refuses a form posted with no session at all", async () => {
    const answer = await fetch(`${server.url}/pro/revendiquer`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: person.csrfToken, ab_id: abId }).toString(),
      redirect: "manual",
    });
    expect(answer.status).toBe(403);
  });
});

describe("the callback", () => {
  it("refuses a replayed callback: the sign-in it belonged to was taken once", async () => {
    const browser = newBrowser(server.url);
    const sub = provider.addAccount({ siret: freshListing().siret });
    const callback = await reachCallback(browser, sub);
    expect((await browse(browser, callback)).status).toBe(303);
    const sessions = query("SELECT 1 FROM pro_sessions").length;
    const replay = await browse(browser, callback);
    expect(replay.status).toBe(400);
    expect(decodeHtml(await replay.text())).toContain("Cette connexion n'est pas, ou plus, en cours");
    expect(query("SELECT 1 FROM pro_sessions").length).toBe(sessions);
  });

  it("refuses a callback whose state is not the sign-in's", async () => {
    const browser = newBrowser(server.url);
    const sub = provider.addAccount({ siret: freshListing().siret });
    const callback = new URL(await reachCallback(browser, sub));
    callback.searchParams.set("state", "forged-state-value");
    const answer = await browse(browser, callback.href);
    expect(answer.status).toBe(400);
    expect(decodeHtml(await answer.text())).toContain("La réponse de ProConnect n'a pas passé nos vérifications");
    expect(answer.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a code obtained by another sign-in (PKCE): the code is bound to its own verifier", async () => {
    const victim = newBrowser(server.url);
    const attacker = newBrowser(server.url);
    const victimCallback = new URL(await reachCallback(victim, provider.addAccount({ siret: freshListing().siret })));
    const attackerCallback = new URL(
      await reachCallback(attacker, provider.addAccount({ siret: freshListing().siret })),
    );
    // The attacker's code, with the victim's own state: only PKCE (and the nonce) can tell.
    victimCallback.searchParams.set("code", attackerCallback.searchParams.get("code") ?? "");
    const answer = await browse(victim, victimCallback.href);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a callback from a browser that started no sign-in", async () => {
    const starter = newBrowser(server.url);
    const callback = await reachCallback(starter, provider.addAccount({ siret: freshListing().siret }));
    const answer = await browse(newBrowser(server.url), callback);
    expect(answer.status).toBe(400);
    expect(decodeHtml(await answer.text())).toContain("Cette connexion n'est pas, ou plus, en cours");
  });

  it("says in French that the person cancelled at the provider, without a stack trace", async () => {
    const browser = newBrowser(server.url);
    await browse(browser, `${server.url}/pro/connexion`);
    const answer = await browse(
      browser,
      `${server.url}/pro/connexion/retour?error=access_denied&error_description=End-User+aborted&state=x`,
    );
    expect(answer.status).toBe(400);
    const page = decodeHtml(await answer.text());
    expect(page).toContain("La connexion a été annulée sur ProConnect.");
    expect(page).not.toMatch(/at .*\.ts:\d+/);
  });

  it("writes no personal data in the logs, signed in or refused", async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { siret } = freshListing();
      const email = "dominique.personne@exemple.fr";
      const sub = provider.addAccount({ siret, email, givenName: "Dominique", usualName: "Personne" });
      await signInThroughProConnect(server.url, provider, { sub });
      const browser = newBrowser(server.url);
      const callback = new URL(await reachCallback(browser, sub));
      callback.searchParams.set("state", "forged");
      expect((await browse(browser, callback.href)).status).toBe(400);
      const logs = written.join("");
      expect(logs).toContain('"message":"ProConnect sign-in failed"');
      for (const secret of [email, "Dominique", "Personne", siret, sub]) expect(logs).not.toContain(secret);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("claims", () => {
  it("never reaches another company's listing: 404, nothing written", async () => {
    const mine = freshListing();
    const theirs = freshListing();
    expect(theirs.siret.slice(0, 9)).not.toBe(mine.siret.slice(0, 9));
    const person = await signInFor(mine.siret);
    const page = await (await person.fetch("/pro")).text();
    expect(page).not.toContain(theirs.business_name);
    const before = claimCount();
    const answer = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: theirs.abId } });
    expect(answer.status).toBe(404);
    expect(decodeHtml(await answer.text())).toContain("<h1>Fiche introuvable</h1>");
    expect(claimCount()).toBe(before);
  });

  it("refuses a suspended listing and says why", async () => {
    const abId = server.roster.cases.suspended?.[0] ?? "";
    const { siret } = listing(abId);
    const person = await signInFor(siret);
    const page = decodeHtml(await (await person.fetch("/pro")).text());
    expect(page).toContain("Cette fiche est suspendue par l'équipe d'Abeille");
    const answer = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } });
    expect(answer.status).toBe(409);
    expect(decodeHtml(await answer.text())).toContain("Cette fiche est suspendue par l'équipe d'Abeille");
    expect(query("SELECT 1 FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([]);
  });

  it("opens nothing of the space to an agent's API key", async () => {
    const { abId, siret } = freshListing();
    const person = await signInFor(siret);
    const key = await registeredKey(server, "space-prober");
    const home = await fetch(`${server.url}/pro`, { headers: { authorization: `Bearer ${key}` } });
    expect(home.status).toBe(403);
    // Not even beside a live session cookie.
    const claim = await person.fetch("/pro/revendiquer", {
      form: { csrf: person.csrfToken, ab_id: abId },
      headers: { "x-api-key": key },
    });
    expect(claim.status).toBe(403);
    expect(query("SELECT 1 FROM merchant_claims WHERE ab_id = ?", abId)).toEqual([]);
  });
});

describe("the operator", () => {
  it("lists a listing's claims and revokes one: the person's session ends at once, the audit log says so", async () => {
    const { abId, siret } = freshListing();
    const person = await signInFor(siret);
    expect((await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } })).status).toBe(
      303,
    );
    const [claim] = query<{ claim_id: string }>("SELECT claim_id FROM merchant_claims WHERE ab_id = ?", abId);
    const claimId = claim?.claim_id ?? "";
    const job = { dataDir: server.dataDir, baseUrl: TEST_BASE_URL };

    const listed = await runJob(["jobs/merchants.ts", "claims", abId], job);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${claimId}  live   `);
    expect(listed.stdout).toContain(`1 claim(s) on ${abId}, 1 live`);

    const noReason = await runJob(["jobs/merchants.ts", "revoke-claim", claimId], job);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("revoke-claim needs --reason");

    const revoked = await runJob(
      ["jobs/merchants.ts", "revoke-claim", claimId, "--reason", "usurpation signalée", "--actor", "operator:alice"],
      job,
    );
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`${claimId} on ${abId} revoked`);
    expect(signedOutPage(await (await person.fetch("/pro")).text())).toBe(true);
    expect((await person.fetch(`/pro/revendiquer`, { form: { csrf: person.csrfToken, ab_id: abId } })).status).toBe(
      403,
    );

    const again = await runJob(["jobs/merchants.ts", "revoke-claim", claimId, "--reason", "encore"], job);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("CONFLICT");
    const unknown = await runJob(["jobs/merchants.ts", "claims", "ab_zzzzzzzz"], job);
    expect(unknown.code).toBe(1);

    const shown = await runJob(["jobs/merchants.ts", "claims", abId, "--json"], job);
    expect(JSON.parse(shown.stdout)).toMatchObject([
      { claimId, revokedBy: "operator:alice", revokedReason: "usurpation signalée" },
    ]);
    const events = query<{ actor: string; action: string; reason: string }>(
      "SELECT actor, action, reason FROM merchant_events WHERE ab_id = ? AND action LIKE 'claim%' ORDER BY event_id",
      abId,
    );
    expect(events).toEqual([
      {
        actor: `merchant:${claimId}`,
        action: "claimed",
        reason: "via proconnect; basis siret; acr eidas1; amr pwd; idp_id 7f1c2b9e-idp-test",
      },
      { actor: "operator:alice", action: "claim_revoked", reason: `claim ${claimId}: usurpation signalée` },
    ]);
  });
});
