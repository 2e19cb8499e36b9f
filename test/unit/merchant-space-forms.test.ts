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
  exceptionLine,
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
      input: { hours: { lundi: "09:00-12:30,14:00-18:00", dimanche: "fermé" }, hours_exceptions: [] },
      rows: [],
    });
    expect(hoursFromForm({ "hours.lundi": "" })).toEqual({
      ok: true,
      input: { hours: null, hours_exceptions: [] },
      rows: [],
    });
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

describe("the dated exceptions, one per line", () => {
  it("reads a date or two, the hours and a note, and keeps each one's line", () => {
    expect(
      hoursFromForm({
        "hours.mardi": "07:00-19:30",
        hours_exceptions:
          "24/12/2026 : 07:00 - 12:00 (veille de Noël)\r\n\n03/08/2026 au 23/08/2026 : Fermé (congés d'été)\ndu 2026-05-01 au 2026-05-02: ferme",
      }),
    ).toEqual({
      ok: true,
      input: {
        hours: { mardi: "07:00-19:30" },
        hours_exceptions: [
          { from: "2026-12-24", hours: "07:00-12:00", note: "veille de Noël" },
          { from: "2026-08-03", to: "2026-08-23", hours: "fermé", note: "congés d'été" },
          { from: "2026-05-01", to: "2026-05-02", hours: "fermé" },
        ],
      },
      rows: [1, 3, 4],
    });
    expect(exceptionLine({ from: "2026-08-03", to: "2026-08-23", hours: "fermé", note: "congés d'été" })).toBe(
      "03/08/2026 au 23/08/2026 : fermé (congés d'été)",
    );
    expect(exceptionLine({ from: "2026-12-24", to: "2026-12-24", hours: "07:00-12:00", note: null })).toBe(
      "24/12/2026 : 07:00-12:00",
    );
  });

  it("refuses a line it cannot read, naming it, in French", () => {
    const reading = hoursFromForm({ hours_exceptions: "24/12/2026 : 09:00-12:00\nNoël fermé" });
    expect(reading).toEqual({
      ok: false,
      issues: [
        {
          path: "hours_exceptions",
          message: 'line 2 must read like "24/12/2026 : 09:00-12:00" or "03/08/2026 au 23/08/2026 : fermé (congés)"',
        },
      ],
    });
    if (reading.ok) throw new Error("expected a refusal");
    expect(fieldErrorsOf(reading.issues)).toEqual({
      hours_exceptions:
        "Ligne 2 : écrivez une date, « : » puis les horaires, par exemple « 24/12/2026 : 09:00-12:00 » ou « 03/08/2026 au 23/08/2026 : fermé (congés) ».",
    });
  });

  it("says the schema's refusals of an exception in French, on its line", () => {
    const reading = hoursFromForm({
      hours_exceptions: [
        "31/02/2026 : fermé",
        "10/08/2026 au 01/08/2026 : fermé",
        "",
        "01/07/2026 au 30/10/2026 : fermé",
        "24/12/2026 : 9h-12h",
        "20/12/2026 au 26/12/2026 : fermé",
      ].join("\n"),
    });
    if (!reading.ok) throw new Error("expected a reading");
    const parsed = merchantUpdateSchema.safeParse(reading.input);
    if (parsed.success) throw new Error("expected a refusal");
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    expect(issues.map((issue) => issue.path)).toEqual([
      "hours_exceptions.0.from",
      "hours_exceptions.1.to",
      "hours_exceptions.2.to",
      "hours_exceptions.3.hours",
      "hours_exceptions.1.from",
      "hours_exceptions.3.from",
    ]);
    expect(fieldErrorsOf(issues, reading.rows)).toEqual({
      hours_exceptions: "Ligne 1 : Écrivez la date comme 24/12/2026.",
    });
    expect(issues.map((issue) => fieldErrorsOf([issue], reading.rows).hours_exceptions)).toEqual([
      "Ligne 1 : Écrivez la date comme 24/12/2026.",
      "Ligne 2 : La date de fin est avant la date de début.",
      "Ligne 4 : Une exception dure au plus 92 jours : découpez-la en plusieurs lignes.",
      "Ligne 5 : Écrivez « fermé » ou des plages horaires comme 09:00-12:30,14:00-18:00.",
      // 10 August falls in the closure of line 4; 24 December in that of line 6.
      "Ligne 2 : Ces dates chevauchent une autre exception : une date n'a qu'un horaire.",
      "Ligne 5 : Ces dates chevauchent une autre exception : une date n'a qu'un horaire.",
    ]);
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
