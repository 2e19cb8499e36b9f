/**
 * The trades table (data/naf-trades.json) against INSEE's two nomenclatures: every sub-class of
 * NAF rev. 2 (@socialgouv/codes-naf) and of NAF 2025 (data/naf2025.json) is in exactly one trade
 * or left out by exactly one entry; its codes are real ones; it agrees with INSEE's
 * correspondence (data/naf-correspondence.csv); its schema.org types are LocalBusiness types; and
 * the lookups read it as the import needs (NAF 2025 first).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { nafLabel, nafSubclasses, nomenclatureOf } from "../../src/domain/naf.ts";
import {
  leftOutActivities,
  sectors,
  type Trade,
  tradeByKey,
  tradeForNaf,
  tradeForNaf2025,
  tradeOf,
  trades,
} from "../../src/domain/sectors.ts";
import { schemaOrgVocabulary } from "../helpers/schema-org.ts";

const require = createRequire(import.meta.url);
const rev2 = (require("@socialgouv/codes-naf") as { id: string }[])
  .map((entry) => entry.id)
  .filter((id) => /^\d{2}\.\d{2}[A-Z]$/.test(id));
const naf2025 = Object.keys(
  (
    JSON.parse(readFileSync(new URL("../../data/naf2025.json", import.meta.url), "utf8")) as {
      subclasses: Record<string, string>;
    }
  ).subclasses,
);
const correspondence = readFileSync(new URL("../../data/naf-correspondence.csv", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [from = "", to = "", type = ""] = line.split(",");
    return { from, to, type };
  });

/** Where each sub-class of a nomenclature goes: the trades and left-out entries that claim it. */
function claims(codes: readonly string[], codesOf: (trade: Trade) => readonly string[], left: "nafRev2" | "naf2025") {
  return codes.map((code) => ({
    code,
    by: [
      ...trades.filter((trade) => codesOf(trade).includes(code)).map((trade) => `trade ${trade.key}`),
      ...leftOutActivities.flatMap((entry) =>
        entry[left].filter((prefix) => code.startsWith(prefix)).map((prefix) => `left out ${prefix}`),
      ),
    ],
  }));
}

describe("the NAF trades table", () => {
  it("reads INSEE's nomenclatures whole: 732 NAF rev. 2 and 747 NAF 2025 sub-classes, no code in both", () => {
    expect(rev2).toHaveLength(732);
    expect(naf2025).toHaveLength(747);
    expect(nafSubclasses("rev2")).toEqual(rev2);
    expect(nafSubclasses("2025")).toEqual(naf2025);
    expect(rev2.filter((code) => naf2025.includes(code))).toEqual([]);
    expect(nomenclatureOf("47.24Z")).toBe("rev2");
    expect(nomenclatureOf("56.11G")).toBe("2025");
    expect(nomenclatureOf("56.11Z")).toBeNull();
    expect(nafLabel("56.11G")).toBe("Restauration traditionnelle");
    expect(nafLabel("43.21G")).toBe("Travaux d'installation électrique dans tous locaux");
    expect(nafLabel("47.24Z")).toBe("Commerce de détail de pain, pâtisserie et confiserie en magasin spécialisé");
  });

  it("puts every NAF rev. 2 sub-class in exactly one trade or leaves it out by exactly one entry", () => {
    const wrong = claims(rev2, (trade) => trade.nafCodes, "nafRev2").filter((claim) => claim.by.length !== 1);
    expect(wrong).toEqual([]);
  });

  it("puts every NAF 2025 sub-class in exactly one trade or leaves it out by exactly one entry", () => {
    const wrong = claims(naf2025, (trade) => trade.naf2025Codes, "naf2025").filter((claim) => claim.by.length !== 1);
    expect(wrong).toEqual([]);
  });

  it("names only real codes: each trade's sub-classes are of its nomenclature, each left-out code starts one", () => {
    for (const trade of trades) {
      expect(
        trade.nafCodes.filter((code) => !rev2.includes(code)),
        trade.key,
      ).toEqual([]);
      expect(
        trade.naf2025Codes.filter((code) => !naf2025.includes(code)),
        trade.key,
      ).toEqual([]);
    }
    for (const entry of leftOutActivities) {
      expect(entry.why.length).toBeGreaterThan(10);
      expect(
        entry.nafRev2.filter((prefix) => !rev2.some((code) => code.startsWith(prefix))),
        entry.why,
      ).toEqual([]);
      expect(
        entry.naf2025.filter((prefix) => !naf2025.some((code) => code.startsWith(prefix))),
        entry.why,
      ).toEqual([]);
    }
  });

  it("covers the local commerce the first run on real rows dropped", () => {
    // Of 113 real establishments, 85 were dropped as "trade not covered"; among them these.
    const expected: [code: string, key: string][] = [
      ["47.24Z", "confiserie"],
      ["56.10C", "restauration_rapide"],
      ["56.30Z", "bar"],
      ["47.11B", "epicerie"],
      ["47.73Z", "pharmacie"],
      ["47.78A", "opticien"],
      ["96.03Z", "funeraire"],
      ["95.12Z", "reparation_informatique"],
      ["85.53Z", "auto_ecole"],
      ["55.30Z", "camping"],
      ["43.99C", "macon"],
      ["45.11Z", "concessionnaire"],
      ["47.11L", "marche_alimentaire"],
      ["95.29G", "reparation_velos"],
      ["96.21H", "coiffeur"],
    ];
    expect(expected.map(([code]) => [code, tradeForNaf(code)?.key])).toEqual(expected);
    expect(tradeForNaf("64.20Z")).toBeUndefined(); // holding companies
    expect(tradeForNaf("46.34Z")).toBeUndefined(); // wholesale of drinks
    expect(tradeForNaf("86.21Z")).toBeUndefined(); // general practitioners
    expect(tradeForNaf("47.91B")).toBeUndefined(); // distance selling
  });

  it("keeps the 27 trades the demo registry and the documents were built on, with their codes", () => {
    const kept = Object.fromEntries(
      [
        "plombier",
        "electricien",
        "menuisier",
        "peintre",
        "couvreur",
        "paysagiste",
        "boulanger",
        "charcutier",
        "boucher",
        "traiteur",
        "restaurant",
        "coiffeur",
        "estheticienne",
        "spa",
        "garagiste",
        "agence_voyage",
        "voyagiste",
        "guide",
        "hotel",
        "fleuriste",
        "librairie",
        "agence_immobiliere",
        "courtier_assurance",
        "veterinaire",
        "photographe",
        "cordonnier",
        "salle_sport",
      ].map((key) => [key, tradeByKey(key)?.nafCode]),
    );
    expect(kept).toEqual({
      plombier: "43.22A",
      electricien: "43.21A",
      menuisier: "43.32A",
      peintre: "43.34Z",
      couvreur: "43.91B",
      paysagiste: "81.30Z",
      boulanger: "10.71C",
      charcutier: "10.13B",
      boucher: "47.22Z",
      traiteur: "56.21Z",
      restaurant: "56.10A",
      coiffeur: "96.02A",
      estheticienne: "96.02B",
      spa: "96.04Z",
      garagiste: "45.20A",
      agence_voyage: "79.11Z",
      voyagiste: "79.12Z",
      guide: "79.90Z",
      hotel: "55.10Z",
      fleuriste: "47.76Z",
      librairie: "47.61Z",
      agence_immobiliere: "68.31Z",
      courtier_assurance: "66.22Z",
      veterinaire: "75.00Z",
      photographe: "74.20Z",
      cordonnier: "95.23Z",
      salle_sport: "93.13Z",
    });
  });

  it("agrees with INSEE's correspondence: every code of both nomenclatures is in it, as published", () => {
    expect(correspondence).toHaveLength(1_223);
    expect(new Set(correspondence.map((row) => row.type))).toEqual(new Set(["Unique", "Multiple"]));
    expect(rev2.filter((code) => !correspondence.some((row) => row.from === code))).toEqual([]);
    expect(naf2025.filter((code) => !correspondence.some((row) => row.to === code))).toEqual(["46.89Y"]);
    expect(correspondence.filter((row) => !rev2.includes(row.from) || !naf2025.includes(row.to))).toEqual([]);
    expect(correspondence.filter((row) => row.from === "43.21A")).toEqual([
      { from: "43.21A", to: "43.21G", type: "Unique" },
    ]);
    expect(correspondence.filter((row) => row.from === "56.10C").map((row) => row.to)).toEqual(["56.11J", "56.12Y"]);
  });

  it("takes a whole sub-class in or out in both nomenclatures, and no covered trade vanishes at the switch", () => {
    const covered2 = (code: string) => tradeForNaf(code) !== undefined;
    const covered25 = (code: string) => tradeForNaf2025(code) !== undefined;
    // INSEE moves the whole rev. 2 sub-class to this NAF 2025 one: both in, or both out.
    const split = correspondence.filter((row) => row.type === "Unique" && covered2(row.from) !== covered25(row.to));
    expect(split).toEqual([]);
    // A merchant of a covered rev. 2 code has somewhere to go once SIRENE writes NAF 2025 only.
    const stranded = rev2
      .filter(covered2)
      .filter((code) => !correspondence.some((row) => row.from === code && covered25(row.to)));
    expect(stranded).toEqual([]);
  });

  it("gives each trade a sector family, names in both languages and a schema.org LocalBusiness type", () => {
    const { properties, ancestors } = schemaOrgVocabulary();
    const isLocalBusiness = (type: string) => type === "LocalBusiness" || ancestors.get(type)?.has("LocalBusiness");
    expect(trades.length).toBeGreaterThan(100);
    for (const trade of trades) {
      expect(sectors[trade.sector], trade.key).toBeDefined();
      expect(trade.label.length, trade.key).toBeGreaterThan(1);
      expect(trade.nameEn.length, trade.key).toBeGreaterThan(1);
      expect(trade.names.length, trade.key).toBeGreaterThan(0);
      const types = trade.schemaOrgTypes ?? [trade.schemaOrgType];
      expect(
        types.filter((type) => !properties.has(type)),
        trade.key,
      ).toEqual([]);
      expect(types.some(isLocalBusiness), `${trade.key}: ${types.join(", ")}`).toBe(true);
    }
  });

  it("finds an establishment's trade by its NAF 2025 code first, by its rev. 2 code without one", () => {
    expect(tradeOf({ nafCode: "43.21A", nafCode2025: "43.21G" })?.key).toBe("electricien");
    expect(tradeOf({ nafCode: "56.10A", nafCode2025: null })?.key).toBe("restaurant");
    // A row of 2027 on: NAF 2025 only, the rev. 2 column empty.
    expect(tradeOf({ nafCode: "", nafCode2025: "56.11G" })?.key).toBe("restaurant");
    // INSEE reclassified the establishment: the NAF 2025 code decides.
    expect(tradeOf({ nafCode: "47.29Z", nafCode2025: "47.27G" })?.key).toBe("fromager");
    expect(tradeOf({ nafCode: "81.21Z", nafCode2025: "81.10Y" })).toBeUndefined();
    expect(tradeOf({ nafCode: "47.91B", nafCode2025: "47.71Y" })?.key).toBe("habillement");
    // Not a NAF 2025 code: the rev. 2 code decides.
    expect(tradeOf({ nafCode: "56.10C", nafCode2025: "56.99X" })?.key).toBe("restauration_rapide");
  });
});
