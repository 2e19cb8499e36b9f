/**
 * The listing forms of the merchant space (src/publish/pro/listing-form.ts): HTML form fields read
 * as the declaration, prices typed in euros, product rows kept, removed and added, and the
 * declaration's refusals said in French beside the form field they concern.
 */
import { describe, expect, it } from "vitest";
import type { Product } from "../../src/domain/merchant.ts";
import {
  brandVoiceFromForm,
  centsOf,
  contactFromForm,
  fieldErrorsOf,
  hoursFromForm,
  productsFromForm,
} from "../../src/publish/pro/listing-form.ts";
import { merchantUpdateSchema } from "../../src/schemas/merchant-declaration.ts";

const stored: Product = {
  productId: "p1",
  brickId: "b1",
  abId: "ab_12345678",
  slug: "baguette",
  brickType: "product",
  name: "Baguette",
  description: "Tradition.",
  priceCents: 120,
  currency: "EUR",
  pricingModel: "fixed",
  inventoryStatus: "in_stock",
  imageUrl: "https://photos.example/baguette.jpg",
  externalUrl: null,
  tags: ["pain"],
  isLocked: false,
  position: 0,
  updatedAt: "2026-11-01T00:00:00.000Z",
};

describe("reading the forms", () => {
  it("reads prices in euros, with a comma or a point, and refuses what is not one", () => {
    expect([centsOf("12"), centsOf("12,5"), centsOf("1 250,00 €"), centsOf(""), centsOf("douze")]).toEqual([
      1200,
      1250,
      125000,
      null,
      undefined,
    ]);
  });

  it("keeps a stored product's other fields, drops a removed one and adds a new row, skipping the empty one", () => {
    const reading = productsFromForm(
      {
        "products.0.slug": "baguette",
        "products.0.name": "Baguette tradition",
        "products.0.description": "Au levain.",
        "products.0.brick_type": "product",
        "products.0.pricing_model": "fixed",
        "products.0.price": "1,30",
        "products.1.slug": "",
        "products.1.name": "Gâteau sur commande",
        "products.1.description": "Pour 8 personnes.",
        "products.1.brick_type": "service",
        "products.1.pricing_model": "on_quote",
        "products.1.price": "",
        "products.2.slug": "",
        "products.2.name": "",
        "products.2.description": "",
        "products.2.price": "",
      },
      [stored],
    );
    expect(reading).toEqual({
      ok: true,
      rows: [0, 1],
      input: {
        products: [
          {
            slug: "baguette",
            name: "Baguette tradition",
            description: "Au levain.",
            brick_type: "product",
            pricing_model: "fixed",
            price_cents: 130,
            inventory_status: "in_stock",
            tags: ["pain"],
            image_url: "https://photos.example/baguette.jpg",
            external_url: null,
          },
          {
            name: "Gâteau sur commande",
            description: "Pour 8 personnes.",
            brick_type: "service",
            pricing_model: "on_quote",
            price_cents: null,
          },
        ],
      },
    });
    expect(
      productsFromForm({ "products.0.slug": "baguette", "products.0.remove": "1", "products.0.name": "Baguette" }, [
        stored,
      ]),
    ).toEqual({ ok: true, rows: [], input: { products: [] } });
    expect(productsFromForm({ "products.3.name": "Tarte", "products.3.price": "trois euros" }, [])).toEqual({
      ok: false,
      issues: [{ path: "products.3.price", message: "must be a price in euros" }],
    });
  });

  it("reads hours per day, lists one per line, and the brand voice with its approval", () => {
    expect(hoursFromForm({ "hours.lundi": " 09:00-12:30, 14:00-18:00 ", "hours.dimanche": "Fermé" })).toEqual({
      ok: true,
      input: { hours: { lundi: "09:00-12:30,14:00-18:00", dimanche: "fermé" } },
    });
    expect(hoursFromForm({ "hours.lundi": "" })).toEqual({ ok: true, input: { hours: null } });
    expect(
      contactFromForm({
        phone: "",
        website: "https://boulangerie.fr",
        languages: "fr, EN",
        zones: "69002\n\nVilleurbanne\n",
      }),
    ).toEqual({
      ok: true,
      input: {
        phone: null,
        website: "https://boulangerie.fr",
        description: null,
        zones: ["69002", "Villeurbanne"],
        languages: ["fr", "en"],
      },
    });
    expect(
      brandVoiceFromForm(
        {
          "brand_voice.tone": "Chaleureux",
          "brand_voice.do": "Parler du levain\nTutoyer",
          "brand_voice.is_published": "1",
        },
        null,
      ),
    ).toEqual({
      ok: true,
      input: {
        brand_voice: {
          tone: "Chaleureux",
          values: [],
          do: ["Parler du levain", "Tutoyer"],
          dont: [],
          consumer_surface: "ai_digest",
          is_published: true,
        },
      },
    });
  });
});

describe("the refusals, in French beside their field", () => {
  it("names the form field of each of the declaration's refusals", () => {
    const parsed = merchantUpdateSchema.safeParse({
      phone: "0478000000",
      website: "boulangerie",
      hours: { lundi: "9h-18h" },
      zones: ["69002", "75"],
      products: [{ name: "", description: "x", brick_type: "product", pricing_model: "fixed", price_cents: -1 }],
    });
    if (parsed.success) throw new Error("expected a refusal");
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    expect(fieldErrorsOf(issues, [4])).toEqual({
      phone: "Saisissez un numéro au format international, par exemple +33 6 12 34 56 78.",
      website: "Saisissez l'adresse complète du site, commençant par https://.",
      "hours.lundi": "Écrivez « fermé » ou des plages horaires comme 09:00-12:30,14:00-18:00.",
      zones: "Indiquez un code postal (5 chiffres) ou le nom d'une commune par ligne.",
      "products.4.name": "Ce champ est obligatoire.",
      "products.4.price": "Cette valeur n'est pas acceptée.",
    });
    expect(
      fieldErrorsOf([
        { path: "legal_name", message: "is proven by official sources (SIRENE, RNE) and is not changed" },
        { path: "products.0.price", message: "must be a price in euros" },
      ]),
    ).toEqual({
      legal_name: "Cette information vient des registres officiels (SIRENE) : elle ne se modifie pas ici.",
      "products.0.price": "Saisissez un prix en euros, par exemple 12,50.",
    });
  });
});
