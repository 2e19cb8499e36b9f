import { describe, expect, it } from "vitest";
import {
  formatSiren,
  isLuhnValid,
  isValidSiren,
  isValidSiret,
  LA_POSTE_SIREN,
  luhnCheckDigit,
  makeSiren,
  makeSiret,
  sirenOf,
  vatFromSiren,
} from "../../src/domain/siret.ts";

describe("SIREN validation", () => {
  it("accepts nine digits that pass the Luhn check", () => {
    expect(isValidSiren("732829320")).toBe(true);
    expect(isValidSiren("542051180")).toBe(true);
    expect(isValidSiren("552081317")).toBe(true);
  });

  it("rejects a wrong check digit", () => {
    expect(isValidSiren("732829321")).toBe(false);
    expect(isValidSiren("542051181")).toBe(false);
  });

  it("accepts La Poste's SIREN", () => {
    expect(isValidSiren(LA_POSTE_SIREN)).toBe(true);
  });

  it("rejects wrong lengths, spaces, letters and non-strings", () => {
    for (const value of ["", "73282932", "7328293200", "732 829 320", "73282932O", " 732829320"]) {
      expect(isValidSiren(value), value).toBe(false);
    }
    for (const value of [732829320, null, undefined, {}, ["732829320"]]) expect(isValidSiren(value)).toBe(false);
  });
});

describe("SIRET validation", () => {
  it("accepts fourteen digits that pass the Luhn check", () => {
    expect(isValidSiret("73282932000074")).toBe(true);
    expect(isValidSiret("55210055400013")).toBe(true);
  });

  it("rejects a wrong NIC check digit", () => {
    expect(isValidSiret("73282932000075")).toBe(false);
    expect(isValidSiret("55210055400014")).toBe(false);
  });

  it("rejects a SIRET whose SIREN part is invalid even when the whole passes Luhn", () => {
    // 732829321 is not a valid SIREN; choose a NIC making the 14 digits Luhn-valid anyway.
    const prefix = "7328293210001";
    const siret = prefix + luhnCheckDigit(prefix);
    expect(isLuhnValid(siret)).toBe(true);
    expect(isValidSiret(siret)).toBe(false);
  });

  it("accepts La Poste establishments whose digit sum is a multiple of 5", () => {
    expect(isValidSiret("35600000049837")).toBe(true); // digit sum 45, not Luhn-valid
    expect(isLuhnValid("35600000049837")).toBe(false);
    expect(isValidSiret("35600000012341")).toBe(true); // digit sum 25
  });

  it("accepts La Poste's head office, which passes Luhn", () => {
    expect(isValidSiret("35600000000048")).toBe(true);
  });

  it("rejects a La Poste SIRET whose digit sum is not a multiple of 5 and that fails Luhn", () => {
    expect(isValidSiret("35600000049838")).toBe(false);
  });

  it("rejects wrong lengths, separators, letters and non-strings", () => {
    for (const value of ["", "7328293200007", "732829320000740", "732 829 320 00074", "7328293200007A"]) {
      expect(isValidSiret(value), value).toBe(false);
    }
    for (const value of [73282932000074, null, undefined]) expect(isValidSiret(value)).toBe(false);
  });
});

describe("SIRET and SIREN helpers", () => {
  it("sirenOf returns the first nine digits", () => {
    expect(sirenOf("73282932000074")).toBe("732829320");
  });

  it("makeSiren completes eight digits with their check digit", () => {
    expect(makeSiren("73282932")).toBe("732829320");
    for (const base of ["10000000", "99999999", "12345678", "30000001"])
      expect(isValidSiren(makeSiren(base))).toBe(true);
  });

  it("makeSiren keeps a valid nine-digit SIREN and refuses an invalid one", () => {
    expect(makeSiren("542051180")).toBe("542051180");
    expect(() => makeSiren("542051181")).toThrow(RangeError);
    expect(() => makeSiren("1234")).toThrow(RangeError);
  });

  it("makeSiret produces valid SIRETs for every NIC base", () => {
    for (let nic = 0; nic < 10_000; nic += 37) {
      const siret = makeSiret("73282932", String(nic).padStart(4, "0"));
      expect(isValidSiret(siret), siret).toBe(true);
      expect(sirenOf(siret)).toBe("732829320");
    }
  });

  it("makeSiret follows La Poste's digit-sum rule for its SIREN", () => {
    for (const nic of ["0001", "1234", "4983", "9999"]) {
      const siret = makeSiret(LA_POSTE_SIREN, nic);
      expect(isValidSiret(siret), siret).toBe(true);
      const sum = [...siret].reduce((total, digit) => total + Number(digit), 0);
      expect(sum % 5).toBe(0);
    }
  });

  it("makeSiret accepts a complete valid NIC and refuses an invalid one", () => {
    expect(makeSiret("732829320", "00074")).toBe("73282932000074");
    expect(() => makeSiret("732829320", "00075")).toThrow(RangeError);
    expect(() => makeSiret("732829320", "7")).toThrow(RangeError);
  });

  it("vatFromSiren computes the French intra-community VAT key", () => {
    expect(vatFromSiren("542051180")).toBe("FR59542051180");
    expect(vatFromSiren("552081317")).toBe("FR03552081317");
    expect(vatFromSiren("732829320")).toMatch(/^FR\d{2}732829320$/);
    expect(() => vatFromSiren("54205118")).toThrow(RangeError);
  });

  it("formatSiren groups the digits by three", () => {
    expect(formatSiren("732829320")).toBe("732 829 320");
  });
});
