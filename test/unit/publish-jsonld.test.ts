import { describe, expect, it } from "vitest";
import { buildJsonLd, renderJsonLd } from "../../src/publish/jsonld.ts";
import { schemaOrgProblems } from "../helpers/schema-org.ts";
import { AB_ID, BASE, tourismProfile, view } from "./publish-fixtures.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions walk the JSON-LD graph.
type Json = Record<string, any>;

describe("Schema.org JSON-LD", () => {
  const doc = buildJsonLd(view()) as Json;

  it("is a LocalBusiness subtype fitting the trade, with identity and links", () => {
    expect(doc["@context"]).toBe("https://schema.org");
    expect(doc["@type"]).toBe("TravelAgency");
    expect(doc["@id"]).toBe(`${BASE}/m/${AB_ID}/#business`);
    expect(doc.name).toBe("Lac & Montagne Événements");
    expect(doc.legalName).toBe("LAC ET MONTAGNE EVENEMENTS SARL");
    expect(doc.url).toBe(`${BASE}/m/${AB_ID}/`);
    expect(doc.telephone).toBe("+33 4 50 00 00 00");
    expect(doc.vatID).toBe("FR44732829320");
    expect(doc.identifier).toContainEqual({
      "@type": "PropertyValue",
      propertyID: "SIRET",
      value: "73282932000074",
      url: "https://annuaire-entreprises.data.gouv.fr/etablissement/73282932000074",
    });
    expect(doc.address).toEqual({
      "@type": "PostalAddress",
      streetAddress: "4 quai Eustache Chappuis",
      postalCode: "74000",
      addressLocality: "Annecy",
      addressCountry: "FR",
    });
    expect(doc.geo).toEqual({ "@type": "GeoCoordinates", latitude: 45.8992, longitude: 6.1294 });
    expect(doc.description).toMatch(/séminaires/);
  });

  it("publishes a role mailbox on the merchant's own domain, never a personal address", () => {
    expect(doc.email).toBe("contact@lacmontagne.example");
    const personal = tourismProfile();
    personal.merchant.email = "camille.martin@gmail.com";
    expect((buildJsonLd(view(personal)) as Json).email).toBeUndefined();
    const named = tourismProfile();
    named.merchant.email = "camille@lacmontagne.example";
    expect((buildJsonLd(view(named)) as Json).email).toBeUndefined();
  });

  it("uses only types and properties of the schema.org vocabulary", () => {
    expect(schemaOrgProblems(doc)).toEqual([]);
    const paused = tourismProfile();
    paused.merchant.status = "PAUSED";
    expect(schemaOrgProblems(buildJsonLd(view(paused)))).toEqual([]);
  });

  it("is checked by a vocabulary check that refuses what schema.org does not define", () => {
    expect(
      schemaOrgProblems({
        "@type": "Bakery",
        offers: [],
        dateModified: "2026-01-01",
        potentialAction: [{ "@type": "QuoteAction", recipient: { "@id": "#b" } }],
        hasPart: { "@type": "NoSuchType" },
      }),
    ).toEqual([
      "$.offers: not a property of Bakery",
      "$.dateModified: not a property of Bakery",
      "$.potentialAction[0].recipient: not a property of QuoteAction",
      "$.hasPart: not a property of Bakery",
      "$.hasPart: @type NoSuchType is not a schema.org type",
    ]);
  });

  it("writes a day open around the clock as 00:00-23:59", () => {
    const always = tourismProfile();
    always.merchant.hours = { lundi: "00:00-24:00", mardi: "fermé" };
    expect((buildJsonLd(view(always)) as Json).openingHoursSpecification).toEqual([
      {
        "@type": "OpeningHoursSpecification",
        dayOfWeek: ["https://schema.org/Monday"],
        opens: "00:00",
        closes: "23:59",
      },
    ]);
  });

  it("names the business as recipient of a CommunicateAction only", () => {
    const actions = doc.potentialAction as Json[];
    expect(actions.find((action) => action["@type"] === "QuoteAction")?.recipient).toBeUndefined();
    expect(actions.find((action) => action["@type"] === "CommunicateAction")?.recipient).toEqual({
      "@id": `${BASE}/m/${AB_ID}/#business`,
    });
  });

  it("gives the price range of the known prices and the products' images", () => {
    expect(doc.priceRange).toBe("60 € – 1\u202f234,5 €");
    const pictured = tourismProfile();
    const product = pictured.products[1];
    if (product) product.imageUrl = "https://lacmontagne.example/photo.jpg";
    expect((buildJsonLd(view(pictured)) as Json).image).toEqual(["https://lacmontagne.example/photo.jpg"]);
    expect(doc.dateModified).toBeUndefined();
  });

  it("groups opening hours by range, Monday first, with schema.org day URLs", () => {
    expect(doc.openingHoursSpecification).toEqual([
      {
        "@type": "OpeningHoursSpecification",
        dayOfWeek: ["https://schema.org/Monday", "https://schema.org/Tuesday"],
        opens: "09:00",
        closes: "12:00",
      },
      {
        "@type": "OpeningHoursSpecification",
        dayOfWeek: ["https://schema.org/Monday", "https://schema.org/Tuesday"],
        opens: "14:00",
        closes: "18:00",
      },
      {
        "@type": "OpeningHoursSpecification",
        dayOfWeek: ["https://schema.org/Saturday"],
        opens: "10:00",
        closes: "12:00",
      },
    ]);
  });

  it("offers the lead endpoint as potentialAction entry points while the merchant can be contacted", () => {
    expect(Array.isArray(doc.potentialAction)).toBe(true);
    expect(doc.potentialAction.map((action: Json) => action["@type"])).toEqual(["QuoteAction", "CommunicateAction"]);
    for (const action of doc.potentialAction) {
      expect(action.target).toEqual({
        "@type": "EntryPoint",
        urlTemplate: `${BASE}/api/contact/brick`,
        httpMethod: "POST",
        contentType: "application/json",
        encodingType: "application/json",
      });
      expect(action.description).toContain(AB_ID);
    }
    const paused = tourismProfile();
    paused.merchant.status = "PAUSED";
    expect((buildJsonLd(view(paused)) as Json).potentialAction).toEqual([]);
  });

  it("lists one credential per verified, unexpired evidence signal, with its evidence page and authority", () => {
    const credentials = doc.hasCredential as Json[];
    const urls = credentials.map((credential) => credential.url);
    expect(urls).toContain(`${BASE}/api/verify/siret_verified/${AB_ID}`);
    expect(urls).toContain(`${BASE}/api/verify/territorial_address_verified/${AB_ID}`);
    // rne_verified expired on 1 May, rcp_declared is unverified, company_age_years has no evidence page.
    expect(urls).not.toContain(`${BASE}/api/verify/rne_verified/${AB_ID}`);
    expect(urls).not.toContain(`${BASE}/api/verify/rcp_declared/${AB_ID}`);
    expect(urls.some((url: string) => url.includes("company_age_years"))).toBe(false);
    const siret = credentials.find((credential) => credential.url.includes("siret_verified")) as Json;
    expect(siret["@type"]).toBe("EducationalOccupationalCredential");
    expect(siret.recognizedBy).toMatchObject({ "@type": "Organization", name: "INSEE, répertoire SIRENE" });
    expect(siret.credentialCategory).toBe("official_source_verified");
  });

  it("describes each product as an Offer with its price in the form Schema.org expects", () => {
    const [onQuote, from, hourly] = doc.makesOffer as Json[];
    expect(onQuote).toMatchObject({
      "@type": "Offer",
      itemOffered: { "@type": "Service", name: "Séminaire au bord du lac" },
    });
    expect(onQuote?.price).toBeUndefined();
    expect(from).toMatchObject({
      priceSpecification: { "@type": "PriceSpecification", minPrice: 1234.5, priceCurrency: "EUR" },
    });
    expect(hourly).toMatchObject({
      itemOffered: { "@type": "Product" },
      priceSpecification: { "@type": "UnitPriceSpecification", price: 60, priceCurrency: "EUR", unitCode: "HUR" },
    });
    const fixed = tourismProfile();
    const first = fixed.products[0];
    if (first) Object.assign(first, { priceCents: 4500, pricingModel: "fixed" });
    expect((buildJsonLd(view(fixed)) as Json).makesOffer[0]).toMatchObject({ price: "45.00", priceCurrency: "EUR" });
  });

  it("carries the rating, sameAs and the links to the other documents", () => {
    expect(doc.aggregateRating).toEqual({
      "@type": "AggregateRating",
      ratingValue: 4.6,
      reviewCount: 84,
      bestRating: 5,
      worstRating: 1,
    });
    expect(doc.sameAs).toEqual([
      "https://www.lacmontagne.example",
      "https://annuaire-entreprises.data.gouv.fr/entreprise/732829320",
    ]);
    expect(doc.subjectOf.map((item: Json) => item.url)).toEqual([
      `${BASE}/m/${AB_ID}/ai.md`,
      `${BASE}/api/registry/verify/${AB_ID}`,
    ]);
  });

  it("leaves out a generated description the merchant has not reviewed", () => {
    const unreviewed = tourismProfile();
    unreviewed.merchant.descriptionLlmUnreviewed = true;
    expect((buildJsonLd(view(unreviewed)) as Json).description).toBeUndefined();
  });

  it("is served as application/ld+json, and the same view always gives the same bytes", () => {
    const first = renderJsonLd(view());
    const second = renderJsonLd(view());
    expect(first.contentType).toBe("application/ld+json; charset=utf-8");
    expect(first.body.equals(second.body)).toBe(true);
    expect(first.hash).toBe(second.hash);
    expect(JSON.parse(first.body.toString("utf8"))).toEqual(doc);
  });
});
