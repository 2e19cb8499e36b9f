import { randomBytes, randomUUID } from "node:crypto";
import { validationError } from "../../errors/service-error.ts";
import type { MerchantDeclaration, MerchantUpdate, ProductDeclaration } from "../../schemas/merchant-declaration.ts";
import { slugify } from "../format.ts";
import type { Merchant, Product, TerritorialProof } from "../merchant.ts";
import { nomenclatureOf } from "../naf.ts";
import { tradeOf } from "../sectors.ts";
import type { CommuneLookup, MerchantRegistryView } from "./merchant-registry.ts";

/**
 * Turning a validated declaration into the stored shapes: one place for the defaults a
 * declaration leaves out, the sector a NAF code means, the territorial proof an address gives
 * and the products' stable ids.
 */

/** How sure a position taken from the commune's centroid is (a geocoded address scores 0.8 and more). */
export const COMMUNE_CENTROID_SCORE = 0.3;
/** The geocoding score from which a house-number match verifies an address (the BAN's "sure" match). */
export const ADDRESS_VERIFIED_MIN_SCORE = 0.7;
const AB_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** The sector of a merchant's activity codes (its trade: NAF 2025 first, src/domain/sectors.ts tradeOf). */
export function sectorOfNaf(codes: { nafCode: string; nafCode2025: string | null }): string {
  const trade = tradeOf(codes);
  if (!trade) throw validationError([{ path: "naf_code", message: "is not a trade the registry covers" }]);
  return trade.sector;
}

/** A declared NAF code (of either nomenclature) as the merchant's two codes: a NAF 2025 one is both. */
function declaredCodes(nafCode: string): { nafCode: string; nafCode2025: string | null } {
  return { nafCode, nafCode2025: nomenclatureOf(nafCode) === "2025" ? nafCode : null };
}

export function newAbId(registry: MerchantRegistryView, randomId?: () => string): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const candidate = randomId?.() ?? `ab_${randomAbIdChars(8)}`;
    if (registry.isFree(candidate)) return candidate;
  }
  throw new Error("no free ab_id after 20 draws");
}

/** Random bytes drawn a few kilobytes at a time (a national import draws millions of ids: a call each was 1.5 % of it). */
let pool = randomBytes(0);
let pooled = 0;
/** Bytes from 252 up are drawn again: 252 is 7 x 36, so each of the alphabet's characters stays equally likely. */
const UNBIASED_BELOW = 252;

function randomAbIdChars(count: number): string {
  let chars = "";
  while (chars.length < count) {
    if (pooled === pool.length) {
      pool = randomBytes(4096);
      pooled = 0;
    }
    const byte = pool[pooled++] as number;
    if (byte < UNBIASED_BELOW) chars += AB_ID_ALPHABET[byte % AB_ID_ALPHABET.length];
  }
  return chars;
}

/**
 * New ab_ids for one transaction that creates many merchants (a national import's: hundreds each):
 * drawn at random like any ab_id, except that the first three of their eight characters are one
 * random draw for the whole transaction (46,656 such prefixes, 60 million ids under each). The
 * ids of a transaction then sit side by side in every index keyed by ab_id (the merchant's, its
 * place's, signals', audit log's, change feed's, touches', digests'), and the transaction writes a
 * few pages of each where ids spread over the whole range wrote one page per merchant per index:
 * most of a new merchant's cost once the registry holds millions (docs/performance.md).
 */
export function abIdsOfOneBatch(): () => string {
  const prefix = randomAbIdChars(3);
  // Five random characters under one prefix: two draws of a 2,000-merchant transaction meet about
  // once in thirty transactions. The registry would refuse the second (newAbId asks isFree), but a
  // draw that cannot repeat costs one set of a transaction's size and no query.
  const drawn = new Set<string>();
  return () => {
    for (;;) {
      const id = `ab_${prefix}${randomAbIdChars(5)}`;
      if (!drawn.has(id)) {
        drawn.add(id);
        return id;
      }
    }
  };
}

/** The position of a declared address: its commune's centroid, marked as such, never "verified" (none when the reference has none). */
export function territorialProofOf(
  communes: CommuneLookup,
  address: { postal_code: string; city: string },
): TerritorialProof {
  const commune = communes.find(address.postal_code, address.city);
  if (!commune) {
    throw validationError([
      {
        path: "address.city",
        message: `is not a commune with postal code ${address.postal_code} in the reference data (data/communes.json)`,
      },
    ]);
  }
  return {
    latitude: commune.lat,
    longitude: commune.lng,
    inseeCode: commune.insee,
    postalCode: address.postal_code,
    cityNormalized: commune.name,
    // A commune the reference does not place gives no position: none is made up.
    geocodingSource: commune.lat === null ? null : "commune_centroid",
    geocodingScore: commune.lat === null ? null : COMMUNE_CENTROID_SCORE,
    verified: false,
    verifiedAt: null,
    population: commune.population,
    departmentCode: commune.department,
    regionCode: commune.region,
    epciCode: commune.epci,
  };
}

/**
 * The product list after a declaration: a product keeps its ids when its slug (given, or made
 * from its name) is already the merchant's, so leads naming a brick keep naming the same one.
 */
export function productsOf(
  abId: string,
  declared: readonly ProductDeclaration[],
  existing: readonly Product[],
  nowIso: string,
  newId: () => string = randomUUID,
): Product[] {
  const bySlug = new Map(existing.map((product) => [product.slug, product]));
  return declared.map((product, position) => {
    const slug = product.slug ?? slugify(product.name);
    const kept = bySlug.get(slug);
    return {
      productId: kept?.productId ?? newId(),
      brickId: kept?.brickId ?? newId(),
      abId,
      slug,
      brickType: product.brick_type,
      name: product.name,
      description: product.description,
      priceCents: product.price_cents ?? null,
      currency: "EUR",
      pricingModel: product.pricing_model,
      inventoryStatus: product.inventory_status ?? (product.brick_type === "product" ? "in_stock" : "made_to_order"),
      imageUrl: product.image_url ?? null,
      externalUrl: product.external_url ?? null,
      tags: product.tags ?? [],
      isLocked: kept?.isLocked ?? false,
      position,
      updatedAt: nowIso,
    };
  });
}

/** What a new merchant's record must be given; the rest starts at the defaults below. */
export type NewMerchantFacts = Pick<
  Merchant,
  "abId" | "siret" | "legalName" | "businessName" | "nafCode" | "street" | "postalCode" | "city" | "foundedOn"
> &
  Partial<Merchant>;

/** A new merchant: in probation, in its sector, contact details and offer as given (none by default). */
export function newMerchant(facts: NewMerchantFacts, nowIso: string): Merchant {
  return {
    slug: slugify(`${facts.businessName} ${facts.city}`),
    sector: sectorOfNaf({ nafCode: facts.nafCode, nafCode2025: facts.nafCode2025 ?? null }),
    status: "PROBATION",
    nafCode2025: null,
    rcs: null,
    vatIntracom: null,
    phone: null,
    email: null,
    website: null,
    description: null,
    descriptionLlmUnreviewed: false,
    brandVoice: null,
    brandUpdatedAt: null,
    hours: null,
    hoursExceptions: [],
    timezone: "Europe/Paris",
    zones: [facts.postalCode],
    areasDeclaredAt: null,
    deliveryEnabled: false,
    deliveryRadiusKm: null,
    languages: ["fr"],
    domainAgeYears: null,
    listingRating: null,
    listingReviewCount: null,
    listingPhotosCount: 0,
    terrainPhotos: [],
    sameAs: [],
    paymentSetup: false,
    closure: null,
    createdAt: nowIso,
    updatedAt: nowIso,
    ...facts,
  };
}

/** A new merchant from its declaration: in probation, its description waiting for a review. */
export function merchantOf(abId: string, declaration: MerchantDeclaration, nowIso: string): Merchant {
  const description = declaration.description ?? null;
  return newMerchant(
    {
      abId,
      siret: declaration.siret,
      legalName: declaration.legal_name,
      businessName: declaration.business_name,
      ...declaredCodes(declaration.naf_code),
      street: declaration.address.street,
      postalCode: declaration.address.postal_code,
      city: declaration.address.city,
      foundedOn: declaration.founded_on,
      phone: declaration.phone ?? null,
      email: declaration.email ?? null,
      website: declaration.website ?? null,
      description,
      descriptionLlmUnreviewed: description !== null,
      hours: declaration.hours ?? null,
      hoursExceptions: declaration.hours_exceptions ?? [],
      zones: declaration.zones ?? [declaration.address.postal_code],
      areasDeclaredAt: declaration.zones ? nowIso : null,
      deliveryEnabled: declaration.delivery?.enabled ?? false,
      deliveryRadiusKm: declaration.delivery?.radius_km ?? null,
      languages: declaration.languages ?? ["fr"],
      rcs: declaration.rcs ?? null,
      vatIntracom: declaration.vat_number ?? null,
      brandVoice: declaration.brand_voice ?? null,
      brandUpdatedAt: declaration.brand_voice ? nowIso : null,
    },
    nowIso,
  );
}

/**
 * Collects the columns a change sets: `set` keeps a value only when it differs from the stored
 * one, so writing what is already there changes nothing. `next` holds what differs.
 */
export function differingFields(merchant: Merchant): {
  next: Partial<Merchant>;
  set: <Key extends keyof Merchant>(key: Key, value: Merchant[Key]) => void;
} {
  const next: Partial<Merchant> = {};
  return {
    next,
    set(key, value) {
      if (JSON.stringify(merchant[key]) !== JSON.stringify(value)) next[key] = value;
    },
  };
}

/** The merchant's columns an update sets (only those that differ from what is stored). */
export function changedFields(merchant: Merchant, update: MerchantUpdate, nowIso: string): Partial<Merchant> {
  const { next, set } = differingFields(merchant);
  if (update.legal_name !== undefined) set("legalName", update.legal_name);
  if (update.business_name !== undefined) set("businessName", update.business_name);
  if (update.naf_code !== undefined) {
    const codes = declaredCodes(update.naf_code);
    set("nafCode", codes.nafCode);
    set("nafCode2025", codes.nafCode2025);
    set("sector", sectorOfNaf(codes));
  }
  if (update.address !== undefined) {
    set("street", update.address.street);
    set("postalCode", update.address.postal_code);
    set("city", update.address.city);
  }
  if (update.rcs !== undefined) set("rcs", update.rcs);
  if (update.vat_number !== undefined) set("vatIntracom", update.vat_number);
  if (update.email !== undefined) set("email", update.email);
  if (update.phone !== undefined) set("phone", update.phone);
  if (update.website !== undefined) set("website", update.website);
  if (update.description !== undefined) {
    set("description", update.description);
    // A new text waits for a person's review again; removing it leaves nothing to review.
    if ("description" in next) set("descriptionLlmUnreviewed", update.description !== null);
  }
  if (update.hours !== undefined) set("hours", update.hours);
  if (update.hours_exceptions !== undefined) set("hoursExceptions", update.hours_exceptions);
  if (update.zones !== undefined) {
    set("zones", update.zones);
    if ("zones" in next) set("areasDeclaredAt", nowIso);
  }
  if (update.languages !== undefined) set("languages", update.languages);
  if (update.delivery !== undefined) {
    set("deliveryEnabled", update.delivery.enabled);
    set("deliveryRadiusKm", update.delivery.radius_km ?? null);
  }
  if (update.founded_on !== undefined) set("foundedOn", update.founded_on);
  if (update.brand_voice !== undefined) {
    set("brandVoice", update.brand_voice);
    if ("brandVoice" in next) set("brandUpdatedAt", update.brand_voice ? nowIso : null);
  }
  return next;
}

/** Before and after of each changed field, for the audit log. */
export function diffOf<Value extends object>(
  before: Value,
  after: Partial<Value>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, value] of Object.entries(after)) {
    changes[key] = { from: (before as Record<string, unknown>)[key] ?? null, to: value };
  }
  return changes;
}
