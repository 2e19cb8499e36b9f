/**
 * The merchant space's own budgets per client address (src/http/guard.ts, PRO_SIGN_INS_HOURLY and
 * PRO_CLAIMS_HOURLY): sign-ins started and claims posted are refused past them with 429, a French
 * page and Retry-After, nothing written.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browse,
  decodeHtml,
  newBrowser,
  signInThroughProConnect,
  startServerWithProConnect,
  type TestProConnect,
} from "../helpers/proconnect.ts";
import type { TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let provider: TestProConnect;
let close: () => Promise<void>;

beforeAll(async () => {
  // A sign-in counts twice on its budget (the start and the callback): 4 is two sign-ins.
  ({ server, provider, close } = await startServerWithProConnect({
    count: 120,
    env: { PRO_SIGN_INS_HOURLY: "4", PRO_CLAIMS_HOURLY: "2" },
  }));
});
afterAll(async () => {
  await close?.();
});

const siretOf = (abId: string) => {
  const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
  try {
    return (db.prepare("SELECT siret FROM merchants WHERE ab_id = ?").get(abId) as { siret: string }).siret;
  } finally {
    db.close();
  }
};

describe("rate limits of the merchant space", () => {
  it("refuses claims past the budget, then sign-ins past theirs", async () => {
    const [first, second, third] = server.roster.cases.active_contactable ?? [];
    const person = await signInThroughProConnect(server.url, provider, { siret: siretOf(first ?? "") });
    const claim = (abId: string | undefined) =>
      person.fetch("/pro/revendiquer", { form: { csrf: person.csrfToken, ab_id: abId ?? "" } });
    // Two claims posted (the second is another company's: 404, but counted all the same).
    expect((await claim(first)).status).toBe(303);
    expect((await claim(second)).status).toBe(404);
    const refused = await claim(first);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(decodeHtml(await refused.text())).toContain("<h1>Trop de tentatives</h1>");

    // One sign-in done (2 units); a second one fits; the third start is refused.
    await signInThroughProConnect(server.url, provider, { siret: siretOf(third ?? "") });
    const blocked = await browse(newBrowser(server.url), `${server.url}/pro/connexion`);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("location")).toBeNull();
    // The space's door is not a sign-in: it still answers.
    expect((await browse(newBrowser(server.url), `${server.url}/pro`)).status).toBe(200);
  });
});
