import { describe, expect, it } from "vitest";
import { misspell, questionMix, type RegistryRow } from "../../bench/question-mix.ts";

const row = (abId: string, siret: string, businessName: string, city: string, postalCode: string): RegistryRow => ({
  abId,
  siret,
  businessName,
  city,
  postalCode,
  // A restaurant (NAF 2025 56.11G, rev. 2 56.10A): its trade's first name is "restaurant".
  nafCode: "56.10A",
  nafCode2025: "56.11G",
});

describe("misspell", () => {
  it("swaps the two letters at the middle of the town's longest word", () => {
    expect(misspell("Cousance")).toBe("Couasnce");
    expect(misspell("Loire-sur-Rhône")).toBe("Liore-sur-Rhône");
  });

  it("drops one of them when they are the same letter", () => {
    expect(misspell("Rennes")).toBe("Renes");
  });

  it("leaves a town of no word of five letters or more out", () => {
    expect(misspell("Pau")).toBeNull();
    expect(misspell("Le Puy")).toBeNull();
  });
});

describe("questionMix", () => {
  const rows = [
    row("ab_1", "03368916700014", "EURL BERNARD 12927", "Cousance", "39190"),
    row("ab_2", "02885867800023", "AU PETIT", "Pau", "64000"),
    row("ab_3", "03241080500017", "SARL MOREAU", "Étampes", "91150"),
    row("ab_4", "03241080500025", "SARL MOREAU", "Étampes", "91150"),
    row("ab_5", "02937904700011", "PIERRE LEROY", "Pau", "64000"),
    row("ab_6", "03104203900011", "EURL DURAND", "Metz", "57000"),
    row("ab_7", "03104203900029", "LE MICHEL", "Angers", "49000"),
  ];

  it("asks each kind in turn, one question a merchant, distinct ones only", () => {
    expect(questionMix(rows, 10)).toEqual([
      { kind: "name_town", q: "EURL BERNARD 12927 Cousance", abId: "ab_1" },
      { kind: "trade_postcode", q: "restaurant 64000", abId: "ab_2" },
      { kind: "siret", q: "03241080500017", abId: "ab_3" },
      { kind: "siren", q: "032410805", abId: "ab_4" },
      // ab_5's town is too short to misspell: no question.
      { kind: "name_town", q: "EURL DURAND Metz", abId: "ab_6" },
      { kind: "trade_postcode", q: "restaurant 49000", abId: "ab_7" },
    ]);
  });

  it("leaves out a question asked before (a SIREN of two establishments)", () => {
    const twice = [...rows, rows[2], rows[3], rows[2]] as RegistryRow[];
    expect(questionMix(twice, 10).map((question) => question.q)).toEqual([
      "EURL BERNARD 12927 Cousance",
      "restaurant 64000",
      "03241080500017",
      "032410805",
      "EURL DURAND Metz",
      "restaurant 49000",
      // ab_3's SIRET and ab_4's SIREN again: asked before; then ab_3 gives a misspelled town.
      "restaurant Étmapes",
    ]);
  });

  it("stops at the count asked", () => {
    expect(questionMix(rows, 2).map((question) => question.abId)).toEqual(["ab_1", "ab_2"]);
  });
});
