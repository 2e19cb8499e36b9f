/**
 * The merchant lifecycle's rules (src/domain/merchants/lifecycle.ts) and the declaration schema
 * (src/schemas/merchant-declaration.ts): which status may follow which and why not, what the
 * change feed says of each change, and a declaration refused with every faulty field named.
 */
import { describe, expect, it } from "vitest";
import { checkTransition, feedChange, nextStatuses } from "../../src/domain/merchants/lifecycle.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import {
  merchantDeclarationSchema,
  merchantUpdateSchema,
  UPDATABLE_FIELDS,
} from "../../src/schemas/merchant-declaration.ts";
import { parseInput } from "../../src/schemas/parse.ts";

const ready = { identityVerified: true, descriptionReviewed: true, reason: null };

describe("status transitions", () => {
  it("lets probation end only once the identity is verified and the description reviewed", () => {
    expect(checkTransition("PROBATION", "ACTIVE", ready)).toEqual({ allowed: true });
    expect(checkTransition("PROBATION", "ACTIVE", { ...ready, identityVerified: false })).toEqual({
      allowed: false,
      reason: "PROBATION -> ACTIVE: the identity is not verified (siret_verified)",
    });
    expect(checkTransition("PROBATION", "ACTIVE", { ...ready, descriptionReviewed: false })).toEqual({
      allowed: false,
      reason: "PROBATION -> ACTIVE: the description is not reviewed (merchants review)",
    });
  });

  it("pauses and resumes an active merchant, and suspends or archives only with a reason", () => {
    expect(checkTransition("ACTIVE", "PAUSED", ready)).toEqual({ allowed: true });
    expect(checkTransition("PAUSED", "ACTIVE", ready)).toEqual({ allowed: true });
    expect(checkTransition("ACTIVE", "SUSPENDED", ready)).toEqual({
      allowed: false,
      reason: "ACTIVE -> SUSPENDED: a reason is required (--reason)",
    });
    expect(checkTransition("ACTIVE", "SUSPENDED", { ...ready, reason: "fraude signalée" })).toEqual({ allowed: true });
    expect(checkTransition("SUSPENDED", "ACTIVE", ready)).toEqual({ allowed: true });
    expect(checkTransition("PAUSED", "ARCHIVED", { ...ready, reason: "fermeture" })).toEqual({ allowed: true });
  });

  it("refuses what the table does not have, naming what is possible, and ends at ARCHIVED", () => {
    expect(checkTransition("PROBATION", "PAUSED", ready)).toEqual({
      allowed: false,
      reason: "PROBATION cannot become PAUSED; it can become ACTIVE, SUSPENDED, ARCHIVED",
    });
    expect(checkTransition("ARCHIVED", "ACTIVE", ready)).toEqual({
      allowed: false,
      reason: "ARCHIVED is final: no status follows it",
    });
    expect(checkTransition("ACTIVE", "ACTIVE", ready)).toEqual({
      allowed: false,
      reason: "the merchant is already ACTIVE",
    });
    expect(nextStatuses("ARCHIVED")).toEqual([]);
  });
});

describe("what the change feed says", () => {
  it("shows listed merchants appearing, changing and leaving, and nothing of unlisted ones", () => {
    expect(feedChange(null, "PROBATION")).toBe("created");
    expect(feedChange("PROBATION", "ACTIVE")).toBe("updated");
    expect(feedChange("ACTIVE", "PAUSED")).toBe("updated");
    expect(feedChange("PAUSED", "SUSPENDED")).toBe("withdrawn");
    expect(feedChange("ACTIVE", "ARCHIVED")).toBe("withdrawn");
    expect(feedChange("SUSPENDED", "ACTIVE")).toBe("created");
    expect(feedChange("SUSPENDED", "SUSPENDED")).toBeNull();
    expect(feedChange("SUSPENDED", "ARCHIVED")).toBeNull();
  });
});

const declaration = {
  siret: "12345678200010",
  legal_name: "SARL Boulangerie Martin",
  business_name: "Boulangerie Martin",
  naf_code: "10.71C",
  address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
  founded_on: "2015-03-02",
};

function issuesOf(schema: typeof merchantDeclarationSchema | typeof merchantUpdateSchema, input: unknown) {
  try {
    parseInput(schema, input);
  } catch (failure) {
    if (isServiceError(failure)) return failure.details.issues;
    throw failure;
  }
  throw new Error("expected VALIDATION_ERROR");
}

describe("a merchant declaration", () => {
  it("accepts the identity, address and creation date alone", () => {
    expect(parseInput(merchantDeclarationSchema, declaration).business_name).toBe("Boulangerie Martin");
  });

  it("is refused with every faulty field named", () => {
    expect(
      issuesOf(merchantDeclarationSchema, {
        ...declaration,
        siret: "12345678200011",
        naf_code: "99.99Z",
        business_name: "Boulangerie\r\nBcc: x@example.org",
        address: { ...declaration.address, postal_code: "6900" },
        phone: "06 12 34 56 78",
        hours: { lundi: "9h-18h", funday: "fermé" },
        products: [{ name: "Pain", description: "Miche", brick_type: "gift", pricing_model: "fixed" }],
        colour: "blue",
      }),
    ).toEqual([
      { path: "siret", message: "is not a valid SIRET (its check digit is wrong)" },
      { path: "business_name", message: "must be one line of text, without control characters" },
      { path: "naf_code", message: "is not a trade the registry covers (see data/naf-trades.json)" },
      { path: "address.postal_code", message: "must be a French postal code (5 digits)" },
      { path: "phone", message: "must be a French number in international form, like +33 6 12 34 56 78" },
      { path: "hours.lundi", message: 'must be "fermé" or ranges like 09:00-12:30,14:00-18:00' },
      { path: "hours", message: "days must be among lundi, mardi, mercredi, jeudi, vendredi, samedi, dimanche" },
      { path: "products.0.brick_type", message: "must be one of product, service" },
      { path: "", message: 'Unrecognized key: "colour"' },
    ]);
  });

  it("takes service zones as postal codes or commune names, not department numbers", () => {
    expect(parseInput(merchantUpdateSchema, { zones: ["69002", "Villeurbanne", "Saint-Étienne"] }).zones).toEqual([
      "69002",
      "Villeurbanne",
      "Saint-Étienne",
    ]);
    expect(issuesOf(merchantUpdateSchema, { zones: ["69", "6900", ""] })).toEqual([
      { path: "zones.0", message: "must be a French postal code (5 digits) or a commune name" },
      { path: "zones.1", message: "must be a French postal code (5 digits) or a commune name" },
      { path: "zones.2", message: "must not be empty" },
    ]);
  });

  it("updates anything but the SIRET, and at least one field", () => {
    expect(issuesOf(merchantUpdateSchema, { siret: "12345678200010" })).toEqual([
      {
        path: "",
        message: `"siret": not a field an update may change (${UPDATABLE_FIELDS.join(", ")})`,
      },
      { path: "", message: "an update must change at least one field" },
    ]);
    expect(issuesOf(merchantUpdateSchema, {})).toEqual([
      { path: "", message: "an update must change at least one field" },
    ]);
    expect(parseInput(merchantUpdateSchema, { description: "Nouveau texte." }).description).toBe("Nouveau texte.");
  });
});
