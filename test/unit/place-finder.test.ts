import { describe, expect, it } from "vitest";
import { createPlaceFinder } from "../../src/seed/communes.ts";

/** near= and the front door's town, read against the commune reference (data/communes.json). */
const places = createPlaceFinder();
const suggestionsFor = (text: string) => {
  const found = places.find(text);
  return found.place === null ? found.suggestions : [];
};

describe("the place finder", () => {
  it("reads a town's name whatever its case, accents, hyphens and Saint written short", () => {
    const lyon = { place: { name: "Lyon", department: "69", postalCode: "69001", lat: 45.74846, lng: 4.84671 } };
    expect(places.find("Lyon")).toEqual(lyon);
    expect(places.find("  LYON ")).toEqual(lyon);
    expect(places.find("St Etienne").place).toMatchObject({ name: "Saint-Étienne", department: "42" });
    expect(places.find("Lisle sur la sorgue").place).toMatchObject({ name: "L'Isle-sur-la-Sorgue" });
  });

  it("reads a postal code, a postal code with the name, a district", () => {
    expect(places.find("69003").place).toMatchObject({ name: "Lyon", postalCode: "69003" });
    expect(places.find("69003 Lyon").place).toMatchObject({ name: "Lyon", postalCode: "69003" });
    expect(places.find("Paris 75011").place).toMatchObject({ name: "Paris", postalCode: "75011" });
    expect(places.find("Lyon 3e").place).toMatchObject({ name: "Lyon", department: "69" });
  });

  it("takes the most populated of homonyms, or the department's given", () => {
    expect(places.find("Saint-Denis").place).toMatchObject({ department: "93", postalCode: "93200" });
    expect(places.find("Saint-Denis, 93").place).toMatchObject({ department: "93" });
    // A commune the reference does not place: around the placed commune of its postal code.
    expect(places.find("Saint-Denis (30)")).toEqual({
      place: { name: "Saint-Denis", department: "30", postalCode: "30500", lat: 44.25893, lng: 4.19833 },
    });
    expect(places.find("Saint-Denis (974)")).toEqual({
      place: null,
      reason: "the commune reference has no coordinates for Saint-Denis (974): give lat and lng",
      suggestions: [],
    });
  });

  it("names the closest places of an unknown one: a letter or two away, or beginning with it", () => {
    expect(places.find("Marseile")).toEqual({
      place: null,
      reason: 'no French commune is named "Marseile"',
      suggestions: ["Marseille"],
    });
    expect(suggestionsFor("Lyonn")).toEqual(["Lyon"]);
    expect(suggestionsFor("Villeurb")[0]).toBe("Villeurbanne");
    expect(places.find("xyzzy")).toEqual({
      place: null,
      reason: `no French commune is named "xyzzy": give a town's name or a 5-digit postal code, or lat and lng`,
      suggestions: [],
    });
    expect(places.find("99999")).toEqual({
      place: null,
      reason:
        "no French commune has the postal code 99999: give a town's name or a 5-digit postal code, or lat and lng",
      suggestions: [],
    });
  });
});
