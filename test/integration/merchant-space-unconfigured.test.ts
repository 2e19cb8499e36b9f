/**
 * The merchant space without PROCONNECT_* (a private deployment: letters only, docs/deployment.md):
 * /pro offers the letter path alone and says what the merchant can do at each step; the sign-in
 * routes answer a French 404 page.
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
  it("offers the letter path alone on /pro, saying what the merchant can do at each step", async () => {
    const answer = await server.get("/pro");
    expect(answer.status).toBe(200);
    const page = decodeHtml(await answer.text());
    expect(page).toContain("<h2>Entrer avec le code reçu par courrier</h2>");
    expect(page).toContain(
      'Vous avez reçu le courrier : <a href="/pro/code">saisissez le code reçu par courrier</a>, avec l\'adresse e-mail où vous souhaitez recevoir vos liens de connexion.',
    );
    expect(page).toContain(
      'Vous avez déjà saisi votre code : <a href="/pro/lien">recevez un lien de connexion par e-mail</a>.',
    );
    expect(page).toContain(
      "Vous n'avez pas reçu de courrier : écrivez à l'équipe d'Abeille (equipe@abeille.local) en indiquant le SIRET de votre établissement ; le courrier part à l'adresse SIRENE, jamais à une autre.",
    );
    expect(page).toContain(
      "La connexion avec ProConnect n'est pas proposée sur ce service Abeille : le courrier est le moyen d'entrer pour tous les établissements.",
    );
    expect(page).not.toContain('href="/pro/connexion');
    expect(page).not.toContain("S'identifier avec ProConnect");
  });

  it("takes a letter's code and asks for sign-in links as with ProConnect on", async () => {
    for (const target of ["/pro/code", "/pro/lien"]) {
      const answer = await server.get(target);
      expect(answer.status, target).toBe(200);
    }
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
