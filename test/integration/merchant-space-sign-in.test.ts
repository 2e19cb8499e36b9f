/**
 * The merchant space's door over HTTP against the built server and a real OpenID provider
 * configured like ProConnect (test/helpers/proconnect.ts): sign-in (redirect, login, consent,
 * code exchange, signed ID token, signed userinfo), claims, sign-out at the provider too, and the
 * operator's revocation ending the session.
 */

import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInThroughProConnect, startServerWithProConnect, type TestProConnect } from "../helpers/proconnect.ts";
import type { TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, provider, close } = await startServerWithProConnect({ count: 120 }));
});
afterAll(async () => {
  await close?.();
});

function listing(abId: string): { siret: string; business_name: string } {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return db.prepare("SELECT siret, business_name FROM merchants WHERE ab_id = ?").get(abId) as {
      siret: string;
      business_name: string;
    };
  } finally {
    db.close();
  }
}

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`no ${name} merchant in the demo`);
  return id;
};

describe("signing in with ProConnect", () => {
  it("signs in, shows the listing of the person's SIRET, claims it", async () => {
    const abId = first("active_contactable");
    const { siret, business_name } = listing(abId);
    const person = await signInThroughProConnect(server.url, provider, { siret, siren: siret.slice(0, 9) });
    expect(person.browser.prompts).toEqual(["login", "consent"]);
    const home = await person.fetch("/pro");
    const page = await home.text();
    expect(home.status).toBe(200);
    expect(page).toContain(`Revendiquer la fiche ${business_name}`);
    const claimed = await person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId } });
    expect(claimed.status).toBe(303);
    expect(claimed.headers.get("location")).toBe(`/pro?revendiquee=${abId}`);
    const after = await (await person.fetch(`/pro?revendiquee=${abId}`)).text();
    expect(after).toContain(`Vous gérez maintenant la fiche ${business_name}.`);
    expect(after).toContain(`href="/pro/${abId}/"`);
  });
});
