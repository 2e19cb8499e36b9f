/**
 * The merchant space without PROCONNECT_*: /pro says in French that the ProConnect sign-in is not
 * configured here and points to the letter path; the sign-in routes answer a French 404 page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeHtml } from "../helpers/proconnect.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 20 });
});
afterAll(async () => {
  await server?.close();
});

describe("without ProConnect configured", () => {
  it("says so on /pro and points to the letter path", async () => {
    const answer = await server.get("/pro");
    expect(answer.status).toBe(200);
    const page = decodeHtml(await answer.text());
    expect(page).toContain("La connexion avec ProConnect n'est pas configurée sur ce service Abeille");
    expect(page).toContain('<a href="/pro/code">Saisir le code reçu par courrier</a>');
    expect(page).not.toContain('href="/pro/connexion"');
  });

  it.each(["/pro/connexion", "/pro/connexion/retour?code=x&state=y"])(
    "answers %s with a French 404 page",
    async (target) => {
      const answer = await server.get(target, { redirect: "manual" });
      expect(answer.status).toBe(404);
      expect(decodeHtml(await answer.text())).toContain(
        "Vous pouvez entrer dans l'espace professionnel avec le code reçu par courrier.",
      );
    },
  );
});
