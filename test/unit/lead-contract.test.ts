import { describe, expect, it } from "vitest";
import {
  buildLeadContract,
  LEAD_REQUIRED_FIELDS,
  LEAD_TYPES,
  validateSectorMetadata,
} from "../../src/domain/lead-contract.ts";
import { type SectorKey, sectors } from "../../src/domain/sectors.ts";
import { leadContractSchema } from "../../src/schemas/decision-card.ts";

const BASE = "https://abeille.example";
const AB_ID = "ab_3k9x2m7q";
const TODAY = new Date("2026-05-10T09:00:00.000Z");

describe("buildLeadContract", () => {
  it("points at POST /api/contact/brick with metadata as the sector fields path", () => {
    const contract = buildLeadContract(BASE, "tourisme", AB_ID, { today: TODAY });
    expect(contract.endpoint).toBe(`${BASE}/api/contact/brick`);
    expect(contract.method).toBe("POST");
    expect(contract.required_target_fields).toEqual(["ab_id"]);
    expect(contract.sector_fields_path).toBe("metadata");
    expect(contract.policy).toEqual({
      all_fields_optional: true,
      all_fields_optional_applies_to: "sector_fields",
      ai_neutral: true,
    });
  });

  it("marks as required exactly the base fields the endpoint enforces (contact_name, contact_email, lead_type)", () => {
    const contract = buildLeadContract(BASE, "batiment", AB_ID, { today: TODAY });
    expect(contract.base_fields.map((field) => [field.name, field.type, field.required])).toEqual([
      ["contact_name", "string", true],
      ["contact_email", "email", true],
      ["contact_phone", "tel", false],
      ["lead_type", "enum", true],
      ["message", "text", false],
    ]);
    expect(contract.base_fields.find((field) => field.name === "lead_type")?.options).toEqual([
      "estimation",
      "contact",
      "rdv",
      "quote",
    ]);
    const required = [
      ...contract.required_target_fields,
      ...contract.base_fields.filter((f) => f.required).map((f) => f.name),
    ];
    expect(required.sort()).toEqual([...LEAD_REQUIRED_FIELDS].sort());
  });

  it("gives the tourisme family exactly the spec's sector fields, all optional", () => {
    const contract = buildLeadContract(BASE, "tourisme", AB_ID, { today: TODAY });
    expect(contract.sector_fields.map(({ name, type, required }) => ({ name, type, required }))).toEqual([
      { name: "event_type", type: "enum", required: false },
      { name: "nb_participants", type: "number", required: false },
      { name: "date_souhaitee", type: "date", required: false },
      { name: "budget_range", type: "string", required: false },
      { name: "destination", type: "string", required: false },
    ]);
    expect(contract.sector_fields[0]?.options).toEqual([
      "seminaire",
      "team_building",
      "incentive",
      "sejour_groupe",
      "visite_guidee",
      "hebergement",
    ]);
    for (const field of contract.sector_fields) expect(field.label.length).toBeGreaterThan(0);
  });

  it.each(Object.keys(sectors) as SectorKey[])("example payload for %s passes validation and the schema", (sector) => {
    const contract = buildLeadContract(BASE, sector, AB_ID, { today: TODAY });
    expect(leadContractSchema.safeParse(contract).success).toBe(true);
    const payload = contract.example_payload;
    expect(payload.ab_id).toBe(AB_ID);
    expect(payload.contact_name.length).toBeGreaterThan(0);
    expect(LEAD_TYPES).toContain(payload.lead_type);
    expect(Object.keys(payload.metadata)).toEqual(sectors[sector].leadFields.map((field) => field.name));
    const result = validateSectorMetadata(sector, payload.metadata);
    expect(result).toEqual({ ok: true, value: payload.metadata });
  });

  it("dates its example in the future, on a day that moves once a year", () => {
    const contract = buildLeadContract(BASE, "tourisme", AB_ID, { today: TODAY });
    expect(contract.example_payload.metadata.date_souhaitee).toBe("2027-06-15");
    const later = buildLeadContract(BASE, "tourisme", AB_ID, { today: new Date("2026-11-30T00:00:00Z") });
    expect(later).toEqual(contract);
  });

  it("has no sector fields for an unknown sector", () => {
    const contract = buildLeadContract(BASE, "astrologie", AB_ID, { today: TODAY });
    expect(contract.sector_fields).toEqual([]);
    expect(contract.example_payload.metadata).toEqual({});
  });
});

describe("validateSectorMetadata", () => {
  it("accepts valid values and treats absent or null metadata and null members as not given", () => {
    expect(validateSectorMetadata("tourisme", undefined)).toEqual({ ok: true, value: {} });
    expect(validateSectorMetadata("tourisme", null)).toEqual({ ok: true, value: {} });
    expect(
      validateSectorMetadata("tourisme", { event_type: "seminaire", nb_participants: 30, destination: null }),
    ).toEqual({ ok: true, value: { event_type: "seminaire", nb_participants: 30 } });
  });

  it("rejects unknown keys and lists the allowed ones", () => {
    const result = validateSectorMetadata("tourisme", { event_type: "incentive", surface_m2: 80 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]?.path).toBe("metadata.surface_m2");
    expect(result.issues[0]?.message).toContain(
      "allowed fields: event_type, nb_participants, date_souhaitee, budget_range, destination",
    );
  });

  it("rejects a value outside the enum's options", () => {
    const result = validateSectorMetadata("tourisme", { event_type: "mariage" });
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          path: "metadata.event_type",
          message: "must be one of: seminaire, team_building, incentive, sejour_groupe, visite_guidee, hebergement",
        },
      ],
    });
  });

  it.each(["2026-02-30", "2026-13-01", "15/06/2026", "2026-6-15", "2026-06-15T10:00:00Z", 20260615])(
    "rejects %s as a date",
    (value) => {
      const result = validateSectorMetadata("tourisme", { date_souhaitee: value });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues[0]?.message).toBe("must be a calendar date written YYYY-MM-DD");
    },
  );

  it("accepts a leap day only in a leap year", () => {
    expect(validateSectorMetadata("tourisme", { date_souhaitee: "2028-02-29" }).ok).toBe(true);
    expect(validateSectorMetadata("tourisme", { date_souhaitee: "2027-02-29" }).ok).toBe(false);
  });

  it("rejects strings longer than the field's limit, counting characters", () => {
    expect(validateSectorMetadata("tourisme", { destination: "é".repeat(200) }).ok).toBe(true);
    const result = validateSectorMetadata("tourisme", { destination: "x".repeat(201) });
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "metadata.destination", message: "must be at most 200 characters" }],
    });
    expect(validateSectorMetadata("tourisme", { destination: 42 }).ok).toBe(false);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "25"])("rejects %s as a number", (value) => {
    const result = validateSectorMetadata("tourisme", { nb_participants: value });
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "metadata.nb_participants", message: "must be a finite number" }],
    });
  });

  it("rejects numbers above the field's max and below zero", () => {
    expect(validateSectorMetadata("tourisme", { nb_participants: 10000 }).ok).toBe(true);
    expect(validateSectorMetadata("tourisme", { nb_participants: 10001 })).toEqual({
      ok: false,
      issues: [{ path: "metadata.nb_participants", message: "must be at most 10000" }],
    });
    expect(validateSectorMetadata("tourisme", { nb_participants: -1 }).ok).toBe(false);
  });

  it("checks booleans", () => {
    expect(validateSectorMetadata("beaute", { premiere_visite: false }).ok).toBe(true);
    expect(validateSectorMetadata("beaute", { premiere_visite: "oui" })).toEqual({
      ok: false,
      issues: [{ path: "metadata.premiere_visite", message: "must be true or false" }],
    });
  });

  it("rejects metadata that is not an object", () => {
    for (const value of [[], "seminaire", 3]) {
      expect(validateSectorMetadata("tourisme", value)).toEqual({
        ok: false,
        issues: [{ path: "metadata", message: "must be an object" }],
      });
    }
  });

  it("reports every problem at once", () => {
    const result = validateSectorMetadata("tourisme", { event_type: "x", nb_participants: "10", foo: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues.map((issue) => issue.path)).toEqual([
        "metadata.event_type",
        "metadata.nb_participants",
        "metadata.foo",
      ]);
  });

  it("allows no key for an unknown sector", () => {
    expect(validateSectorMetadata("astrologie", {})).toEqual({ ok: true, value: {} });
    const result = validateSectorMetadata("astrologie", { anything: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.message).toContain("allowed fields: none");
  });
});
