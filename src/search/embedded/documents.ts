import { scheduleOf } from "../../domain/availability/opening.ts";
import type { HoursException } from "../../domain/merchant.ts";
import { nafLabel } from "../../domain/naf.ts";
import { sectorOf, tradeOf } from "../../domain/sectors.ts";
import { computeTrust, type ScorableSignal } from "../../domain/trust/compute-trust.ts";
import type { SignalValue } from "../../domain/trust/signal-catalog.ts";
import { indexTerms, normalizeForIndex, normalizeTag } from "../normalize.ts";
import { openingTokens, storedSchedule } from "../opening-filter.ts";
import { tradeVocabularyText } from "../vocabulary.ts";
import { nafToken, pointCells, tagToken } from "./filter-tokens.ts";

/*
 * Turns store rows into the documents the embedded index holds. Pure: the index reads the rows
 * (see index.ts) and writes the documents.
 */

/**
 * Statuses that are listed in search. ARCHIVED merchants are gone from the registry. SUSPENDED
 * ones are under investigation: the registry does not vouch for them right now, so search does
 * not send agents their way (resolve still answers them, with a `_state` that says so). PAUSED
 * and PROBATION merchants are listed: their `_state` tells agents they cannot be contacted yet.
 */
// The lifecycle's one list of listed statuses.
export { LISTED_STATUSES } from "../../domain/merchants/lifecycle.ts";

export interface MerchantRow {
  ab_id: string;
  siret: string;
  business_name: string;
  legal_name: string;
  naf_code: string;
  naf_code_2025: string | null;
  sector: string;
  status: string;
  postal_code: string;
  city: string;
  description: string | null;
  /** The official closure as stored (JSON text), null while in business: a closed merchant is never a hit. */
  closure: string | null;
  /** The usual week and the dated exceptions as stored (JSON text), null when none. */
  hours: string | null;
  hours_exceptions: string | null;
  latitude: number | null;
  longitude: number | null;
  proof_postal_code: string | null;
  city_normalized: string | null;
  department_code: string | null;
}

export interface ProductRow {
  ab_id: string;
  product_id: string;
  name: string;
  description: string;
  tags: string;
  position: number;
}

export interface SignalRow {
  ab_id: string;
  key: string;
  status: string;
  value: string | null;
  expires_at: string | null;
}

export interface MerchantDocument {
  abId: string;
  siret: string;
  nafCode: string;
  nafCode2025: string | null;
  sector: string;
  departmentCode: string | null;
  /** Canonical product tags (normalizeTag), for exact filtering. */
  tags: string[];
  status: string;
  trust: number;
  lat: number | null;
  lng: number | null;
  name: string;
  trade: string;
  products: string;
  tagsText: string;
  place: string;
  about: string;
  /** Tag, NAF, grid-cell and opening tokens (filter-tokens.ts, opening-filter.ts). */
  filters: string;
  /** The opening schedule as the index keeps it (opening-filter.ts storedSchedule), null when unknown. */
  schedule: string | null;
  /** The opening tokens (opening-filter.ts openingTokens), also in `filters`. */
  openingTokens: string[];
  /** The products with their words, for what a search reports about a hit (product-match.ts). */
  catalogue: PreparedProduct[];
}

/**
 * A product with its text already normalised, prepared once per product: what product matching
 * reads, each field's words joined by single spaces (matched without a split: ranking.ts hasWord).
 */
export interface PreparedProduct {
  productId: string;
  position: number;
  canonicalTags: ReadonlySet<string>;
  name: string;
  tags: string;
  description: string;
}

export function prepareProduct(product: ProductRow): PreparedProduct {
  const rawTags = parseTags(product.tags);
  return {
    productId: product.product_id,
    position: product.position,
    canonicalTags: new Set(rawTags.map(normalizeTag)),
    name: indexTerms(product.name).join(" "),
    tags: rawTags.flatMap((tag) => indexTerms(tag)).join(" "),
    description: indexTerms(product.description).join(" "),
  };
}

const tradeTexts = new Map<string, string>();

/**
 * The labels of the merchant's NAF codes, its trade's label, sector label and keywords, and the
 * names searchers give the trade (data/naf-trades.json), normalised (cached per pair of codes).
 */
export function tradeText(nafCode: string, nafCode2025: string | null): string {
  const key = `${nafCode}|${nafCode2025 ?? ""}`;
  const cached = tradeTexts.get(key);
  if (cached !== undefined) return cached;
  const trade = tradeOf({ nafCode, nafCode2025 });
  const parts = [nafLabel(nafCode) ?? ""];
  if (nafCode2025 !== null && nafCode2025 !== nafCode) parts.push(nafLabel(nafCode2025) ?? "");
  if (trade) parts.push(trade.label, sectorOf(trade.sector)?.label ?? "", ...trade.keywords);
  const text = [normalizeForIndex(parts.join(" ")), trade ? tradeVocabularyText(trade.key) : ""].join(" ").trim();
  tradeTexts.set(key, text);
  return text;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseSignalValue(text: string | null): SignalValue {
  const value = parseJson(text);
  return typeof value === "number" || typeof value === "string" || typeof value === "boolean" ? value : null;
}

export function parseTags(text: string): string[] {
  const value = parseJson(text);
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === "string") : [];
}

export function trustOf(signals: readonly SignalRow[], sector: string, now: Date): number {
  const scorable: ScorableSignal[] = signals.map((signal) => ({
    key: signal.key,
    status: signal.status,
    value: parseSignalValue(signal.value),
    expiresAt: signal.expires_at,
  }));
  return computeTrust(scorable, sector, now).breakdown.total;
}

function uniqueTerms(parts: readonly (string | null)[]): string {
  return [...new Set(parts.flatMap((part) => indexTerms(part)))].join(" ");
}

/** The document's `name`: the business name, and the legal name when it differs, normalised. */
export function indexedName(merchant: MerchantRow): string {
  const names =
    merchant.legal_name === merchant.business_name
      ? merchant.business_name
      : `${merchant.business_name} ${merchant.legal_name}`;
  return normalizeForIndex(names);
}

/** The document's `place`: town, postcodes and department, each term once. */
export function indexedPlace(merchant: MerchantRow): string {
  return uniqueTerms([
    merchant.city,
    merchant.postal_code,
    merchant.city_normalized,
    merchant.proof_postal_code,
    merchant.department_code,
  ]);
}

export function buildMerchantDocument(
  merchant: MerchantRow,
  products: readonly ProductRow[],
  trust: number,
): MerchantDocument {
  const productText: string[] = [];
  const tagText: string[] = [];
  const tags = new Set<string>();
  const catalogue = products.map(prepareProduct);
  for (const [position, product] of products.entries()) {
    const prepared = catalogue[position];
    // normalizeForIndex is indexTerms joined by spaces: the prepared words, normalised once.
    if (prepared) productText.push(prepared.name, prepared.description);
    for (const tag of parseTags(product.tags)) {
      const canonical = normalizeTag(tag);
      if (canonical.length === 0) continue;
      tags.add(canonical);
      tagText.push(normalizeForIndex(tag));
    }
  }
  const hours = parseJson(merchant.hours);
  const exceptions = parseJson(merchant.hours_exceptions);
  const schedule = scheduleOf({
    hours:
      typeof hours === "object" && hours !== null && !Array.isArray(hours) ? (hours as Record<string, string>) : null,
    hoursExceptions: Array.isArray(exceptions) ? (exceptions as HoursException[]) : [],
    postalCode: merchant.postal_code,
  });
  const opening = openingTokens(schedule);
  return {
    abId: merchant.ab_id,
    siret: merchant.siret,
    nafCode: merchant.naf_code,
    nafCode2025: merchant.naf_code_2025,
    sector: merchant.sector,
    departmentCode: merchant.department_code,
    tags: [...tags],
    status: merchant.status,
    trust,
    lat: merchant.latitude,
    lng: merchant.longitude,
    name: indexedName(merchant),
    trade: tradeText(merchant.naf_code, merchant.naf_code_2025),
    products: productText.join(" ").trim(),
    tagsText: tagText.join(" ").trim(),
    place: indexedPlace(merchant),
    about: normalizeForIndex(merchant.description),
    filters: [
      ...[...tags].map(tagToken),
      ...new Set([merchant.naf_code, merchant.naf_code_2025 ?? ""].filter((code) => code !== "").map(nafToken)),
      ...(merchant.latitude !== null && merchant.longitude !== null
        ? pointCells(merchant.latitude, merchant.longitude)
        : []),
      ...opening,
    ].join(" "),
    schedule: storedSchedule(schedule),
    openingTokens: opening,
    catalogue,
  };
}
