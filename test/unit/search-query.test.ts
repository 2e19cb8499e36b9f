import { describe, expect, it } from "vitest";
import { analyzeQuery, identifierIn } from "../../src/search/query.ts";
import { typoProbes, withinOneEdit } from "../../src/search/typos.ts";
import { FILLER_WORDS, TRADE_WORDS, tradeVocabularyText } from "../../src/search/vocabulary.ts";

describe("identifierIn", () => {
  it("reads a SIRET with spaces, dots, dashes or a label", () => {
    for (const text of [
      "44306184100047",
      "443 061 841 00047",
      "443.061.841.00047",
      "SIRET: 443-061-841-00047",
      "n° 443 061 841 00047",
    ]) {
      expect(identifierIn(text), text).toEqual({ kind: "siret", value: "44306184100047" });
    }
  });

  it("reads a SIREN and an ab_id in any case", () => {
    expect(identifierIn("443 061 841")).toEqual({ kind: "siren", value: "443061841" });
    expect(identifierIn(" AB_K3M9P2QX ")).toEqual({ kind: "ab_id", value: "ab_k3m9p2qx" });
  });

  it("takes postal codes, phone numbers and words for what they are", () => {
    for (const text of ["69003", "04 78 12 34 56", "plombier 443061841", "ab_short", "12345678901234567"]) {
      expect(identifierIn(text), text).toBeNull();
    }
  });
});

describe("analyzeQuery", () => {
  it("drops filler words and keeps the rest", () => {
    // "bordeaux" folds to "bordeau" on both sides (index and query), like any word in -eaux.
    expect(analyzeQuery("un bon plombier près de Bordeaux pas cher").terms.map((term) => term.term)).toEqual([
      "plombier",
      "bordeau",
    ]);
    expect(analyzeQuery("plumber near Paris").terms.map((term) => term.term)).toEqual(["plumber", "paris"]);
  });

  it("marks trade words and matches them whole, the last one included", () => {
    expect(analyzeQuery("coiffure villeur").terms).toEqual([
      { term: "coiffure", prefix: false, trade: true },
      { term: "villeur", prefix: true },
    ]);
    expect(analyzeQuery("maçon").terms).toEqual([{ term: "macon", prefix: false, trade: true }]);
  });

  it("answers no term for filler alone", () => {
    expect(analyzeQuery("près de chez").terms).toEqual([]);
  });
});

describe("the search vocabulary", () => {
  it("indexes a trade's French and English names with it, folded", () => {
    const hair = tradeVocabularyText("coiffeur").split(" ");
    for (const word of ["coiffeur", "coiffeuse", "coiffure", "salon", "hairdresser", "barber"])
      expect(hair).toContain(word);
    expect(tradeVocabularyText("garagiste").split(" ")).toEqual(expect.arrayContaining(["mecanicien", "mechanic"]));
    expect(tradeVocabularyText("hotel").split(" ")).toEqual(expect.arrayContaining(["gite", "hote", "breakfast"]));
    expect(tradeVocabularyText("no_such_trade")).toBe("");
  });

  it("knows one-word trade names, unlisted trades included, and not multi-word names' words", () => {
    for (const word of ["plombier", "coiffeur", "macon", "dentiste", "bakery"])
      expect(TRADE_WORDS.has(word), word).toBe(true);
    for (const word of ["salon", "chambre", "maison", "lyon"]) expect(TRADE_WORDS.has(word), word).toBe(false);
    expect(FILLER_WORDS.has("pres")).toBe(true);
    expect(FILLER_WORDS.has("boulangerie")).toBe(false);
  });
});

describe("withinOneEdit", () => {
  it("forgives one replaced, added, removed or swapped letter", () => {
    expect(withinOneEdit("boulangeire", "boulangerie")).toBe(true);
    expect(withinOneEdit("gargae", "garage")).toBe(true);
    expect(withinOneEdit("fleurizte", "fleuriste")).toBe(true);
    expect(withinOneEdit("plombie", "plombier")).toBe(true);
    expect(withinOneEdit("plombierr", "plombier")).toBe(true);
    expect(withinOneEdit("plombier", "plombier")).toBe(true);
  });

  it("does not forgive two edits", () => {
    expect(withinOneEdit("boulangrei", "boulangerie")).toBe(false);
    expect(withinOneEdit("macon", "manon")).toBe(true);
    expect(withinOneEdit("macon", "maison")).toBe(false);
    expect(withinOneEdit("plomb", "plombier")).toBe(false);
  });

  it("looks the candidates up by two-letter beginnings that survive any one edit after the first letter", () => {
    expect(typoProbes("boulangeire")).toEqual(["bo", "bu", "ob", "ou"]);
  });
});
