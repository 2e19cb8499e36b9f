import { describe, expect, it } from "vitest";
import { identityCheckAt } from "../../src/publish/facts.ts";
import { renderHomePage } from "../../src/publish/front-door.ts";
import { buildNotFoundPage } from "../../src/publish/not-found-page.ts";
import type { SearchResult } from "../../src/schemas/registry.ts";
import { BASE, NOW, signal } from "./publish-fixtures.ts";

function result(
  abId: string,
  name: string,
  trustLevel: SearchResult["merchant"]["trust_level"],
  opening: SearchResult["merchant"]["opening"] = { open_now: null, today: null, next_change: null },
): SearchResult {
  return {
    merchant: {
      ab_id: abId,
      name,
      address: "27 avenue Pasteur, 69002 Lyon",
      city: "Lyon",
      sector: "alimentation",
      trade: "Boulangerie-pâtisserie",
      rating: null,
      review_count: null,
      trust_score: 62,
      trust_level: trustLevel,
      opening,
    },
    products: [],
    score: 80,
    matched: ["trade"],
    _actions: [],
    _state: {
      trust_score: 62,
      merchant_status: "ACTIVE",
      payment_setup: false,
      can_receive_leads: true,
      can_contact: true,
      can_receive_orders: false,
      can_order: false,
      blocked_because: [],
    },
  };
}

const nowIso = NOW.toISOString();
const search = {
  query: { metier: "boulangerie", ville: "Lyon" },
  town: { name: "Lyon", department: "69", radiusKm: 15 },
  results: [
    // NOW is Sunday 10 May 2026, 11:00 in Paris.
    result("ab_verified", "Au Pain Doré", "verified", {
      open_now: true,
      today: "07:00-12:30",
      next_change: "2026-05-10T12:30:00+02:00",
    }),
    result("ab_expired", "La Mie Câline", "declared", {
      open_now: false,
      today: "closed",
      next_change: "2026-05-12T07:00:00+02:00",
    }),
    result("ab_never", "Le Fournil", "declared"),
  ],
  identities: new Map([
    ["ab_verified", identityCheckAt(signal("siret_verified"), nowIso)],
    [
      "ab_expired",
      identityCheckAt(
        signal("siret_verified", { verifiedAt: "2025-03-01T08:00:00.000Z", expiresAt: "2026-03-01T08:00:00.000Z" }),
        nowIso,
      ),
    ],
  ]) as ReadonlyMap<string, NonNullable<ReturnType<typeof identityCheckAt>>>,
  notice: null,
  now: NOW,
};
const page = renderHomePage(BASE, search).body.toString("utf8");

describe("the front door's results", () => {
  it("give the address once, its town included", () => {
    expect(page).toContain("<p>Boulangerie-pâtisserie · 27 avenue Pasteur, 69002 Lyon</p>");
    expect(page).not.toContain("69002 Lyon, Lyon");
  });

  it("each say whether an official register verified the identity, and as of when", () => {
    const statements = [...page.matchAll(/<p class="result-identity">([^<]+)<\/p>/g)].map((match) =>
      match[1]?.replace(/&#39;/g, "'"),
    );
    expect(statements).toEqual([
      "Identité vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le 1er mars 2026.",
      "Identité vérifiée auprès d'un registre officiel, le répertoire SIRENE de l'INSEE, le 1er mars 2025, mais cette vérification a expiré le 1er mars 2026 : elle est à renouveler.",
      "Identité non vérifiée : aucun registre officiel ne l'a confirmée à ce jour.",
    ]);
  });

  it("each say in French whether the merchant is open at the search's instant, and until or from when", () => {
    const statuses = [...page.matchAll(/<p class="result-opening">([^<]+)<\/p>/g)].map((match) => match[1]);
    expect(statuses).toEqual([
      "Ouvert maintenant · ferme à 12 h 30",
      "Fermé · ouvre mardi à 7 h 00",
      "Horaires non renseignés",
    ]);
    expect(page).toContain('<input id="ouvert" name="ouvert" type="checkbox" value="1">');
    expect(page).toContain('<label for="ouvert">Ouvert maintenant</label>');
  });

  it("come first on a search page, right after the form, which opens the page at them", () => {
    const form = page.indexOf('<form class="search-form" method="get" action="/#resultats" role="search">');
    const results = page.indexOf('<h2 id="resultats">Résultats</h2>');
    const intro = page.indexOf('<h2 id="abeille">');
    expect(form).toBeGreaterThan(0);
    expect(results).toBeGreaterThan(form);
    expect(intro).toBeGreaterThan(results);
    expect(page.match(/<h1/g)).toHaveLength(1);
    expect(page).toContain('<h1 id="recherche">Trouver un commerçant</h1>');
  });
});

describe("the pages that cannot be shown", () => {
  it("say what happened in words, with no status or error code", () => {
    const notFound = buildNotFoundPage();
    expect(notFound).toContain("<h1>Page introuvable</h1>");
    expect(notFound).not.toMatch(/Erreur \d|\b404\b/);
  });
});
