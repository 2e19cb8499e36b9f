/**
 * The layers, as the imports really are (docs/architecture.md): the domain imports no transport,
 * storage, page or composition code; only src/store reaches the database driver; routes do not
 * reach the store. Existing exceptions are listed below and may only shrink: a new one fails,
 * and an exception that is gone must leave the list.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

interface Import {
  from: string;
  target: string;
  typeOnly: boolean;
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(root, directory), { withFileTypes: true })) {
    const relative = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(relative));
    else if (entry.name.endsWith(".ts")) files.push(relative);
  }
  return files;
}

// Static imports and re-exports (`import type` and `import { type X }` alone are type-only) and
// dynamic import() calls.
const STATIC = /^\s*(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?["']([^"']+)["']/gm;
const DYNAMIC = /import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const resolve = (specifier: string) =>
    specifier.startsWith(".") ? path.relative(root, path.resolve(root, path.dirname(file), specifier)) : specifier;
  const found: Import[] = [];
  for (const match of text.matchAll(STATIC)) {
    const clause = match[2] ?? "";
    const onlyTypes = /^\{\s*type\s[^,}]*\}$/.test(clause.trim()) || /^\{(\s*type\s+\w+\s*,?)+\}$/.test(clause.trim());
    found.push({ from: file, target: resolve(match[3] ?? ""), typeOnly: Boolean(match[1]) || onlyTypes });
  }
  for (const match of text.matchAll(DYNAMIC))
    found.push({ from: file, target: resolve(match[1] ?? ""), typeOnly: false });
  return found;
}

const imports = [...sourceFiles("src"), ...sourceFiles("jobs")].flatMap(importsOf);
const describeImport = ({ from, target, typeOnly }: Import) => `${from} -> ${target}${typeOnly ? " (type)" : ""}`;

/**
 * Known exceptions (none left: the repository types are ports in the domain, the wiring that takes
 * the App is src/wiring.ts). Add one only with a reason, and remove it as soon as it can go.
 */
const DOMAIN_EXCEPTIONS: string[] = [];

describe("the layers", () => {
  it("keep the domain free of transport, storage, pages, API clients and wiring (known exceptions only shrink)", () => {
    const crossing = imports
      .filter(
        ({ from, target }) =>
          from.startsWith("src/domain/") &&
          /^(src\/(http|pages|store|mcp|publish|official)\/|jobs\/|src\/app\.ts$)/.test(target),
      )
      .map(describeImport)
      .sort();
    expect(crossing).toEqual([...DOMAIN_EXCEPTIONS].sort());
  });

  it("leave the database driver to src/store", () => {
    const drivers = imports
      .filter(
        ({ from, target }) => !from.startsWith("src/store/") && /^(better-sqlite3|drizzle-orm|pg)(\/|$)/.test(target),
      )
      .map(describeImport);
    expect(drivers).toEqual([]);
  });

  it("keep routes away from the store: they call the domain", () => {
    const reaching = imports
      .filter(({ from, target }) => from.startsWith("src/pages/") && target.startsWith("src/store/"))
      .map(describeImport);
    expect(reaching).toEqual([]);
  });

  it("form no circle: no module imports, through others, a module that imports it (type imports included)", () => {
    expect(importCircles(imports)).toEqual([]);
    // The finder finds a circle where there is one.
    const made = (from: string, target: string): Import => ({ from, target, typeOnly: true });
    expect(
      importCircles([made("a.ts", "b.ts"), made("b.ts", "c.ts"), made("c.ts", "a.ts"), made("c.ts", "d.ts")]),
    ).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("read every import of the tree (the checks above would pass on nothing)", () => {
    expect(imports.length).toBeGreaterThan(800);
    expect(imports.some(({ from, target }) => from === "src/app.ts" && target === "src/store/db.ts")).toBe(true);
  });
});

/** The strongly connected groups of two files or more (Tarjan), each sorted, in file order. */
function importCircles(edges: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, target } of edges) next.set(from, [...(next.get(from) ?? []), target]);
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, order.get(target) as number));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1) circles.push(group.sort());
  };
  for (const file of [...next.keys()].sort()) if (!order.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
