/**
 * The keys that tell two versions of the code apart (src/publish/code-key.ts): the refresh job's
 * over the modules it renders with, and the kept search cards' over what builds a card.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CARD_CODE_ENV,
  cardCodeKey,
  moduleGraph,
  moduleGraphKey,
  processCardCode,
  refreshCodeKey,
} from "../../src/publish/code-key.ts";

let root: string;
let src: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "abeille-code-key-"));
  src = path.join(root, "src");
  for (const dir of ["domain", "schemas", "search"]) mkdirSync(path.join(src, dir), { recursive: true });
  mkdirSync(path.join(root, "data"));
  writeFileSync(path.join(src, "domain", "trust.ts"), "export const WEIGHT = 3;\n");
  writeFileSync(path.join(src, "schemas", "card.ts"), "export const FIELDS = 9;\n");
  writeFileSync(path.join(src, "search", "index.ts"), "export const POOL = 80;\n");
  writeFileSync(path.join(root, "data", "trades.json"), '{"boulangerie": "Boulangerie"}\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the kept cards' code key", () => {
  it("changes with the domain, the schemas or the data, and not with the rest of the sources", () => {
    const first = cardCodeKey(src);
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    writeFileSync(path.join(src, "search", "index.ts"), "export const POOL = 120;\n");
    expect(cardCodeKey(src)).toBe(first);
    const changes: [string, string][] = [
      [path.join(src, "domain", "trust.ts"), "export const WEIGHT = 4;\n"],
      [path.join(src, "schemas", "card.ts"), "export const FIELDS = 10;\n"],
      [path.join(root, "data", "trades.json"), '{"boulangerie": "Boulangerie-pâtisserie"}\n'],
    ];
    const seen = new Set([first]);
    for (const [file, text] of changes) {
      writeFileSync(file, text);
      const key = cardCodeKey(src);
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });

  it("reads data/'s own files only, not the runtime data kept under it (the default DATA_DIR)", () => {
    mkdirSync(path.join(root, "data", "runtime", "publish"), { recursive: true });
    const first = cardCodeKey(src);
    writeFileSync(path.join(root, "data", "runtime", "demo-roster.json"), '{"cases": {}}\n');
    writeFileSync(path.join(root, "data", "runtime", "publish", "index.json"), "{}\n");
    expect(cardCodeKey(src)).toBe(first);
  });

  it("is null away from the sources (a bundle started by hand), where nothing can tell versions apart", () => {
    expect(cardCodeKey(path.join(root, "dist", "server"))).toBeNull();
    // Also from a folder whose ../data exists but no code tree does: data alone tells no code apart.
    mkdirSync(path.join(root, "dist"), { recursive: true });
    expect(cardCodeKey(path.join(root, "dist"))).toBeNull();
  });

  it("is, for this process, the key npm start's primary handed down, else the key of the sources", () => {
    const previous = process.env[CARD_CODE_ENV];
    try {
      delete process.env[CARD_CODE_ENV];
      expect(processCardCode()).toBe(cardCodeKey(path.resolve(import.meta.dirname, "../../src")));
      process.env[CARD_CODE_ENV] = "handed-down";
      expect(processCardCode()).toBe("handed-down");
    } finally {
      if (previous === undefined) delete process.env[CARD_CODE_ENV];
      else process.env[CARD_CODE_ENV] = previous;
    }
  });
});

describe("the refresh job's code key: the modules it renders with", () => {
  // A small program: an entry that imports a renderer (multi-line), re-exports a type, starts a
  // worker by URL, loads a module on demand and reads a data file; plus a route nobody imports.
  beforeEach(() => {
    mkdirSync(path.join(src, "publish"), { recursive: true });
    mkdirSync(path.join(src, "pages"), { recursive: true });
    writeFileSync(
      path.join(src, "publish", "job.ts"),
      [
        'import {\n  render,\n} from "./render.ts";',
        'export type { Shape } from "../schemas/card.ts";',
        'const worker = new URL("./worker.ts", import.meta.url);',
        'const later = () => import("./later.ts");',
        'import { z } from "zod";',
        'import { readFileSync } from "node:fs";',
        "export { render, worker, later, z, readFileSync };",
      ].join("\n"),
    );
    writeFileSync(
      path.join(src, "publish", "render.ts"),
      'import { WEIGHT } from "../domain/trust.ts";\nexport const render = () => WEIGHT;\n',
    );
    writeFileSync(path.join(src, "publish", "worker.ts"), 'import "./side-effect.ts";\n');
    writeFileSync(path.join(src, "publish", "side-effect.ts"), "globalThis.ready = true;\n");
    writeFileSync(
      path.join(src, "publish", "later.ts"),
      'export const labels = new URL("../../data/trades.json", import.meta.url);\n',
    );
    writeFileSync(
      path.join(src, "pages", "route.ts"),
      'import { render } from "../publish/render.ts";\nexport const GET = render;\n',
    );
    writeFileSync(
      path.join(root, "package-lock.json"),
      JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/zod": { version: "4.6.7" } } }),
    );
  });
  const entry = () => [path.join(src, "publish", "job.ts")];

  it("follows imports, re-exports, worker URLs, dynamic imports and data files, and names the packages with their versions", () => {
    const graph = moduleGraph(entry());
    expect(graph.files.map((file) => path.relative(root, file))).toEqual([
      "data/trades.json",
      "src/domain/trust.ts",
      "src/publish/job.ts",
      "src/publish/later.ts",
      "src/publish/render.ts",
      "src/publish/side-effect.ts",
      "src/publish/worker.ts",
      "src/schemas/card.ts",
    ]);
    expect(graph.packages).toEqual(["zod@4.6.7"]);
  });

  it("changes with any module reached or a package's version, and not with a file nobody imports", () => {
    const first = moduleGraphKey(entry());
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    writeFileSync(path.join(src, "pages", "route.ts"), "export const GET = () => 1;\n");
    writeFileSync(path.join(src, "search", "index.ts"), "export const POOL = 120;\n");
    expect(moduleGraphKey(entry())).toBe(first);
    const changes: [string, string][] = [
      [path.join(src, "domain", "trust.ts"), "export const WEIGHT = 4;\n"],
      [path.join(src, "publish", "side-effect.ts"), "globalThis.ready = 1;\n"],
      [path.join(root, "data", "trades.json"), '{"boulangerie": "Boulangerie-pâtisserie"}\n'],
      [
        path.join(root, "package-lock.json"),
        JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/zod": { version: "4.7.0" } } }),
      ],
    ];
    const seen = new Set([first]);
    for (const [file, text] of changes) {
      writeFileSync(file, text);
      const key = moduleGraphKey(entry());
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });

  it("covers, for the real job, the renderers, the signing, the profile loader and the worker, and no route", () => {
    const project = path.resolve(import.meta.dirname, "../..");
    const files = moduleGraph(
      ["publisher.ts", "refresh-worker.ts", "signing-hooks.ts"].map((file) =>
        path.join(project, "src", "publish", file),
      ),
    ).files.map((file) => path.relative(project, file));
    for (const needed of [
      "src/publish/jsonld.ts",
      "src/publish/ai-digest.ts",
      "src/publish/ai-md.ts",
      "src/publish/decision-card.ts",
      "src/publish/snapshot.ts",
      "src/publish/refresh-worker.ts",
      "src/store/publish-source.ts",
      "src/domain/registry/decision-card.ts",
      "src/domain/trust/signal-catalog.ts",
    ])
      expect(files).toContain(needed);
    expect(files.filter((file) => /^src\/(pages|mcp|mail|official|import)\//.test(file))).toEqual([]);
    expect(refreshCodeKey()).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
