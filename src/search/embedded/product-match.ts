import type { QueryTerm } from "../normalize.ts";
import { type PreparedProduct, type ProductRow, prepareProduct } from "./documents.ts";
import { hasWord } from "./ranking.ts";

export { type PreparedProduct, prepareProduct };

/*
 * Which of a returned merchant's products match the query, best first. Runs on the few merchants
 * a search returns, with the same normalisation as the index (see tables.ts for why there is no
 * product FTS table).
 */

/** Points a query term earns in a product, by the best field it occurs in. */
const FIELD_POINTS = { name: 3, tags: 2, description: 1 } as const;

interface ProductTerms {
  name: string;
  tags: string;
  description: string;
}

// A product matches the word as typed (or as a prefix), not the alternatives a typo or a prefix
// was spelled out as.
const occurs = (term: QueryTerm, words: string): boolean => hasWord(words, term.term, term.prefix);

/** Sum over the query terms of the points of the best field each occurs in (0 when none does). */
export function textPoints(product: ProductTerms, terms: readonly QueryTerm[]): number {
  let points = 0;
  for (const term of terms) {
    if (occurs(term, product.name)) points += FIELD_POINTS.name;
    else if (occurs(term, product.tags)) points += FIELD_POINTS.tags;
    else if (occurs(term, product.description)) points += FIELD_POINTS.description;
  }
  return points;
}

/** A prepared catalogue as the embedded index stores it (search_merchants.products): compact JSON. */
export function storedCatalogue(products: readonly PreparedProduct[]): string {
  return JSON.stringify(
    products.map((product) => [
      product.productId,
      product.position,
      product.name,
      product.tags,
      product.description,
      [...product.canonicalTags],
    ]),
  );
}

type StoredProduct = [string, number, string, string, string, string[]];

export function catalogueFromStored(text: string): PreparedProduct[] {
  return (JSON.parse(text) as StoredProduct[]).map(([productId, position, name, tags, description, canonical]) => ({
    productId,
    position,
    canonicalTags: new Set(canonical),
    name,
    tags,
    description,
  }));
}

/**
 * Products that carry a requested tag or match a query term: the most requested tags first, then
 * the most text points, then catalogue order. `tags` are canonical (normalizeTag).
 */
export function matchProducts(
  products: readonly (ProductRow | PreparedProduct)[],
  terms: readonly QueryTerm[],
  tags: readonly string[],
): string[] {
  const scored: { productId: string; position: number; tags: number; text: number }[] = [];
  for (const item of products) {
    const product = "product_id" in item ? prepareProduct(item) : item;
    const tagHits = tags.reduce((count, tag) => count + (product.canonicalTags.has(tag) ? 1 : 0), 0);
    const text = terms.length === 0 ? 0 : textPoints(product, terms);
    if (tagHits > 0 || text > 0) {
      scored.push({ productId: product.productId, position: product.position, tags: tagHits, text });
    }
  }
  return scored
    .sort(
      (a, b) =>
        b.tags - a.tags ||
        b.text - a.text ||
        a.position - b.position ||
        (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0),
    )
    .map((product) => product.productId);
}
