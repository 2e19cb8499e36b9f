import { describe, expect, it } from "vitest";
import { coveringCells, pointCells, tagToken } from "../../src/search/embedded/filter-tokens.ts";
import { matchProducts } from "../../src/search/embedded/product-match.ts";
import {
  allTermsMatch,
  blendedScore,
  boundingBox,
  haversineKm,
  matchExpression,
  roundKm,
  WEIGHTS,
} from "../../src/search/embedded/ranking.ts";
import { queryTerms } from "../../src/search/normalize.ts";

const PARIS = { lat: 48.8566, lng: 2.3522 };
const LYON = { lat: 45.764, lng: 4.8357 };

describe("FTS match expressions", () => {
  it("quotes every term and joins them with AND, the last one as a prefix", () => {
    expect(allTermsMatch(queryTerms("Plombiers à Lyon"))).toBe('"plombier" AND "lyon"*');
  });

  it("keeps a trade word out of the place column, and matches a corrected word by its alternatives", () => {
    expect(allTermsMatch([{ term: "macon", prefix: false, trade: true }])).toBe('{name trade products tags} : "macon"');
    expect(allTermsMatch([{ term: "boulangeire", prefix: false, alternatives: ["boulangerie", "boulanger"] }])).toBe(
      '("boulangerie" OR "boulanger")',
    );
  });

  it("adds every tag token and one of the cell tokens to the user terms", () => {
    expect(matchExpression(queryTerms("pain boulan"), ["t_bio", "t_sansgluten"], ["g_0n1e1", "g_0n1e2"])).toBe(
      '("pain" AND "boulan"*) AND ("t_bio" AND "t_sansgluten") AND ("g_0n1e1" OR "g_0n1e2")',
    );
  });

  it("leaves out the parts a query does not have", () => {
    expect(matchExpression([], ["t_bio"], null)).toBe('("t_bio")');
    expect(matchExpression(queryTerms("pain"), [], null)).toBe('("pain"*)');
  });

  it("never lets user syntax through", () => {
    const expression = allTermsMatch(queryTerms('NEAR("pain" OR vin)* -x ^y col:z {a b} t_bio'));
    expect(expression).toBe(['"near"', '"pain"', '"or"', '"vin"', '"col"', '"bio"*'].join(" AND "));
  });
});

describe("haversineKm", () => {
  it("measures Paris to Lyon at about 392 km", () => {
    expect(haversineKm(PARIS, LYON)).toBeCloseTo(391.5, 0);
  });

  it("is zero for the same point", () => {
    expect(haversineKm(LYON, LYON)).toBe(0);
  });
});

describe("boundingBox", () => {
  it("holds every point at the radius, in every direction", () => {
    const radiusKm = 10;
    const box = boundingBox(LYON, radiusKm);
    for (let bearing = 0; bearing < 360; bearing += 15) {
      const rad = (bearing * Math.PI) / 180;
      // A point a little inside the radius along this bearing (flat-earth step, fine at 10 km).
      const dLat = ((radiusKm * 0.999) / 111.32) * Math.cos(rad);
      const dLng = ((radiusKm * 0.999) / (111.32 * Math.cos((LYON.lat * Math.PI) / 180))) * Math.sin(rad);
      const point = { lat: LYON.lat + dLat, lng: LYON.lng + dLng };
      expect(point.lat).toBeGreaterThanOrEqual(box.minLat);
      expect(point.lat).toBeLessThanOrEqual(box.maxLat);
      expect(point.lng).toBeGreaterThanOrEqual(box.minLng);
      expect(point.lng).toBeLessThanOrEqual(box.maxLng);
    }
  });

  it("widens to every longitude near a pole or across the antimeridian", () => {
    expect(boundingBox({ lat: 89.99, lng: 0 }, 50)).toMatchObject({ minLng: -180, maxLng: 180, maxLat: 90 });
    expect(boundingBox({ lat: 0, lng: 179.99 }, 50)).toMatchObject({ minLng: -180, maxLng: 180 });
  });
});

describe("filter tokens", () => {
  it("covers every point within the radius with one of the query cells", () => {
    for (const radiusKm of [0.5, 3, 10, 40, 150]) {
      const cells = coveringCells(boundingBox(LYON, radiusKm));
      expect(cells).not.toBeNull();
      expect(cells?.length ?? 0).toBeLessThanOrEqual(24);
      for (let bearing = 0; bearing < 360; bearing += 30) {
        const rad = (bearing * Math.PI) / 180;
        const dLat = ((radiusKm * 0.99) / 111.32) * Math.cos(rad);
        const dLng = ((radiusKm * 0.99) / (111.32 * Math.cos((LYON.lat * Math.PI) / 180))) * Math.sin(rad);
        const own = pointCells(LYON.lat + dLat, LYON.lng + dLng);
        expect(own.some((cell) => cells?.includes(cell))).toBe(true);
      }
    }
  });

  it("gives up on cells for a radius too large to cover with a few", () => {
    expect(coveringCells(boundingBox(LYON, 2_000))).toBeNull();
  });

  it("turns a canonical tag into one token", () => {
    expect(tagToken("sans gluten")).toBe("t_sansgluten");
    expect(tagToken("bio")).toBe("t_bio");
  });
});

describe("blendedScore", () => {
  it("rewards text relevance, trust and proximity", () => {
    const base = { text: 0.5, trust: 50, distanceKm: 5, radiusKm: 10 };
    const score = blendedScore(base, WEIGHTS.textAndNear);
    expect(blendedScore({ ...base, text: 0.9 }, WEIGHTS.textAndNear)).toBeGreaterThan(score);
    expect(blendedScore({ ...base, trust: 80 }, WEIGHTS.textAndNear)).toBeGreaterThan(score);
    expect(blendedScore({ ...base, distanceKm: 1 }, WEIGHTS.textAndNear)).toBeGreaterThan(score);
  });

  it("stays within 0 to 100", () => {
    expect(blendedScore({ text: 1, trust: 100, distanceKm: 0, radiusKm: 10 }, WEIGHTS.textAndNear)).toBe(100);
    expect(blendedScore({ text: 0, trust: 0, distanceKm: 10, radiusKm: 10 }, WEIGHTS.textAndNear)).toBe(0);
    expect(blendedScore({ text: 1, trust: 250, distanceKm: null, radiusKm: null }, WEIGHTS.textOnly)).toBe(100);
  });
});

describe("roundKm", () => {
  it("rounds to 0.01 km", () => {
    expect(roundKm(4.31649)).toBe(4.32);
    expect(roundKm(0.004)).toBe(0);
  });
});

describe("matchProducts", () => {
  const product = (id: string, position: number, name: string, description: string, tags: string[]) => ({
    ab_id: "ab_test0001",
    product_id: id,
    name,
    description,
    tags: JSON.stringify(tags),
    position,
  });
  const catalogue = [
    product("p1", 0, "Baguette", "Farine de blé.", ["fait maison"]),
    product("p2", 1, "Pain de campagne", "Levain naturel.", ["Bio"]),
    product("p3", 2, "Gâteaux de fête", "Pain de Gênes et génoises.", ["Bio", "Sans gluten"]),
  ];

  it("lists products matching the text, a match in the name before one in the description", () => {
    expect(matchProducts(catalogue, queryTerms("pain"), [])).toEqual(["p2", "p3"]);
  });

  it("matches the last word as a prefix and folds plurals", () => {
    expect(matchProducts(catalogue, queryTerms("gâteau"), [])).toEqual(["p3"]);
    expect(matchProducts(catalogue, queryTerms("bague"), [])).toEqual(["p1"]);
  });

  it("lists products carrying the most requested tags first", () => {
    expect(matchProducts(catalogue, [], ["bio", "sans gluten"])).toEqual(["p3", "p2"]);
  });

  it("returns nothing when no product matches", () => {
    expect(matchProducts(catalogue, queryTerms("plombier"), [])).toEqual([]);
    expect(matchProducts(catalogue, [], [])).toEqual([]);
  });

  it("tolerates malformed tags", () => {
    expect(
      matchProducts([{ ...catalogue[0], tags: "not json" } as (typeof catalogue)[number]], queryTerms("baguette"), [
        "bio",
      ]),
    ).toEqual(["p1"]);
  });
});
