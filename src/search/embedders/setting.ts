import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Embedder } from "../embedder.ts";
import { createHashedEmbedder, HASHED_DEFAULT_DIMENSIONS } from "./hashed.ts";
import { createModelEmbedder, MODEL_FILES } from "./model.ts";

/*
 * SEARCH_EMBEDDER, read once by the configuration (a wrong value stops the start with what to
 * fix) and turned into an Embedder by the search engine:
 *   hashed          the hashed embedder, 1,024 dimensions (no model; words and pieces of words)
 *   hashed:<n>      the same with n dimensions (16-4096)
 *   model:<dir>     a model directory (model.json, its weight shards, vocab.json), read locally
 */

export type EmbedderSetting = { kind: "hashed"; dimensions: number } | { kind: "model"; directory: string };

/** The setting, or the reason it is wrong (a sentence that says what to fix). */
export function parseEmbedderSetting(value: string): EmbedderSetting | { error: string } {
  if (value === "hashed") return { kind: "hashed", dimensions: HASHED_DEFAULT_DIMENSIONS };
  const hashed = /^hashed:(\d+)$/.exec(value);
  if (hashed) {
    const dimensions = Number(hashed[1]);
    if (dimensions < 16 || dimensions > 4096) return { error: "hashed:<n> takes 16 to 4096 dimensions" };
    return { kind: "hashed", dimensions };
  }
  if (value.startsWith("model:")) {
    const directory = path.resolve(value.slice("model:".length));
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      return { error: `model directory ${directory} does not exist` };
    }
    const missing = MODEL_FILES.filter((file) => !existsSync(path.join(directory, file)));
    if (missing.length > 0) {
      return {
        error: `model directory ${directory} has no ${missing.join(" nor ")} (a TF.js graph model: model.json, its weight shards and vocab.json)`,
      };
    }
    return { kind: "model", directory };
  }
  return { error: "must be hashed, hashed:<dimensions> or model:<directory>" };
}

/** The embedder of a setting; `minSimilarity` (SEARCH_EMBEDDER_MIN_SIMILARITY) replaces its own floor. */
export function createEmbedder(setting: EmbedderSetting, options: { minSimilarity?: number | null } = {}): Embedder {
  const embedder =
    setting.kind === "hashed" ? createHashedEmbedder(setting.dimensions) : createModelEmbedder(setting.directory);
  const floor = options.minSimilarity;
  if (floor === null || floor === undefined) return embedder;
  return {
    name: embedder.name,
    minSimilarity: floor,
    dimensions: () => embedder.dimensions(),
    embed: (texts) => embedder.embed(texts),
  };
}
