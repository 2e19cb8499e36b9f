import { LEAD_REQUIRED_FIELDS, type LeadType } from "../domain/lead-contract.ts";
import type { Product } from "../domain/merchant.ts";
import { sectorOf } from "../domain/sectors.ts";
import { officialSources } from "../domain/trust/official-sources.ts";
import { JSONLD_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import { authorityOf, evidenceFacts, isBusinessEmail, officialSourceFr } from "./facts.ts";
import { openingHoursSpecification, weekHours } from "./hours.ts";
import { leadTypesFor } from "./lead-types.ts";
import type { MerchantView } from "./view.ts";

export type JsonLd = Record<string, unknown>;

/**
 * The merchant as Schema.org JSON-LD: a LocalBusiness subtype fitting the trade, with its legal
 * identifiers, address, position, hours, its offers (`makesOffer`: `offers` is not a property of
 * an Organization or a Place), price range and product images, the evidence-backed credentials,
 * the lead form as `potentialAction` (only while the merchant can be contacted) and links to its
 * other documents. Only properties of the vocabulary's types are used: test/unit/publish-jsonld
 * checks every node against schema.org (the schema-dts package's copy of it). A generated
 * description the merchant has not reviewed is left out, as in the decision card.
 */
export function buildJsonLd(view: MerchantView): JsonLd {
  const { profile, assessment, links } = view;
  const { merchant } = profile;
  const proof = profile.territorialProof;
  const state = assessment.capabilities.state;
  const id = `${links.microsite}#business`;
  const week = weekHours(merchant.hours);
  const hours = openingHoursSpecification(week);
  const sameAs = unique([...(merchant.website ? [merchant.website] : []), ...merchant.sameAs]);

  const document: JsonLd = {
    "@context": "https://schema.org",
    "@type": view.trade?.schemaOrgTypes ?? view.trade?.schemaOrgType ?? "LocalBusiness",
    "@id": id,
    name: merchant.businessName,
    legalName: merchant.legalName,
    url: links.microsite,
    identifier: identifiers(view),
    // schema.org's dissolutionDate: the day an official source records the business closed.
    ...(merchant.closure ? { dissolutionDate: merchant.closure.closedOn } : {}),
    ...(merchant.vatIntracom ? { vatID: merchant.vatIntracom } : {}),
    ...(merchant.descriptionLlmUnreviewed || !merchant.description ? {} : { description: merchant.description }),
    ...(merchant.phone ? { telephone: merchant.phone } : {}),
    ...(isBusinessEmail(merchant.email, merchant.website) && merchant.email ? { email: merchant.email } : {}),
    address: {
      "@type": "PostalAddress",
      streetAddress: merchant.street,
      postalCode: merchant.postalCode,
      addressLocality: merchant.city,
      addressCountry: "FR",
    },
    ...(proof && proof.latitude !== null && proof.longitude !== null
      ? { geo: { "@type": "GeoCoordinates", latitude: proof.latitude, longitude: proof.longitude } }
      : {}),
    ...(hours.length > 0 ? { openingHoursSpecification: hours } : {}),
    ...(merchant.zones.length > 0 ? { areaServed: [...merchant.zones] } : {}),
    ...(merchant.languages.length > 0 ? { knowsLanguage: [...merchant.languages] } : {}),
    foundingDate: merchant.foundedOn,
    ...(view.trade ? { knowsAbout: view.trade.label } : {}),
    potentialAction: state.can_contact ? potentialActions(view) : [],
    hasCredential: credentials(view),
    sameAs,
    makesOffer: profile.products.map((product) => offer(view, product)),
    ...priceRangeOf(profile.products),
    ...imagesOf(profile.products),
    ...(merchant.listingRating !== null && merchant.listingReviewCount !== null && merchant.listingReviewCount > 0
      ? {
          aggregateRating: {
            "@type": "AggregateRating",
            ratingValue: merchant.listingRating,
            reviewCount: merchant.listingReviewCount,
            bestRating: 5,
            worstRating: 1,
          },
        }
      : {}),
    additionalProperty: [
      {
        "@type": "PropertyValue",
        propertyID: "abeille:trust_score",
        name: "Score de confiance Abeille",
        value: assessment.trust.breakdown.total,
        minValue: 0,
        maxValue: 100,
        url: links.decisionCard,
      },
      {
        "@type": "PropertyValue",
        propertyID: "abeille:merchant_status",
        name: "Statut dans le registre Abeille",
        value: merchant.status,
      },
      ...sourceProperties(view),
    ],
    subjectOf: [
      {
        "@type": "DigitalDocument",
        name: "Fiche pour les modèles de langage",
        url: links.aiMd,
        encodingFormat: "text/markdown",
      },
      {
        "@type": "DigitalDocument",
        name: "Manifeste de vérification signé",
        url: links.manifest,
        encodingFormat: "application/json",
      },
    ],
    mainEntityOfPage: links.microsite,
  };
  return document;
}

export function renderJsonLd(view: MerchantView): RenderedDocument {
  return renderedDocument(jsonLdText(view), JSONLD_TYPE);
}

/** The text of renderJsonLd's document (the refresh encodes it into a buffer of its own). */
export function jsonLdText(view: MerchantView): string {
  return JSON.stringify(buildJsonLd(view));
}

function identifiers(view: MerchantView): JsonLd[] {
  const { merchant } = view.profile;
  const siretSource =
    view.profile.signals.find((signal) => signal.key === "siret_verified")?.sourceUrl ??
    `https://annuaire-entreprises.data.gouv.fr/etablissement/${merchant.siret}`;
  return [
    { "@type": "PropertyValue", propertyID: "SIRET", value: merchant.siret, url: siretSource },
    { "@type": "PropertyValue", propertyID: "SIREN", value: merchant.siret.slice(0, 9) },
    { "@type": "PropertyValue", propertyID: "NAF", value: merchant.nafCode },
    ...(merchant.nafCode2025 ? [{ "@type": "PropertyValue", propertyID: "NAF2025", value: merchant.nafCode2025 }] : []),
    { "@type": "PropertyValue", propertyID: "abeille:ab_id", value: merchant.abId },
  ];
}

/** The lead types a sector's visitors send most, as the Schema.org action that fits each. */
const ACTION_BY_LEAD_TYPE: Record<LeadType, { type: string; name: string }> = {
  contact: { type: "CommunicateAction", name: "Envoyer une demande de contact" },
  quote: { type: "QuoteAction", name: "Demander un devis" },
  estimation: { type: "QuoteAction", name: "Demander une estimation" },
  rdv: { type: "ReserveAction", name: "Demander un rendez-vous" },
};

function potentialActions(view: MerchantView): JsonLd[] {
  const { merchant } = view.profile;
  const leadTypes = leadTypesFor(merchant.sector);
  const sectorFields = (sectorOf(merchant.sector)?.leadFields ?? []).map((field) => `metadata.${field.name}`);
  return leadTypes.map((leadType) => {
    const kind = ACTION_BY_LEAD_TYPE[leadType];
    return {
      "@type": kind.type,
      name: kind.name,
      description:
        `POST a JSON body with ab_id "${merchant.abId}" and lead_type "${leadType}". ` +
        `Required: ${LEAD_REQUIRED_FIELDS.join(", ")}. Optional: contact_phone, message` +
        `${sectorFields.length > 0 ? `, ${sectorFields.join(", ")}` : ""}. Lead contract: ${view.links.decisionCard}`,
      target: {
        "@type": "EntryPoint",
        urlTemplate: view.links.lead,
        httpMethod: "POST",
        contentType: "application/json",
        encodingType: "application/json",
      },
      // Only a CommunicateAction has a recipient in the vocabulary (a QuoteAction, a ReserveAction has not).
      ...(kind.type === "CommunicateAction" ? { recipient: { "@id": `${view.links.microsite}#business` } } : {}),
    };
  });
}

/**
 * The official sources that speak for the merchant (merchant.sources): for each, when it last
 * said what the registry holds and, when it says, when its own record last changed. Schema.org has
 * no date on a PropertyValue: each date is a PropertyValue of its own, named by source.
 */
function sourceProperties(view: MerchantView): JsonLd[] {
  return officialSources(view.profile.signals).flatMap((source) => {
    const { name, changedLabel } = officialSourceFr(source);
    return [
      {
        "@type": "PropertyValue",
        propertyID: `abeille:sources.${source.source}.confirmed_at`,
        name: `${name} : confirmé le`,
        value: source.confirmed_at,
      },
      ...(source.changed_at
        ? [
            {
              "@type": "PropertyValue",
              propertyID: `abeille:sources.${source.source}.changed_at`,
              name: `${name} : ${changedLabel}`,
              value: source.changed_at,
            },
          ]
        : []),
    ];
  });
}

/** One credential per verified, unexpired evidence signal, with its evidence page. */
function credentials(view: MerchantView): JsonLd[] {
  const { baseUrl } = view.options;
  return evidenceFacts(view)
    .filter((fact) => fact.status === "verified" && fact.evidenceUrl !== null)
    .map((fact) => {
      const authority = authorityOf(fact.signal.key, baseUrl);
      return {
        "@type": "EducationalOccupationalCredential",
        "@id": fact.evidenceUrl,
        name: fact.definition.labelFr,
        credentialCategory: fact.proof,
        recognizedBy: { "@type": "Organization", name: authority.name, url: authority.url },
        url: fact.evidenceUrl,
        ...(fact.signal.verifiedAt ? { dateCreated: fact.signal.verifiedAt } : {}),
        ...(fact.signal.expiresAt ? { expires: fact.signal.expiresAt } : {}),
      };
    });
}

const UNIT_BY_MODEL: Record<string, string> = { hourly: "HUR" };

function offer(view: MerchantView, product: Product): JsonLd {
  const item: JsonLd = {
    "@type": product.brickType === "service" ? "Service" : "Product",
    name: product.name,
    description: product.description,
    ...(product.brickType === "service" ? { provider: { "@id": `${view.links.microsite}#business` } } : {}),
    ...(product.imageUrl ? { image: product.imageUrl } : {}),
  };
  const price = product.priceCents === null || product.pricingModel === "on_quote" ? null : product.priceCents / 100;
  const unit = UNIT_BY_MODEL[product.pricingModel];
  let pricing: JsonLd = {};
  if (price !== null && product.pricingModel === "from") {
    pricing = {
      priceSpecification: {
        "@type": "PriceSpecification",
        minPrice: price,
        priceCurrency: product.currency,
      },
    };
  } else if (price !== null && unit) {
    pricing = {
      priceSpecification: {
        "@type": "UnitPriceSpecification",
        price,
        priceCurrency: product.currency,
        unitCode: unit,
      },
    };
  } else if (price !== null) {
    pricing = { price: price.toFixed(2), priceCurrency: product.currency };
  }
  return {
    "@type": "Offer",
    "@id": `${view.links.microsite}#${product.slug}`,
    sku: product.brickId,
    itemOffered: item,
    ...pricing,
    url: `${view.links.microsite}#${product.slug}`,
    ...(product.tags.length > 0 ? { category: product.tags.join(", ") } : {}),
  };
}

// One formatter for every merchant: `toLocaleString` builds a new ICU formatter on each call (5 % of a refresh).
const PRICE_NUMBER = new Intl.NumberFormat("fr-FR", { maximumFractionDigits: 2 });

/** `priceRange` from the products' known prices (e.g. "12 € – 85 €"); none when no price is known. */
function priceRangeOf(products: readonly Product[]): { priceRange?: string } {
  const prices = products
    .filter((product) => product.priceCents !== null && product.pricingModel !== "on_quote")
    .map((product) => ({ cents: product.priceCents as number, currency: product.currency }));
  const first = prices[0];
  if (!first || prices.some((price) => price.currency !== first.currency)) return {};
  const cents = prices.map((price) => price.cents);
  const symbol = first.currency === "EUR" ? "€" : first.currency;
  const format = (value: number) => `${PRICE_NUMBER.format(value / 100)} ${symbol}`;
  const low = Math.min(...cents);
  const high = Math.max(...cents);
  return { priceRange: low === high ? format(low) : `${format(low)} – ${format(high)}` };
}

/** The products' images, where the merchant gave some. */
function imagesOf(products: readonly Product[]): { image?: string[] } {
  const images = unique(products.flatMap((product) => (product.imageUrl ? [product.imageUrl] : [])));
  return images.length > 0 ? { image: images } : {};
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
