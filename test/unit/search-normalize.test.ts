import { describe, expect, it } from "vitest";
import {
  foldCase,
  indexTerms,
  isStopWord,
  MAX_QUERY_TERMS,
  MAX_TERM_LENGTH,
  normalizeForIndex,
  normalizeTag,
  queryTerms,
  singularize,
  splitWords,
} from "../../src/search/normalize.ts";

const terms = (text: string) => queryTerms(text).map((term) => term.term);

describe("foldCase", () => {
  it("lower-cases and strips accents", () => {
    expect(foldCase("Pâtisserie CRÈME brûlée à Noël")).toBe("patisserie creme brulee a noel");
  });

  it("expands ligatures", () => {
    expect(foldCase("Œuf, cœur, ex æquo, Straße")).toBe("oeuf, coeur, ex aequo, strasse");
  });

  it("removes combining marks typed separately", () => {
    expect(foldCase("cafe\u0301")).toBe("cafe");
  });

  it("keeps letters of other scripts", () => {
    expect(foldCase("Москва 北京")).toBe("москва 北京");
  });
});

describe("splitWords", () => {
  it("splits on anything that is not a letter or a digit", () => {
    expect(splitWords("bien-être, 10€ / 24h/24 — tél.: 04 78")).toEqual([
      "bien",
      "etre",
      "10",
      "24h",
      "24",
      "tel",
      "04",
      "78",
    ]);
  });

  it("drops French elisions, with straight or curly apostrophes", () => {
    expect(splitWords("l'atelier d’art qu'il jusqu'au")).toEqual(["atelier", "art", "il", "au"]);
    expect(splitWords("L’Étoile")).toEqual(["etoile"]);
  });

  it("turns control characters, NUL and emoji into separators", () => {
    expect(splitWords("pain\u0000vin\tbio🍞croissant")).toEqual(["pain", "vin", "bio", "croissant"]);
  });

  it("cuts words longer than the longest term", () => {
    expect(splitWords("x".repeat(500))).toEqual(["x".repeat(MAX_TERM_LENGTH)]);
  });
});

describe("singularize", () => {
  it.each([
    ["plombiers", "plombier"],
    ["boulangeries", "boulangerie"],
    ["gateaux", "gateau"],
    ["chevaux", "cheval"],
    ["commerciaux", "commercial"],
    ["travaux", "travail"],
    ["tuyaux", "tuyau"],
    ["bijoux", "bijou"],
    ["jeux", "jeu"],
  ])("folds %s to %s", (plural, singular) => {
    expect(singularize(plural)).toBe(singular);
  });

  it.each(["plombier", "cheval", "gateau", "sans", "paris", "prix", "bus", "verre", "classe", "75011"])(
    "leaves %s unchanged",
    (word) => {
      expect(singularize(word)).toBe(word);
    },
  );
});

describe("stop words", () => {
  it("recognises French function words", () => {
    for (const word of ["le", "la", "les", "de", "des", "du", "a", "au", "aux", "et", "pour", "chez"]) {
      expect(isStopWord(word)).toBe(true);
    }
  });

  it("keeps words that narrow a search", () => {
    for (const word of ["sans", "bio", "pres", "nuit", "lyon"]) expect(isStopWord(word)).toBe(false);
  });
});

describe("indexTerms", () => {
  it("gives the same terms for a document whatever its case, accents and plurals", () => {
    expect(indexTerms("Plombiers à Lyon")).toEqual(["plombier", "lyon"]);
    expect(indexTerms("PLOMBIER LYON")).toEqual(["plombier", "lyon"]);
    expect(normalizeForIndex("Les Gâteaux de l'Atelier")).toBe("gateau atelier");
  });

  it("drops lone letters but keeps lone digits", () => {
    expect(indexTerms("vitamine C, 5 étoiles")).toEqual(["vitamine", "5", "etoile"]);
  });

  it("returns nothing for empty or missing text", () => {
    expect(indexTerms(null)).toEqual([]);
    expect(indexTerms(undefined)).toEqual([]);
    expect(normalizeForIndex("")).toBe("");
  });
});

describe("queryTerms", () => {
  it("reduces case, accent and plural variants of a query to the same terms", () => {
    expect(terms("Plombiers à Lyon")).toEqual(["plombier", "lyon"]);
    expect(terms("plombier lyon")).toEqual(["plombier", "lyon"]);
    expect(terms("PLOMBIER LYON")).toEqual(["plombier", "lyon"]);
  });

  it("matches the last word typed as a prefix, and only that one", () => {
    expect(queryTerms("pain boulan")).toEqual([
      { term: "pain", prefix: false },
      { term: "boulan", prefix: true },
    ]);
  });

  it("folds the last word before using it as a prefix", () => {
    expect(queryTerms("gâteaux")).toEqual([{ term: "gateau", prefix: true }]);
  });

  it("does not use a stop word as a prefix", () => {
    expect(queryTerms("boulangerie de")).toEqual([{ term: "boulangerie", prefix: false }]);
  });

  it("does not use a lone digit as a prefix (a prefix needs 2 characters)", () => {
    expect(queryTerms("salle 5")).toEqual([
      { term: "salle", prefix: false },
      { term: "5", prefix: false },
    ]);
  });

  it("keeps a postal code as one term", () => {
    expect(queryTerms("boulangerie 69003")).toEqual([
      { term: "boulangerie", prefix: false },
      { term: "69003", prefix: true },
    ]);
  });

  it("drops elisions and stop words", () => {
    expect(terms("l'atelier de la coiffure")).toEqual(["atelier", "coiffure"]);
  });

  it("returns nothing when every word is a stop word or a separator", () => {
    expect(queryTerms("de la")).toEqual([]);
    expect(queryTerms("   ")).toEqual([]);
    expect(queryTerms('"*:^-{}()')).toEqual([]);
  });

  it("deduplicates terms and keeps the prefix flag of a repeated last word", () => {
    expect(queryTerms("pain Pains pain")).toEqual([{ term: "pain", prefix: true }]);
  });

  it("keeps at most MAX_QUERY_TERMS terms of a very long query", () => {
    const long = Array.from({ length: 50 }, (_, index) => `mot${index}`).join(" ");
    expect(queryTerms(long)).toHaveLength(MAX_QUERY_TERMS);
  });

  it("turns FTS operators into plain words or nothing", () => {
    expect(terms('NEAR(pain vin) OR "croissant"* -bio ^x name:y')).toEqual([
      "near",
      "pain",
      "vin",
      "or",
      "croissant",
      "bio",
      "name",
    ]);
  });
});

describe("normalizeTag", () => {
  it("gives one canonical form to a tag written in different ways", () => {
    expect(normalizeTag("Sans Gluten")).toBe("sans gluten");
    expect(normalizeTag("sans-gluten")).toBe("sans gluten");
    expect(normalizeTag("  SANS   GLUTEN ")).toBe("sans gluten");
    expect(normalizeTag("Fait maison")).toBe("fait maison");
  });

  it("folds accents and plurals but keeps stop words, so a tag never vanishes", () => {
    expect(normalizeTag("À emporter")).toBe("a emporter");
    expect(normalizeTag("Végétariens")).toBe("vegetarien");
  });

  it("is empty for a tag with no letter or digit", () => {
    expect(normalizeTag("🍞 !")).toBe("");
  });
});
