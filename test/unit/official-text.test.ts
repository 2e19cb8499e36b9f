/**
 * Text read from the official files: control characters and bidirectional overrides removed by
 * the one rule of src/schemas/common.ts, and a SIRENE row held to the limits a merchant
 * declaration has (src/import/sirene/row-check.ts).
 */
import { describe, expect, it } from "vitest";
import { refusedRow } from "../../src/import/sirene/row-check.ts";
import { withoutControlCharacters } from "../../src/schemas/common.ts";
import { MERCHANT_TEXT_LIMITS } from "../../src/schemas/merchant-declaration.ts";

describe("withoutControlCharacters", () => {
  it("drops C0 and C1 controls, DEL and the bidirectional embeddings, overrides and isolates; a line control becomes a space", () => {
    expect(withoutControlCharacters("AU\u0000 PAIN\tDORE\u202e")).toBe("AU PAIN DORE");
    expect(withoutControlCharacters("LIGNE 1\r\nLIGNE 2\u0085FIN")).toBe("LIGNE 1 LIGNE 2 FIN");
    expect(withoutControlCharacters("\u001b[2JBOULANGERIE\u007f\u009b")).toBe("[2JBOULANGERIE");
    expect(withoutControlCharacters("\u202aA\u202bB\u202cC\u202dD\u2066E\u2067F\u2068G\u2069H\u061cI")).toBe(
      "ABCDEFGHI",
    );
    expect(withoutControlCharacters("A\u2028B\u2029C")).toBe("A B C");
  });

  it("keeps every other character, accents, non-breaking spaces and the direction marks of right-to-left names", () => {
    const text = "Boulangerie Pâtisserie L'Épi d'Or\u00a0& Fils \u200fمخبز\u200e";
    expect(withoutControlCharacters(text)).toBe(text);
  });
});

describe("refusedRow", () => {
  it("cleans each value in place and accepts a row within the declarations' limits", () => {
    const row = {
      siret: "99999235700015",
      enseigne1Etablissement: `${"B".repeat(119)}\u0000E`,
      libelleVoieEtablissement: "R".repeat(MERCHANT_TEXT_LIMITS.street),
      libelleCommuneEtablissement: "AMIENS\u202e",
      // Over the limit only by the spaces around it: the declaration trims them too.
      denominationUniteLegale: ` ${"S".repeat(MERCHANT_TEXT_LIMITS.legal_name)} `,
    };
    expect(refusedRow(row)).toBeNull();
    expect(row.enseigne1Etablissement).toBe(`${"B".repeat(119)}E`);
    expect(row.libelleCommuneEtablissement).toBe("AMIENS");
  });

  it("names the column, its length and the limit of the field it fills", () => {
    expect(refusedRow({ enseigne2Etablissement: "E".repeat(121) })).toBe(
      "enseigne2Etablissement: 121 characters, more than the 120 a business name may have",
    );
    expect(refusedRow({ nomUniteLegale: "N".repeat(201) })).toBe(
      "nomUniteLegale: 201 characters, more than the 200 a legal name may have",
    );
    expect(refusedRow({ libelleCommuneEtablissement: "V".repeat(101) })).toBe(
      "libelleCommuneEtablissement: 101 characters, more than the 100 a town may have",
    );
    expect(refusedRow({ siret: "1".repeat(201) })).toBe(
      "siret: 201 characters, more than the 200 any column the import reads may have",
    );
  });
});
