import type { SearchAnswer, SearchQueryInput, SearchResult } from "../../schemas/registry.ts";
import type { SearchIndex } from "../../search/search-index.ts";
import { assessMerchant } from "../assess-merchant.ts";
import { formatAddress, formatPrice } from "../format.ts";
import type { Merchant, Product } from "../merchant.ts";
import { tradeForNaf } from "../sectors.ts";
import type { ScorableSignal } from "../trust/compute-trust.ts";
import { merchantActions } from "./merchant-actions.ts";
import type { MerchantRepository } from "./merchant-store.ts";
import type { SearchCard, SearchCardCache } from "./search-cards.ts";

export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_RADIUS_KM = 10;
const PRODUCTS_PER_RESULT = 5;

export interface SearchDeps {
  search: SearchIndex;
  merchants: MerchantRepository;
  /** Query-independent result cards kept between searches (see search-cards.ts). */
  cards: SearchCardCache;
  baseUrl: string;
  orderRailEnabled: boolean;
  /** Whether a vector embedder is configured; without one `semantic` degrades to full text. */
  embedderConfigured: boolean;
  now: () => Date;
}

export async function searchRegistry(deps: SearchDeps, input: SearchQueryInput): Promise<SearchAnswer> {
  const near =
    input.lat !== undefined && input.lng !== undefined
      ? { lat: input.lat, lng: input.lng, radiusKm: input.radius ?? DEFAULT_RADIUS_KM }
      : null;
  const hits = await deps.search.search({
    text: input.q,
    tags: input.tags ?? [],
    near,
    limit: input.limit ?? DEFAULT_SEARCH_LIMIT,
  });
  const cards = loadCards(
    deps,
    hits.map((hit) => hit.abId),
  );

  const results: SearchResult[] = [];
  for (const hit of hits) {
    const card = cards.get(hit.abId);
    // The index may briefly lag the store (a merchant archived since): never list what resolve would refuse.
    if (!card || card.status === "ARCHIVED") continue;
    results.push({
      merchant: hit.distanceKm !== null ? { ...card.merchant, distance_km: hit.distanceKm } : card.merchant,
      products: orderProducts(card.products, hit.matchedProductIds).slice(0, PRODUCTS_PER_RESULT),
      _actions: card.actions,
      _state: card.state,
    });
  }

  const answer: SearchAnswer = { query: input.q, results, count: results.length };
  if (input.semantic === true) {
    // No vector search runs yet: say so, so that an empty answer is not read as "no merchant matches".
    answer.retrieval_degraded = deps.embedderConfigured ? "embedding_unavailable" : "embedding_disabled";
  }
  return answer;
}

/** The cards of these merchants: from the cache when current, built (and cached) otherwise. */
function loadCards(deps: SearchDeps, abIds: string[]): Map<string, SearchCard> {
  const now = deps.now();
  return deps.cards.readThrough(abIds, deps.merchants.revision(), now.toISOString(), (missing) => {
    const signals = deps.merchants.findTrustSignals(missing);
    const productsByMerchant = groupProducts(deps.merchants.findProducts(missing));
    const built = new Map<string, SearchCard>();
    for (const merchant of deps.merchants.findMerchants(missing)) {
      const products = productsByMerchant.get(merchant.abId) ?? [];
      built.set(merchant.abId, buildCard(deps, merchant, signals.get(merchant.abId) ?? [], products, now));
    }
    return built;
  });
}

function buildCard(
  deps: SearchDeps,
  merchant: Merchant,
  signals: readonly ScorableSignal[],
  products: readonly Product[],
  now: Date,
): SearchCard {
  const assessment = assessMerchant(merchant, signals, { orderRailEnabled: deps.orderRailEnabled, now });
  return {
    status: merchant.status,
    merchant: {
      ab_id: merchant.abId,
      name: merchant.businessName,
      address: formatAddress(merchant),
      city: merchant.city,
      sector: merchant.sector,
      trade: tradeForNaf(merchant.nafCode)?.label ?? merchant.nafCode,
      rating: merchant.listingRating,
      review_count: merchant.listingReviewCount,
      trust_score: assessment.trust.breakdown.total,
    },
    products: products.map((product) => ({
      id: product.productId,
      name: product.name,
      description: product.description,
      price: formatPrice(product),
      tags: product.tags,
    })),
    actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
    state: assessment.capabilities.state,
    validUntil: assessment.validUntil,
  };
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

/** Matching products first, in the index's order, then the rest in catalogue order. */
function orderProducts(products: SearchResult["products"], matchedIds: string[]): SearchResult["products"] {
  if (matchedIds.length === 0) return products;
  const rank = new Map(matchedIds.map((id, position) => [id, position]));
  return [...products].sort(
    (a, b) => (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER),
  );
}
