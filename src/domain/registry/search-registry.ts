import type { SearchAnswer, SearchQueryInput, SearchResult } from "../../schemas/registry.ts";
import type { SearchIndex } from "../../search/search-index.ts";
import type { MerchantRepository } from "../../store/merchant-repository.ts";
import { assessMerchant } from "../assess-merchant.ts";
import { formatAddress, formatPrice } from "../format.ts";
import type { Product } from "../merchant.ts";
import { tradeForNaf } from "../sectors.ts";
import { merchantActions } from "./merchant-actions.ts";

export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_RADIUS_KM = 10;
const PRODUCTS_PER_RESULT = 5;

export interface SearchDeps {
  search: SearchIndex;
  merchants: MerchantRepository;
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
  const abIds = hits.map((hit) => hit.abId);
  const merchants = new Map(deps.merchants.findMerchants(abIds).map((merchant) => [merchant.abId, merchant]));
  const signals = deps.merchants.findSignals(abIds);
  const productsByMerchant = groupProducts(deps.merchants.findProducts(abIds));
  const now = deps.now();

  const results: SearchResult[] = [];
  for (const hit of hits) {
    const merchant = merchants.get(hit.abId);
    // The index may briefly lag the store (a merchant archived since): never list what resolve would refuse.
    if (!merchant || merchant.status === "ARCHIVED") continue;
    const assessment = assessMerchant(merchant, signals.get(hit.abId) ?? [], {
      orderRailEnabled: deps.orderRailEnabled,
      now,
    });
    const products = orderProducts(productsByMerchant.get(hit.abId) ?? [], hit.matchedProductIds);
    results.push({
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
        ...(hit.distanceKm !== null ? { distance_km: hit.distanceKm } : {}),
      },
      products: products.slice(0, PRODUCTS_PER_RESULT).map((product) => ({
        id: product.productId,
        name: product.name,
        description: product.description,
        price: formatPrice(product),
        tags: product.tags,
      })),
      _actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
      _state: assessment.capabilities.state,
    });
  }

  const answer: SearchAnswer = { query: input.q, results, count: results.length };
  if (input.semantic === true) {
    // No vector search runs yet: say so, so that an empty answer is not read as "no merchant matches".
    answer.retrieval_degraded = deps.embedderConfigured ? "embedding_unavailable" : "embedding_disabled";
  }
  return answer;
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
function orderProducts(products: Product[], matchedIds: string[]): Product[] {
  const rank = new Map(matchedIds.map((id, position) => [id, position]));
  return [...products].sort(
    (a, b) => (rank.get(a.productId) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.productId) ?? Number.MAX_SAFE_INTEGER),
  );
}
