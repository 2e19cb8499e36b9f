/**
 * The keys that tell two versions of the code apart (src/publish/code-key.ts): the refresh job's
 * over the whole source tree, and the kept search cards' over what builds a card.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CARD_CODE_ENV, cardCodeKey, processCardCode, sourceTreeKey } from "../../src/publish/code-key.ts";

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

  it("beside the refresh job's key, which changes with any source file", () => {
    const before = sourceTreeKey(src);
    writeFileSync(path.join(src, "search", "index.ts"), "export const POOL = 120;\n");
    expect(sourceTreeKey(src)).not.toBe(before);
  });
});
