import type { Embedder } from "../embedder.ts";
import { indexTerms } from "../normalize.ts";

/*
 * The embedder without a model: feature hashing of the folded words (each once), their first five
 * letters (a crude stem) and their character trigrams into a fixed number of dimensions,
 * L2-normalised. Two texts are close when they share words or stems ("croissanterie" and
 * "croissant", "fleuristerie" and "fleuriste"), which a text search that needs every word cannot
 * see. It knows nothing of meaning ("plumber" is not
 * near "fuite d'eau"): a model directory does that (model.ts). Deterministic: the same text gives
 * the same vector in every process and release of the same version, so it also serves the tests.
 */

export const HASHED_DEFAULT_DIMENSIONS = 1024;
/** Changes whenever the features or their weights change: another name, another index. */
const HASHED_VERSION = 1;
const WORD_WEIGHT = 1;
const STEM_LENGTH = 5;
const STEM_WEIGHT = 1;
/** Each trigram weighs less than the word: a long word has many, and French suffixes (-erie, -tion) are shared by unrelated words. */
const TRIGRAM_WEIGHT = 0.3;
/**
 * Unrelated texts meet only through hash collisions and shared suffixes. Measured on the search
 * tests' registry (test/helpers/search-index-fixture.ts, 1,024 dimensions): an unrelated merchant
 * stays under 0.10; a query word sharing its stem with a merchant's words puts it at 0.11 to 0.45,
 * depending on how much else the merchant's text holds. The floor keeps the noise out, and the
 * weakest of those with it.
 */
export const HASHED_MIN_SIMILARITY = 0.12;

export function createHashedEmbedder(dimensions = HASHED_DEFAULT_DIMENSIONS): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 16 || dimensions > 4096) {
    throw new RangeError(`hashed embedder dimensions must be an integer from 16 to 4096, not ${dimensions}`);
  }
  return {
    name: `hashed_v${HASHED_VERSION}_${dimensions}`,
    minSimilarity: HASHED_MIN_SIMILARITY,
    dimensions: async () => dimensions,
    embed: async (texts) => texts.map((text) => hashedVector(text, dimensions)),
  };
}

/** The vector of one text; all zeros for a text without a word. */
export function hashedVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  // Each word once: the trade's names, repeated in a merchant's text, do not drown the rest.
  for (const word of new Set(indexTerms(text))) {
    addFeature(vector, `w:${word}`, WORD_WEIGHT);
    if (word.length > STEM_LENGTH) addFeature(vector, `s:${word.slice(0, STEM_LENGTH)}`, STEM_WEIGHT);
    const padded = `<${word}>`;
    for (let start = 0; start + 3 <= padded.length; start += 1) {
      addFeature(vector, `t:${padded.slice(start, start + 3)}`, TRIGRAM_WEIGHT);
    }
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < dimensions; index += 1) vector[index] = (vector[index] ?? 0) * scale;
  return vector;
}

/** A feature lands in one dimension, with a sign, both from its hash: collisions cancel out on average. */
function addFeature(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const index = hash % vector.length;
  vector[index] = (vector[index] ?? 0) + (hash & 0x8000_0000 ? -weight : weight);
}

/** 32-bit FNV-1a over the UTF-16 code units (the features are folded ASCII, mostly). */
function fnv1a(text: string): number {
  let hash = 0x811c_9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x0100_0193);
  }
  return hash >>> 0;
}
