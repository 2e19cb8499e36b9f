import { describe, expect, it } from "vitest";
import { buildLeadContract, validateSectorMetadata } from "../../src/domain/lead-contract.ts";
import { resolveBrick } from "../../src/domain/leads/resolve-brick.ts";
import type { Product } from "../../src/domain/merchant.ts";
import { sectors } from "../../src/domain/sectors.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { LEAD_REQUEST_FIELDS, leadRequestSchema, parseStrictRequest } from "../../src/schemas/leads.ts";

const issuesOf = (input: unknown) => {
  try {
    parseStrictRequest(leadRequestSchema, input, LEAD_REQUEST_FIELDS);
    return [];
  } catch (failure) {
    if (!isServiceError(failure)) throw failure;
    return failure.details.issues ?? [];
  }
};

describe("the lead request schema", () => {
  it("accepts the decision card's example_payload of every sector as it stands", () => {
    for (const key of Object.keys(sectors)) {
      const contract = buildLeadContract("http://abeille.test", key, "ab_12345678");
      const parsed = leadRequestSchema.safeParse(contract.example_payload);
      expect(parsed.success, `${key}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(validateSectorMetadata(key, contract.example_payload.metadata).ok).toBe(true);
    }
  });

  it("trims names and emails, treats null optional fields as absent", () => {
    const parsed = leadRequestSchema.parse({
      ab_id: "ab_12345678",
      contact_name: "  Camille  ",
      contact_email: " camille@example.fr ",
      lead_type: "rdv",
      message: null,
      intent_data: { urgency: null, budget_range: "1 000 €" },
    });
    expect(parsed.contact_name).toBe("Camille");
    expect(parsed.contact_email).toBe("camille@example.fr");
    expect(parsed.message).toBeUndefined();
    expect(parsed.intent_data).toEqual({ budget_range: "1 000 €" });
  });

  it("counts characters, not UTF-16 units, against the limits", () => {
    const emoji = "🐝".repeat(100);
    expect(
      issuesOf({ ab_id: "ab_12345678", contact_name: emoji, contact_email: "a@b.fr", lead_type: "quote" }),
    ).toEqual([]);
  });

  it("names each unknown field with the allowed ones, at the top level and in intent_data", () => {
    const issues = issuesOf({
      ab_id: "ab_12345678",
      contact_name: "A",
      contact_email: "a@b.fr",
      lead_type: "quote",
      telephone: "x",
      intent_data: { mood: "x" },
    });
    expect(issues).toContainEqual({ path: "telephone", message: expect.stringMatching(/allowed fields: ab_id/) });
    expect(issues).toContainEqual({
      path: "intent_data.mood",
      message: expect.stringMatching(/allowed fields: urgency/),
    });
  });

  it("says 'is required' for each missing required field", () => {
    const issues = issuesOf({});
    for (const field of ["ab_id", "contact_name", "contact_email", "lead_type"]) {
      expect(issues.find((issue) => issue.path === field)?.message).toMatch(/required/);
    }
    expect(issuesOf([])).toEqual([{ path: "", message: "the body must be a JSON object" }]);
  });
});

describe("brick resolution", () => {
  const product = {
    productId: "11111111-1111-4111-8111-111111111111",
    brickId: "22222222-2222-4222-8222-222222222222",
    slug: "seminaire-sur-mesure",
  } as Product;

  it("accepts the brick id, the product id and brk_<ab_id>_<slug>", () => {
    for (const id of [product.brickId, product.productId, "brk_ab_12345678_seminaire-sur-mesure"]) {
      expect(resolveBrick([product], "ab_12345678", id)).toEqual({ ok: true, product });
    }
  });

  it("refuses another merchant's example id, an unknown slug or uuid, and other shapes", () => {
    for (const id of [
      "brk_ab_87654321_seminaire-sur-mesure",
      "brk_ab_12345678_autre",
      "33333333-3333-4333-8333-333333333333",
      "seminaire",
    ]) {
      expect(resolveBrick([product], "ab_12345678", id).ok).toBe(false);
    }
  });
});
