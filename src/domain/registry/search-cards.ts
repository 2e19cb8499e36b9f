import type { Action, MerchantState } from "../../schemas/envelope.ts";
import type { SearchResult } from "../../schemas/registry.ts";
import { assessMerchant } from "../assess-merchant.ts";
import { type OpeningSchedule, scheduleOf } from "../availability/opening.ts";
import { formatAddress, formatPrice } from "../format.ts";
import type { Merchant, Product } from "../merchant.ts";
import { createRevisionCache, type RevisionCache } from "../revision-cache.ts";
import { tradeOf } from "../sectors.ts";
import type { ScorableSignal } from "../trust/compute-trust.ts";
import { merchantActions } from "./merchant-actions.ts";
import type { MerchantRepository } from "./merchant-store.ts";

/**
 * The part of a search result that does not depend on the query: the merchant's summary, its
 * products (catalogue order), trust total, state and actions. Building one reads three tables and
 * scores the merchant's signals (about 0.13 ms a merchant at 100,000, most of a search's first
 * call), so cards are kept at two levels: in memory between searches (the most trusted match most
 * queries), and in the store, built ahead by the owner process (keep-search-cards.ts), so that a
 * query no process has seen reads its ten cards instead of building them.
 */
export interface SearchCard extends KeptCard {
  actions: Action[];
}

/** A card as the store keeps it: without its actions, which hold the server's base URL. */
export interface KeptCard {
  status: string;
  sector: string;
  merchant: Omit<SearchResult["merchant"], "distance_km" | "opening">;
  /** What the hit's `merchant.opening` is read from, at the request's instant (availability/opening.ts). */
  schedule: OpeningSchedule;
  products: SearchResult["products"];
  state: MerchantState;
  /** When the card's trust stops being right by itself: the earliest expiry among its counted signals. */
  validUntil: string | null;
}

/**
 * The kept cards (a port: src/store/search-card-store.ts). A kept card is current when it was
 * built for the same format, its merchant was not touched since (merchant_touches: any write to
 * the merchant, its products, signals or place) and its `validUntil` has not passed.
 */
export interface SearchCardStore {
  /** The current kept cards of these merchants (the others are missing from the map). */
  read(abIds: readonly string[], format: string, nowIso: string): Promise<Map<string, KeptCard>>;
  /** Keeps these cards, built from the store as it was at revision `builtAt` (or later). */
  write(cards: ReadonlyMap<string, KeptCard>, format: string, builtAt: number): Promise<void>;
  /** Every merchant's id after `after` (null: from the first), in order, at most `limit`. */
  merchantIdsAfter(after: string | null, limit: number): Promise<string[]>;
  /** Merchants whose card of this format stopped being valid by itself (`validUntil` passed), at most `limit`. */
  expired(format: string, nowIso: string, limit: number): Promise<string[]>;
  /** Drops every card of another format, and its cursor (after a full build of this one). */
  dropOtherFormats(format: string): Promise<void>;
  /** The store revision now (read it before the merchants a card is built from). */
  revision(): Promise<number>;
  /** The store revision the kept cards of `format` reflect; null when none were built for it. */
  readCursor(format: string): Promise<number | null>;
  writeCursor(format: string, revision: number): Promise<void>;
}

/**
 * What a kept card depends on besides the merchant's data: the code that builds it (`code`, a hash
 * of the domain, schemas, store and data sources, src/publish/code-key.ts: a deployment that
 * changes how a card is built never serves the cards of the one before, with no version to
 * remember to bump) and the order rail, which changes the merchant's state.
 */
export function cardFormat(orderRailEnabled: boolean, code: string): string {
  return `${code}${orderRailEnabled ? "+orders" : ""}`;
}

/** Cards of recently returned merchants (see revision-cache.ts), each valid until its `validUntil`. */
export type SearchCardCache = RevisionCache<SearchCard>;

/**
 * About 4 KB of heap each (21 MB for 5,000 at 100,000 merchants): with the kept cards behind it, a
 * card missing here costs a row read, so the memory holds the hot ones only.
 */
export const DEFAULT_SEARCH_CARD_ENTRIES = 2_000;

export function createSearchCardCache(maxEntries = DEFAULT_SEARCH_CARD_ENTRIES): SearchCardCache {
  return createRevisionCache<SearchCard>({ maxEntries, validUntilOf: (card) => card.validUntil });
}

export interface CardDeps {
  merchants: MerchantRepository;
  cards: SearchCardCache;
  /** The cards built ahead (null: every card is built when first shown). */
  keptCards: SearchCardStore | null;
  /** The code key kept cards are built with (see cardFormat). */
  cardCode: () => string;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

/** The cards of these merchants: from memory when current, else kept in the store, else built (and kept in memory). */
export async function loadSearchCards(deps: CardDeps, abIds: readonly string[]): Promise<Map<string, SearchCard>> {
  const now = deps.now();
  const nowIso = now.toISOString();
  return deps.cards.readThroughLoading(abIds, await deps.merchants.revision(), nowIso, async (missing) => {
    const loaded = new Map<string, SearchCard>();
    const kept = await deps.keptCards?.read(missing, cardFormat(deps.orderRailEnabled, deps.cardCode()), nowIso);
    for (const [abId, card] of kept ?? []) loaded.set(abId, withActions(deps.baseUrl, abId, card));
    const toBuild = kept ? missing.filter((abId) => !kept.has(abId)) : missing;
    if (toBuild.length > 0) {
      for (const [abId, card] of await buildKeptCards(deps, toBuild, now)) {
        loaded.set(abId, withActions(deps.baseUrl, abId, card));
      }
    }
    return loaded;
  });
}

/** The cards of these merchants as they are in the store now (a merchant that does not exist has none). */
export async function buildKeptCards(
  deps: Pick<CardDeps, "merchants" | "orderRailEnabled">,
  abIds: readonly string[],
  now: Date,
): Promise<Map<string, KeptCard>> {
  const ids = [...abIds];
  // Three reads that write nothing: side by side.
  const [signals, products, merchants] = await Promise.all([
    deps.merchants.findTrustSignals(ids),
    deps.merchants.findProducts(ids),
    deps.merchants.findMerchants(ids),
  ]);
  const productsByMerchant = groupProducts(products);
  const built = new Map<string, KeptCard>();
  for (const merchant of merchants) {
    const products = productsByMerchant.get(merchant.abId) ?? [];
    built.set(merchant.abId, buildCard(deps, merchant, signals.get(merchant.abId) ?? [], products, now));
  }
  return built;
}

function buildCard(
  deps: Pick<CardDeps, "orderRailEnabled">,
  merchant: Merchant,
  signals: readonly ScorableSignal[],
  products: readonly Product[],
  now: Date,
): KeptCard {
  const assessment = assessMerchant(merchant, signals, { orderRailEnabled: deps.orderRailEnabled, now });
  return {
    status: merchant.status,
    sector: merchant.sector,
    merchant: {
      ab_id: merchant.abId,
      name: merchant.businessName,
      address: formatAddress(merchant),
      city: merchant.city,
      sector: merchant.sector,
      trade: tradeOf(merchant)?.label ?? merchant.nafCode,
      rating: merchant.listingRating,
      review_count: merchant.listingReviewCount,
      trust_score: assessment.trust.breakdown.total,
      trust_level: assessment.trustLevel,
    },
    schedule: scheduleOf(merchant),
    products: products.map((product) => ({
      id: product.productId,
      name: product.name,
      description: product.description,
      price: formatPrice(product),
      tags: product.tags,
    })),
    state: assessment.capabilities.state,
    validUntil: assessment.validUntil,
  };
}

function withActions(baseUrl: string, abId: string, card: KeptCard): SearchCard {
  return { ...card, actions: merchantActions(baseUrl, abId, card.sector, card) };
}

function groupProducts(products: Product[]): Map<string, Product[]> {
  const grouped = new Map<string, Product[]>();
  for (const product of products) {
    const list = grouped.get(product.abId) ?? [];
    list.push(product);
    grouped.set(product.abId, list);
  }
  return grouped;
}
