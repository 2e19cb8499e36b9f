import type { MerchantDocument } from "./embedded/documents.ts";
import { analyzeQuery } from "./query.ts";

/**
 * The vector seam of semantic search: turns texts into vectors, in this process. Meilisearch
 * stores them as user-provided embeddings (`_vectors`) and searches them with `hybrid`; it never
 * computes one itself. Implementations: the hashed embedder (embedders/hashed.ts, no model) and a
 * model loaded from a local directory (embedders/model.ts). SEARCH_EMBEDDER picks one
 * (embedders/setting.ts).
 */
export interface Embedder {
  /**
   * Names the vectors: the Meilisearch embedder they are stored under. Another model, or another
   * dimension, is another name (the index is then rebuilt: see meilisearch/index.ts).
   */
  readonly name: string;
  /** The length of every vector; a model's is known once it is loaded, on first use. */
  dimensions(): Promise<number>;
  /**
   * The cosine similarity under which a neighbour is not taken as related to the query: nearest
   * neighbours always exist, and a floor keeps unrelated merchants out of the answer.
   */
  readonly minSimilarity: number;
  /** One vector per text, in order, each of `dimensions()` numbers. */
  embed(texts: readonly string[]): Promise<Float32Array[] | number[][]>;
}

/**
 * What a merchant's vector is computed from: its names, trade (with the vocabulary's names for
 * it), products, tags and description, as indexed (folded). Not its place: a town never makes a
 * merchant a match for a trade, and the text search already weighs it.
 */
export function documentEmbeddingText(doc: MerchantDocument): string {
  return [doc.name, doc.trade, doc.tagsText, doc.products, doc.about].filter((part) => part.length > 0).join(". ");
}

/**
 * What a query's vector is computed from: its words as the text search reads them (folded,
 * filler words dropped); null when there is none (an identifier alone, tags or a point only).
 */
export function queryEmbeddingText(text: string): string | null {
  const { terms, identifier } = analyzeQuery(text);
  if (identifier || terms.length === 0) return null;
  return terms.map((term) => term.term).join(" ");
}
